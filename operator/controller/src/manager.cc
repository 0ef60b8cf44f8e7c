#include "hetbench/controller/manager.h"

#include <spdlog/spdlog.h>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

constexpr const char* kRunIndex = "run";
constexpr const char* kScheduleIndex = "schedule";

std::string labelOf(const json& object, std::string_view key) {
  const json& meta = object.value("metadata", json::object());
  const json& labels = meta.value("labels", json::object());
  auto it = labels.find(std::string(key));
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string runLabel(const json& object) { return labelOf(object, benchmark::kRunLabel); }

std::string namespaceOf(const json& object) {
  return object.value("metadata", json::object()).value("namespace", "");
}

std::vector<json> byIndex(const std::vector<std::unique_ptr<kube::Informer>>& informers,
                          const char* index, const std::string& ns, const std::string& value) {
  std::vector<json> out;
  for (const auto& informer : informers) {
    std::vector<json> found = informer->byIndex(index, ns + "/" + value);
    for (json& object : found) out.push_back(std::move(object));
  }
  return out;
}

// A reconcile that throws (an allocation that fails, a thread that cannot start) is an error
// like any other: counted, logged and retried with backoff, as controller-runtime recovers a
// panicking reconciler, rather than the end of the process and of every run it drives.
template <typename Reconcile>
common::Result<ReconcileResult> guarded(const Reconcile& reconcile, const std::string& ns,
                                        const std::string& name) {
  try {
    return reconcile(ns, name);
  } catch (const std::exception& e) {
    return common::internalError(std::string("the reconcile threw: ") + e.what());
  } catch (...) {
    return common::internalError("the reconcile threw an exception of unknown type");
  }
}

}  // namespace

/// The informers' caches, one informer per resource and watched namespace.
class Manager::Cache final : public RunCache, public ScheduleCache, public SlurmClusterCache {
 public:
  std::optional<json> run(const std::string& ns, const std::string& name) const override {
    for (const auto& informer : runInformers)
      if (auto found = informer->get(ns, name)) return found;
    return std::nullopt;
  }
  std::vector<json> runs(const std::string& ns) const override {
    std::vector<json> out;
    for (const auto& informer : runInformers)
      for (json& run : informer->list())
        if (namespaceOf(run) == ns) out.push_back(std::move(run));
    return out;
  }
  std::vector<json> pods(const std::string& ns, const std::string& run) const override {
    return byIndex(podInformers, kRunIndex, ns, run);
  }
  std::vector<json> jobs(const std::string& ns, const std::string& run) const override {
    return byIndex(jobInformers, kRunIndex, ns, run);
  }
  std::vector<json> ipuJobs(const std::string& ns, const std::string& run) const override {
    std::lock_guard lock(ipuMu);
    return byIndex(ipuJobInformers, kRunIndex, ns, run);
  }
  std::optional<json> schedule(const std::string& ns, const std::string& name) const override {
    std::lock_guard lock(ipuMu);
    for (const auto& informer : scheduleInformers)
      if (auto found = informer->get(ns, name)) return found;
    return std::nullopt;
  }
  SystemLookup system(const std::string& name) const override {
    std::lock_guard lock(ipuMu);
    if (systemInformers.empty()) return {};
    if (!systemInformers.front()->hasSynced()) return {SystemLookup::State::kSyncing, {}};
    if (auto found = systemInformers.front()->get("", name)) {
      return {SystemLookup::State::kFound, std::move(*found)};
    }
    return {SystemLookup::State::kAbsent, {}};
  }
  std::optional<json> slurmCluster(const std::string& name) const override {
    std::lock_guard lock(ipuMu);
    for (const auto& informer : slurmClusterInformers)
      if (auto found = informer->get("", name)) return found;
    return std::nullopt;
  }
  std::vector<json> scheduledRuns(const std::string& ns,
                                  const std::string& schedule) const override {
    return byIndex(runInformers, kScheduleIndex, ns, schedule);
  }

  bool synced() const {
    auto all = [](const std::vector<std::unique_ptr<kube::Informer>>& v) {
      for (const auto& i : v)
        if (!i->hasSynced()) return false;
      return true;
    };
    std::lock_guard lock(ipuMu);
    return all(runInformers) && all(podInformers) && all(jobInformers) && all(ipuJobInformers) &&
           all(scheduleInformers) && all(systemInformers);
  }

