#include "hetbench/controller/manager.h"

#include <spdlog/spdlog.h>

#include "hetbench/benchmark/constants.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

constexpr const char* kRunIndex = "run";

std::string runLabel(const json& object) {
  const json& meta = object.value("metadata", json::object());
  const json& labels = meta.value("labels", json::object());
  auto it = labels.find(std::string(benchmark::kRunLabel));
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string namespaceOf(const json& object) {
  return object.value("metadata", json::object()).value("namespace", "");
}

std::vector<json> byRun(const std::vector<std::unique_ptr<kube::Informer>>& informers,
                        const std::string& ns, const std::string& run) {
  std::vector<json> out;
  for (const auto& informer : informers) {
    std::vector<json> found = informer->byIndex(kRunIndex, ns + "/" + run);
    for (json& object : found) out.push_back(std::move(object));
  }
  return out;
}

}  // namespace

/// The informers' caches, one informer per resource and watched namespace.
class Manager::Cache final : public RunCache {
 public:
  std::optional<json> run(const std::string& ns, const std::string& name) const override {
    for (const auto& informer : runs)
      if (auto found = informer->get(ns, name)) return found;
    return std::nullopt;
  }
  std::vector<json> pods(const std::string& ns, const std::string& run) const override {
    return byRun(podInformers, ns, run);
  }
  std::vector<json> jobs(const std::string& ns, const std::string& run) const override {
    return byRun(jobInformers, ns, run);
  }
  std::vector<json> ipuJobs(const std::string& ns, const std::string& run) const override {
    std::lock_guard lock(ipuMu);
    return byRun(ipuJobInformers, ns, run);
  }

  bool synced() const {
    auto all = [](const std::vector<std::unique_ptr<kube::Informer>>& v) {
      for (const auto& i : v)
        if (!i->hasSynced()) return false;
      return true;
    };
    std::lock_guard lock(ipuMu);
    return all(runs) && all(podInformers) && all(jobInformers) && all(ipuJobInformers);
  }

  void stop() {
    for (auto* group : {&runs, &podInformers, &jobInformers})
      for (auto& i : *group) i->stop();
    std::lock_guard lock(ipuMu);
    for (auto& i : ipuJobInformers) i->stop();
  }

  std::vector<std::unique_ptr<kube::Informer>> runs;
  std::vector<std::unique_ptr<kube::Informer>> podInformers;
  std::vector<std::unique_ptr<kube::Informer>> jobInformers;
  mutable std::mutex ipuMu;
  std::vector<std::unique_ptr<kube::Informer>> ipuJobInformers;
};

Manager::Manager(kube::KubeClient& client, const common::Clock& clock, common::RandomSource& random,
                 kube::EventRecorder& events, ControllerMetrics& metrics, ManagerOptions options)
    : client_(client),
      clock_(clock),
      random_(random),
      events_(events),
      metrics_(metrics),
      options_(std::move(options)),
      cache_(std::make_unique<Cache>()) {
  if (options_.namespaces.empty()) options_.namespaces.push_back("");
  queue_ = std::make_unique<kube::WorkQueue>(clock_, kube::RateLimitOptions{},
                                             metrics_.workQueueObserver());
  ReconcileObserver observer;
  observer.runFinished = [this](const std::string& phase) { metrics_.runFinished(phase); };
  reconciler_ = std::make_unique<Reconciler>(client_, *cache_, clock_, events_, options_.reconciler,
                                             options_.logs, std::move(observer));
}

Manager::~Manager() { stop(); }

std::unique_ptr<kube::Informer> Manager::makeInformer(const kube::GroupVersionResource& gvr,
                                                      const std::string& ns, bool labelled) {
  kube::InformerOptions options;
  options.ns = ns;
  options.resync = options_.resync;
  if (labelled) options.labelSelector = std::string(benchmark::kRunLabel);
  auto informer = std::make_unique<kube::Informer>(client_, gvr, options, clock_, random_);
  if (labelled) {
    informer->addIndex(kRunIndex, [](const json& object) -> std::vector<std::string> {
      const std::string run = runLabel(object);
      if (run.empty()) return {};
      return {namespaceOf(object) + "/" + run};
    });
    kube::InformerHandlers handlers;
    handlers.onAdd = [this](const json& o) { enqueueOwner(o); };
    handlers.onUpdate = [this](const json&, const json& now) { enqueueOwner(now); };
    handlers.onDelete = [this](const json& o) { enqueueOwner(o); };
    informer->addHandlers(std::move(handlers));
  } else {
    kube::InformerHandlers handlers;
    handlers.onAdd = [this](const json& o) { enqueueRun(o); };
    handlers.onUpdate = [this](const json&, const json& now) { enqueueRun(now); };
    handlers.onDelete = [this](const json& o) { enqueueRun(o); };
    informer->addHandlers(std::move(handlers));
  }
  return informer;
}

void Manager::enqueueRun(const json& run) { queue_->add(kube::objectKey(run)); }

void Manager::enqueueOwner(const json& workload) {
  const std::string run = runLabel(workload);
  if (!run.empty()) queue_->add(namespaceOf(workload) + "/" + run);
}

void Manager::startIpuJobInformers() {
  common::Result<kube::GroupVersionResource> served =
      client_.resourceFor(kIpuJobs.apiVersion(), "IPUJob");
  if (!served.isOk()) return;
  std::vector<std::unique_ptr<kube::Informer>> started;
  for (const std::string& ns : options_.namespaces) {
    started.push_back(makeInformer(kIpuJobs, ns, true));
    started.back()->start();
  }
  std::lock_guard lock(cache_->ipuMu);
  for (auto& informer : started) cache_->ipuJobInformers.push_back(std::move(informer));
  spdlog::info("watching IPUJobs ({} is served)", kIpuJobs.apiVersion());
}

void Manager::start() {
  for (const std::string& ns : options_.namespaces) {
    cache_->runs.push_back(makeInformer(kBenchmarkRuns, ns, false));
    cache_->podInformers.push_back(makeInformer(kube::resources::kPods, ns, true));
    cache_->jobInformers.push_back(makeInformer(kube::resources::kJobs, ns, true));
  }
  for (auto& informer : cache_->runs) informer->addHandlers(options_.runHandlers);
  for (auto* group : {&cache_->runs, &cache_->podInformers, &cache_->jobInformers})
    for (auto& informer : *group) informer->start();
  startIpuJobInformers();
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
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    if (stopping_) break;
    if (!workersStarted_ && (leading_ || !options_.leaderElect) && cache_->synced()) {
      workersStarted_ = true;
      for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
      // Every run is looked at once; the informers' first adds may predate the workers.
      for (const auto& informer : cache_->runs)
        for (const json& run : informer->list()) queue_->add(kube::objectKey(run));
    }
    bool needIpu = false;
    {
      std::lock_guard ipuLock(cache_->ipuMu);
      needIpu = cache_->ipuJobInformers.empty();
    }
    if (needIpu && clock_.monotonic() >= nextDiscovery) {
      nextDiscovery = clock_.monotonic() + options_.discoveryInterval;
      lock.unlock();
      startIpuJobInformers();
      lock.lock();
    }
  }
}

void Manager::work() {
  while (std::optional<std::string> key = queue_->get()) {
    if (draining_) {  // shutting down: start no new work
      queue_->done(*key);
      continue;
    }
    const std::size_t slash = key->find('/');
    const std::string ns = key->substr(0, slash);
    const std::string name = slash == std::string::npos ? *key : key->substr(slash + 1);
    const common::MonoTime began = clock_.monotonic();
    common::Result<ReconcileResult> result = reconciler_->reconcile(ns, name);
    const auto took = clock_.monotonic() - began;
    if (!result.isOk()) {
      spdlog::warn("reconcile {}: {}", *key, result.status().toString());
      metrics_.reconciled("error", took);
      queue_->addRateLimited(*key);
    } else if (result.value().requeueAfter) {
      metrics_.reconciled("requeue_after", took);
      queue_->forget(*key);
      queue_->addAfter(*key, *result.value().requeueAfter);
    } else {
      metrics_.reconciled("success", took);
      queue_->forget(*key);
    }
    queue_->done(*key);
  }
}

bool Manager::ready() const { return cache_->synced(); }

std::map<std::string, std::uint64_t> Manager::watchRestarts() const {
  std::map<std::string, std::uint64_t> out;
  for (const auto* group : {&cache_->runs, &cache_->podInformers, &cache_->jobInformers})
    for (const auto& informer : *group) out[informer->resource()] += informer->watchRestarts();
  std::lock_guard lock(cache_->ipuMu);
  for (const auto& informer : cache_->ipuJobInformers)
    out[informer->resource()] += informer->watchRestarts();
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
  if (housekeepingThread_.joinable()) housekeepingThread_.join();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  if (elector_) elector_->stop();
  if (electorThread_.joinable()) electorThread_.join();
  cache_->stop();
  metrics_.leader(false);
}

}  // namespace hetbench::controller