  void stop() {
    for (auto* group : {&runInformers, &podInformers, &jobInformers})
      for (auto& i : *group) i->stop();
    std::lock_guard lock(ipuMu);
    for (auto* group : {&ipuJobInformers, &scheduleInformers, &seriesInformers, &systemInformers,
                        &slurmClusterInformers})
      for (auto& i : *group) i->stop();
  }

  std::vector<std::unique_ptr<kube::Informer>> runInformers;
  std::vector<std::unique_ptr<kube::Informer>> podInformers;
  std::vector<std::unique_ptr<kube::Informer>> jobInformers;
  /// Guards the informers of resources that are discovered later: IPUJobs, BenchmarkSchedules,
  /// BenchmarkSeries and BenchmarkSystems, whose CRDs may be installed after the operator starts.
  mutable std::mutex ipuMu;
  std::vector<std::unique_ptr<kube::Informer>> ipuJobInformers;
  std::vector<std::unique_ptr<kube::Informer>> scheduleInformers;
  /// Not part of synced(): no controller reads them, they only feed the series metrics.
  std::vector<std::unique_ptr<kube::Informer>> seriesInformers;
  /// One informer: BenchmarkSystems are cluster-scoped.
  std::vector<std::unique_ptr<kube::Informer>> systemInformers;
  /// One informer (cluster-scoped); not part of synced(): no run waits for the clusters' probes.
  std::vector<std::unique_ptr<kube::Informer>> slurmClusterInformers;
};

Manager::Manager(kube::KubeClient& client, const common::Clock& clock, common::RandomSource& random,
                 kube::EventRecorder& events, metrics::ControllerMetrics& metrics,
                 ManagerOptions options)
    : client_(client),
      clock_(clock),
      random_(random),
      events_(events),
      metrics_(metrics),
      options_(std::move(options)),
      cache_(std::make_unique<Cache>()) {
  if (options_.namespaces.empty()) options_.namespaces.push_back("");
  queue_ = std::make_unique<kube::WorkQueue>(clock_, kube::RateLimitOptions{},
                                             metrics_.workQueueObserver(metrics::kRunController));
  scheduleQueue_ = std::make_unique<kube::WorkQueue>(
      clock_, kube::RateLimitOptions{}, metrics_.workQueueObserver(metrics::kScheduleController));
  slurmConnector_ = std::make_unique<SlurmConnector>(client_, *cache_, options_.slurmConnector);
  options_.reconciler.slurm = slurmConnector_.get();
  ReconcileObserver observer;
  observer.runFinished = [this](const std::string& phase) { metrics_.runFinished(phase); };
  reconciler_ = std::make_unique<Reconciler>(client_, *cache_, clock_, events_, options_.reconciler,
                                             options_.logs, std::move(observer));
  scheduleReconciler_ = std::make_unique<ScheduleReconciler>(client_, *cache_, clock_, events_);
  seriesQueue_ = std::make_unique<kube::WorkQueue>(
      clock_, kube::RateLimitOptions{}, metrics_.workQueueObserver(metrics::kSeriesController));
  seriesReconciler_ = std::make_unique<SeriesReconciler>(client_, *cache_, clock_, events_);
  slurmClusterQueue_ = std::make_unique<kube::WorkQueue>(
      clock_, kube::RateLimitOptions{},
      metrics_.workQueueObserver(metrics::kSlurmClusterController));
  slurmClusterReconciler_ = std::make_unique<SlurmClusterReconciler>(
      client_, *cache_, *slurmConnector_, clock_, events_, options_.slurmClusters);
}

Manager::~Manager() { stop(); }

std::unique_ptr<kube::Informer> Manager::makeInformer(const kube::GroupVersionResource& gvr,
                                                      const std::string& ns, Watched watched) {
  kube::InformerOptions options;
  options.ns = ns;
  options.resync = options_.resync;
  if (watched == Watched::kWorkloads) options.labelSelector = std::string(benchmark::kRunLabel);
  auto informer = std::make_unique<kube::Informer>(client_, gvr, options, clock_, random_);
  // The owner's key under a label, as an index: workloads by run, runs by schedule.
  auto indexBy = [&](const char* index, std::string_view label) {
    informer->addIndex(index, [label](const json& object) -> std::vector<std::string> {
      const std::string owner = labelOf(object, label);
      if (owner.empty()) return {};
      return {namespaceOf(object) + "/" + owner};
    });
  };
  std::function<void(const json&)> enqueue;
  switch (watched) {
    case Watched::kRuns:
      indexBy(kScheduleIndex, benchmark::kScheduleLabel);
      enqueue = [this](const json& o) { enqueueRun(o); };
      break;
    case Watched::kWorkloads:
      indexBy(kRunIndex, benchmark::kRunLabel);
      enqueue = [this](const json& o) { enqueueOwner(o); };
      break;
    case Watched::kSchedules:
      enqueue = [this](const json& o) { enqueueSchedule(o); };
      break;
    case Watched::kSystems:
      // Read at acceptance only: a change of a system changes no accepted run.
      return informer;
    case Watched::kClusters:
      enqueue = [this](const json& o) { slurmClusterQueue_->add(kube::objectKey(o)); };
      break;
    case Watched::kSeries: {
      // The series controller works from the runs; of a series it hears only that its spec
      // changed (spec.acceptedAfter), to judge it again. Every change feeds the series metrics.
      informer->addHandlers(options_.seriesHandlers);
      kube::InformerHandlers specChanges;
      specChanges.onUpdate = [this](const json& old, const json& now) {
        if (common::member(old, "spec") != common::member(now, "spec")) {
          seriesQueue_->add(SeriesReconciler::seriesKey(now));
        }
      };
      informer->addHandlers(std::move(specChanges));
      return informer;
    }
  }
  kube::InformerHandlers handlers;
  handlers.onAdd = enqueue;
  handlers.onUpdate = [enqueue](const json&, const json& now) { enqueue(now); };
  // A deleted schedule has nothing left to do: the garbage collector takes its runs; nor has a
  // deleted SlurmCluster.
  if (watched != Watched::kSchedules && watched != Watched::kClusters) {
    handlers.onDelete = enqueue;
  }
  informer->addHandlers(std::move(handlers));
  return informer;
}

void Manager::enqueueRun(const json& run) {
  queue_->add(kube::objectKey(run));
  const std::string schedule = labelOf(run, benchmark::kScheduleLabel);
  if (!schedule.empty()) scheduleQueue_->add(namespaceOf(run) + "/" + schedule);
  enqueueSeries(run);
}

void Manager::enqueueSeries(const json& run) {
  const json* status = run.contains("status") ? &run.at("status") : nullptr;
  if (status == nullptr || !status->is_object()) return;
  const auto results = status->find("results");
  if (results != status->end() && results->is_array() && !results->empty()) {
    seriesQueue_->add(kube::objectKey(run));
  }
}

void Manager::enqueueSchedule(const json& schedule) {
  scheduleQueue_->add(kube::objectKey(schedule));
}

void Manager::enqueueOwner(const json& workload) {
  const std::string run = runLabel(workload);
  if (!run.empty()) queue_->add(namespaceOf(workload) + "/" + run);
}

void Manager::startDiscoveredInformers() {
  // Starts the informers of a resource whose CRD may come after the operator, once it is served.
  auto discover = [this](const kube::GroupVersionResource& gvr, const std::string& kind,
                         Watched watched, std::vector<std::unique_ptr<kube::Informer>>& into) {
    {
      std::lock_guard lock(cache_->ipuMu);
      if (!into.empty()) return;
    }
    if (!client_.resourceFor(gvr.apiVersion(), kind).isOk()) return;
    std::vector<std::unique_ptr<kube::Informer>> started;
    for (const std::string& ns :
         gvr.namespaced ? options_.namespaces : std::vector<std::string>{""}) {
      started.push_back(makeInformer(gvr, ns, watched));
      started.back()->start();
    }
    std::lock_guard lock(cache_->ipuMu);
    for (auto& informer : started) into.push_back(std::move(informer));
    spdlog::info("watching {}s ({} is served)", kind, gvr.apiVersion());
  };
  discover(kIpuJobs, "IPUJob", Watched::kWorkloads, cache_->ipuJobInformers);
  discover(kBenchmarkSchedules, std::string(benchmark::kScheduleKind), Watched::kSchedules,
           cache_->scheduleInformers);
  discover(kBenchmarkSeries, std::string(benchmark::kSeriesKind), Watched::kSeries,
           cache_->seriesInformers);
  discover(kBenchmarkSystems, std::string(benchmark::kSystemKind), Watched::kSystems,
           cache_->systemInformers);
  discover(kSlurmClusters, "SlurmCluster", Watched::kClusters, cache_->slurmClusterInformers);
}

void Manager::start() {
  for (const std::string& ns : options_.namespaces) {
    cache_->runInformers.push_back(makeInformer(kBenchmarkRuns, ns, Watched::kRuns));
    cache_->podInformers.push_back(makeInformer(kube::resources::kPods, ns, Watched::kWorkloads));
    cache_->jobInformers.push_back(makeInformer(kube::resources::kJobs, ns, Watched::kWorkloads));
  }
  for (auto& informer : cache_->runInformers)
    for (const kube::InformerHandlers& handlers : options_.runHandlers)
      informer->addHandlers(handlers);
  for (auto& informer : cache_->podInformers) informer->addHandlers(options_.podHandlers);
  for (auto* group : {&cache_->runInformers, &cache_->podInformers, &cache_->jobInformers})
    for (auto& informer : *group) informer->start();
  startDiscoveredInformers();
  housekeepingThread_ = std::thread([this] { housekeeping(); });

  if (!options_.leaderElect) {
    metrics_.leader(true);
    return;  // housekeeping starts the workers once the caches have synced
  }
  kube::LeaderCallbacks callbacks;
  callbacks.onStartedLeading = [this] {
    spdlog::info("leading: starting {} worker(s) once the caches have synced", options_.workers);
    metrics_.leader(true);
    std::lock_guard lock(mu_);
    leading_ = true;
    led_ = true;
    cv_.notify_all();
  };
  callbacks.onStoppedLeading = [this] {
    metrics_.leader(false);
    std::lock_guard lock(mu_);
    if (stopping_) return;
    spdlog::error("lost the leader lease; stopping so that a fresh process takes over");
    lostLease_ = true;
    cv_.notify_all();
  };
  callbacks.onNewLeader = [](const std::string& identity) {
    spdlog::info("the leader is {}", identity);
  };
  elector_ = std::make_unique<kube::LeaderElector>(client_, clock_, options_.leaderElection,
                                                   std::move(callbacks));
  electorThread_ = std::thread([this] { elector_->run(); });
}

void Manager::housekeeping() {
  std::unique_lock lock(mu_);
  common::MonoTime nextDiscovery = clock_.monotonic() + options_.discoveryInterval;
  common::MonoTime nextSweep = clock_.monotonic();
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    if (!workersStarted_ && (leading_ || !options_.leaderElect) && cache_->synced()) {
      workersStarted_ = true;
      for (int i = 0; i < options_.workers; ++i) {
        workers_.emplace_back([this] {
          work(*queue_, metrics::kRunController,
               [this](const std::string& ns, const std::string& name) {
                 return reconciler_->reconcile(ns, name);
               });
        });
      }
      workers_.emplace_back([this] {
        work(*scheduleQueue_, metrics::kScheduleController,
             [this](const std::string& ns, const std::string& name) {
               return scheduleReconciler_->reconcile(ns, name);
             });
      });
      workers_.emplace_back([this] {
        work(*seriesQueue_, metrics::kSeriesController,
             [this](const std::string& ns, const std::string& name) {
               // A run's key is "NS/NAME"; a series' is "series/NS/NAME" (seriesKey).
               const std::size_t slash = name.find('/');
               if (ns == "series" && slash != std::string::npos) {
                 return seriesReconciler_->rejudge(name.substr(0, slash), name.substr(slash + 1));
               }
               return seriesReconciler_->reconcile(ns, name);
             });
      });
      workers_.emplace_back([this] {
        work(*slurmClusterQueue_, metrics::kSlurmClusterController,
             [this](const std::string&, const std::string& name) {
               return slurmClusterReconciler_->reconcile(name);
             });
      });
      // Every object is looked at once; the informers' first adds may predate the workers.
      for (const auto& informer : cache_->runInformers)
        for (const json& run : informer->list()) {
          queue_->add(kube::objectKey(run));
          enqueueSeries(run);
        }
      std::lock_guard ipuLock(cache_->ipuMu);
      for (const auto& informer : cache_->scheduleInformers)
        for (const json& schedule : informer->list()) enqueueSchedule(schedule);
      for (const auto& informer : cache_->slurmClusterInformers)
        for (const json& cluster : informer->list())
          slurmClusterQueue_->add(kube::objectKey(cluster));
    }
    bool needDiscovery = false;
    {
      std::lock_guard ipuLock(cache_->ipuMu);
      needDiscovery = cache_->ipuJobInformers.empty() || cache_->scheduleInformers.empty() ||
                      cache_->seriesInformers.empty() || cache_->systemInformers.empty() ||
                      cache_->slurmClusterInformers.empty();
    }
    if (needDiscovery && clock_.monotonic() >= nextDiscovery) {
      nextDiscovery = clock_.monotonic() + options_.discoveryInterval;
      lock.unlock();
      startDiscoveredInformers();
      lock.lock();
      // A schedule informer started after the workers delivers its objects through its handlers.
    }
    if (options_.janitor != nullptr && workersStarted_ && clock_.monotonic() >= nextSweep) {
      nextSweep = clock_.monotonic() + options_.logSweepInterval;
      lock.unlock();
      options_.janitor->sweep(clock_.now(), [this] { return liveRuns(); });
      lock.lock();
    }
  }
}

std::vector<logs::LiveRun> Manager::liveRuns() const {
  std::vector<logs::LiveRun> out;
  for (const auto& informer : cache_->runInformers) {
    for (const json& object : informer->list()) {
      const benchmark::Run run = benchmark::readRun(object);
      out.push_back({run.ref.ns, run.ref.name, run.ref.uid, run.status.completionTime});
    }
  }
  return out;
}

void Manager::work(kube::WorkQueue& queue, std::string_view controller,
                   const Reconcile& reconcile) {
  while (std::optional<std::string> key = queue.get()) {
    if (draining_) {  // shutting down: start no new work
      queue.done(*key);
      continue;
    }
    if (!mayWrite()) {  // the lease may have passed to another replica: not this one's to do
      queue.addRateLimited(*key);
      queue.done(*key);
      continue;
    }
    const std::size_t slash = key->find('/');
    const std::string ns = key->substr(0, slash);
    const std::string name = slash == std::string::npos ? *key : key->substr(slash + 1);
    const common::MonoTime began = clock_.monotonic();
    common::Result<ReconcileResult> result = guarded(reconcile, ns, name);
    const auto took = clock_.monotonic() - began;
    if (!result.isOk()) {
      spdlog::warn("reconcile {} {}: {}", controller, *key, result.status().toString());
      metrics_.reconciled(controller, "error", took);
      queue.addRateLimited(*key);
    } else if (result.value().requeueAfter) {
      metrics_.reconciled(controller, "requeue_after", took);
      queue.forget(*key);
      queue.addAfter(*key, *result.value().requeueAfter);
    } else {
      metrics_.reconciled(controller, "success", took);
      queue.forget(*key);
    }
    queue.done(*key);
  }
}

bool Manager::ready() const { return cache_->synced(); }

bool Manager::mayWrite() const {
  return !options_.leaderElect || (elector_ != nullptr && elector_->isLeader());
}

std::map<std::string, std::uint64_t> Manager::watchRestarts() const {
  std::map<std::string, std::uint64_t> out;
  for (const auto* group : {&cache_->runInformers, &cache_->podInformers, &cache_->jobInformers})
    for (const auto& informer : *group) out[informer->resource()] += informer->watchRestarts();
  std::lock_guard lock(cache_->ipuMu);
  for (const auto* group :
       {&cache_->ipuJobInformers, &cache_->scheduleInformers, &cache_->seriesInformers,
        &cache_->systemInformers, &cache_->slurmClusterInformers})
    for (const auto& informer : *group) out[informer->resource()] += informer->watchRestarts();
  return out;
}

void Manager::wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return stopping_ || lostLease_.load(); });
}

void Manager::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  draining_ = true;
  queue_->shutDown();
  scheduleQueue_->shutDown();
  seriesQueue_->shutDown();
  slurmClusterQueue_->shutDown();
  if (housekeepingThread_.joinable()) housekeepingThread_.join();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  if (elector_) elector_->stop();
  if (electorThread_.joinable()) electorThread_.join();
  cache_->stop();
  metrics_.leader(false);
}

}  // namespace hetbench::controller
