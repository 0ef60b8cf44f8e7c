#include "hetbench/controller/reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "hetbench/benchmark/status_budget.h"
#include "hetbench/benchmark/suspend.h"
#include "hetbench/benchmark/system.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/json_fields.h"
#include "pass.h"

namespace hetbench::controller {
namespace detail {

namespace reason = benchmark::reason;
namespace condition = benchmark::condition;
using common::member;
using common::stringMember;

namespace {

std::string label(const json& object, std::string_view key) {
  return stringMember(member(member(object, "metadata"), "labels"), key);
}

bool rejectedAlready(const benchmark::Run& run) {
  return run.status.phase == "Failed" &&
         benchmark::conditionStatus(run.status.conditions, condition::kAccepted) == "False" &&
         run.status.observedGeneration == run.generation;
}

}  // namespace

bool ownedBy(const json& object, const std::string& uid) {
  const json& refs = member(member(object, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const json& ref) { return stringMember(ref, "uid") == uid; });
}

bool terminating(const json& object) {
  return !stringMember(member(object, "metadata"), "deletionTimestamp").empty();
}

Pass::Pass(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
           const ReconcilerOptions& options, logs::LogTracker* logs, json object)
    : client_(client),
      cache_(cache),
      clock_(clock),
      options_(options),
      logs_(logs),
      object_(std::move(object)),
      run_(benchmark::readRun(object_)),
      id_(benchmark::runId(run_.ref.uid)),
      now_(clock_.now()) {}

common::Result<ReconcileResult> Pass::execute() {
  if (run_.deleting) return finalize();
  HETBENCH_ASSIGN_OR_RETURN(std::optional<ReconcileResult> rejected, accept());
  if (rejected) return *rejected;
  const std::vector<benchmark::Unit> plan = benchmark::planUnits(accepted_.spec);
  const std::set<std::pair<std::int64_t, std::int64_t>> recordedEnds = [&] {
    std::set<std::pair<std::int64_t, std::int64_t>> out;
    for (const UnitRecord& u : run_.status.trials)
      if (benchmark::isTerminal(u.phase)) out.insert({u.trial, u.repetition});
    return out;
  }();
  std::vector<UnitRecord> units = mergePlan(plan);

  observe();
  for (UnitRecord& unit : units) HETBENCH_RETURN_IF_ERROR(advance(unit));
  HETBENCH_RETURN_IF_ERROR(startPending(units, plan));
  for (UnitRecord& unit : units) {
    HETBENCH_RETURN_IF_ERROR(cleanUp(unit, recordedEnds.contains({unit.trial, unit.repetition})));
  }
  HETBENCH_RETURN_IF_ERROR(applyRetention(units));

  benchmark::RunStatus status = buildStatus(units);
  noteSlurm(status);
  noteRegressions(run_.status, status);
  noteFinished(status);
  HETBENCH_RETURN_IF_ERROR(writeStatus(std::move(status)));
  return ReconcileResult{benchmark::requeueAfter(deadlines_, now_)};
}

common::Result<std::optional<ReconcileResult>> Pass::accept() {
  auto refuse = [&](const std::string& message) -> common::Result<std::optional<ReconcileResult>> {
    common::Result<ReconcileResult> done = reject(std::string(reason::kInvalidSpec), message);
    if (!done.isOk()) return done.status();
    return std::optional<ReconcileResult>(done.value());
  };
  const bool suspended = run_.suspended();
  json spec;
  std::optional<benchmark::AcceptedSystem> placedOn;
  if (!run_.acceptedSpecText.empty()) {
    spec = json::parse(run_.acceptedSpecText, nullptr, false);
    if (spec.is_discarded()) {
      return refuse("the annotation " + std::string(benchmark::kAcceptedSpecAnnotation) +
                    " is not JSON; it is the operator's record, do not edit it");
    }
    if (run_.status.observedGeneration.value_or(0) != run_.generation &&
        placedAsAccepted(benchmark::frozenSpec(run_.spec)) != spec) {
      event(EventType::kWarning, reason::kSpecImmutable,
            "the spec cannot change once the run is accepted (only suspend may); the change is "
            "ignored");
    }
  } else {
    // Rejected already: a new generation is looked at again.
    if (rejectedAlready(run_)) return std::optional<ReconcileResult>(ReconcileResult{});
    spec = benchmark::frozenSpec(run_.spec);
    const std::string systemName = stringMember(spec, "system");
    const SystemLookup found = systemName.empty() ? SystemLookup{} : cache_.system(systemName);
    if (found.state == SystemLookup::State::kSyncing) {
      // Accepted without the system, the run would never be placed on it.
      return std::optional<ReconcileResult>(ReconcileResult{std::chrono::seconds(1)});
    }
    if (found.state == SystemLookup::State::kFound) {
      const json& systemSpec = member(found.object, "spec");
      common::Result<benchmark::SystemSpec> system = benchmark::parseSystemSpec(systemSpec);
      if (!system.isOk()) {
        return refuse("BenchmarkSystem " + systemName +
                      " is not valid: " + benchmark::describeInvalid(system.status()));
      }
      common::Result<json> placed = benchmark::placeOnSystem(spec, systemName, *system);
      if (!placed.isOk()) return refuse(benchmark::describeInvalid(placed.status()));
      spec = std::move(placed).value();
      const json& meta = member(found.object, "metadata");
      placedOn = benchmark::AcceptedSystem{systemName, stringMember(meta, "uid"),
                                           common::intMember(meta, "generation"), systemSpec};
    }
  }
  common::Result<benchmark::AcceptedRun> validated = run_.acceptedSpecText.empty()
                                                         ? benchmark::validateRun(run_.ref, spec)
                                                         : benchmark::parseRun(spec);
  if (!validated.isOk()) {
    return refuse(benchmark::describeInvalid(validated.status()));
  }
  accepted_ = std::move(validated).value();
  accepted_.spec.suspend = suspended;

  if (run_.acceptedSpecText.empty()) {
    json annotations = member(member(object_, "metadata"), "annotations");
    if (placedOn) {
      if (!annotations.is_object()) annotations = json::object();
      annotations[std::string(benchmark::kAcceptedSystemAnnotation)] = toJson(*placedOn).dump();
    }
    if (std::optional<std::string> tooLarge =
            benchmark::acceptedSpecTooLarge(annotations, spec.dump())) {
      return refuse(*tooLarge);
    }
    HETBENCH_RETURN_IF_ERROR(ensureAccepted(spec, placedOn));
    const std::size_t units = benchmark::planUnits(accepted_.spec).size();
    event(EventType::kNormal, reason::kAccepted,
          "planned " +
              std::to_string(units / static_cast<std::size_t>(accepted_.spec.repetitions)) +
              " trial(s) x " + std::to_string(accepted_.spec.repetitions) + " repetition(s)" +
              (placedOn ? " on BenchmarkSystem " + placedOn->name : std::string()));
  } else if (!run_.hasFinalizer(benchmark::kFinalizer)) {
    HETBENCH_RETURN_IF_ERROR(ensureAccepted(spec, std::nullopt));
  }
  return std::optional<ReconcileResult>();
}

std::vector<UnitRecord> Pass::mergePlan(const std::vector<benchmark::Unit>& plan) const {
  std::map<std::pair<std::int64_t, std::int64_t>, const UnitRecord*> previous;
  for (const UnitRecord& record : run_.status.trials)
    previous[{record.trial, record.repetition}] = &record;
  std::vector<UnitRecord> units;
  units.reserve(plan.size());
  for (const benchmark::Unit& planned : plan) {
    auto it = previous.find({planned.trial, planned.repetition});
    if (it != previous.end()) {
      units.push_back(*it->second);
    } else {
      UnitRecord record;
      record.trial = planned.trial;
      record.repetition = planned.repetition;
      record.params = planned.params;
      units.push_back(std::move(record));
    }
  }
  return units;
}

common::Status Pass::startPending(std::vector<UnitRecord>& units,
                                  const std::vector<benchmark::Unit>& plan) {
  std::int64_t running = std::count_if(
      units.begin(), units.end(), [](const UnitRecord& u) { return benchmark::inFlight(u.phase); });
  for (std::size_t i = 0; i < units.size(); ++i) {
    UnitRecord& unit = units[i];
    if (unit.phase != UnitPhase::kPending) continue;
    if (std::optional<benchmark::UnitEnd> end =
            benchmark::checkSuspend(accepted_.spec.suspend, unit.phase)) {
      finish(unit, *end);
      continue;
    }
    if (running >= accepted_.spec.parallelism) continue;
    HETBENCH_RETURN_IF_ERROR(start(unit, plan[i]));
    if (benchmark::inFlight(unit.phase)) ++running;
  }
  return common::Status();
}

common::Status Pass::writeStatus(benchmark::RunStatus status) {
  const std::size_t bytes = benchmark::fitStatus(status, accepted_.required);
  if (bytes > benchmark::kMaxStatusBytes) {
    spdlog::warn("run {}/{}: its status takes {} bytes, over the {} it may", run_.ref.ns,
                 run_.ref.name, bytes, benchmark::kMaxStatusBytes);
  }
  if (status == run_.status) return common::Status();
  json updated = object_;
  updated["status"] = benchmark::toJson(status);
  common::Result<json> written = client_.updateStatus(kBenchmarkRuns, run_.ref.ns, updated);
  if (!written.isOk()) return written.status();
  object_ = std::move(written).value();
  run_.status = std::move(status);
  return common::Status();
}

common::Result<ReconcileResult> Pass::reject(const std::string& why, const std::string& message) {
  const bool already = rejectedAlready(run_);
  benchmark::RunStatus status = run_.status;
  status.phase = "Failed";
  status.observedGeneration = run_.generation;
  if (!status.completionTime) status.completionTime = now_;
  auto set = [&](std::string_view type, std::string_view value, std::string text) {
    benchmark::setCondition(status.conditions, type, value, why, std::move(text), now_,
                            run_.generation);
  };
  set(condition::kAccepted, "False", message);
  set(condition::kFailed, "True", message);
  set(condition::kRunning, "False", "");
  set(condition::kComplete, "False", "");
  HETBENCH_RETURN_IF_ERROR(writeStatus(std::move(status)));
  if (!already) {
    event(EventType::kWarning, why, message);
    finishedPhase_ = "Failed";
  }
  return ReconcileResult{};
}

json Pass::placedAsAccepted(json spec) const {
  auto it = run_.annotations.find(std::string(benchmark::kAcceptedSystemAnnotation));
  if (it == run_.annotations.end()) return spec;
  const std::optional<benchmark::AcceptedSystem> system =
      benchmark::acceptedSystemFromText(it->second);
  if (!system) return spec;
  common::Result<benchmark::SystemSpec> parsed = benchmark::parseSystemSpec(system->spec);
  if (!parsed.isOk()) return spec;
  common::Result<json> placed = benchmark::placeOnSystem(spec, system->name, *parsed);
  return placed.isOk() ? std::move(placed).value() : spec;
}

common::Status Pass::ensureAccepted(const json& accepted,
                                    const std::optional<benchmark::AcceptedSystem>& system) {
  json updated = object_;
  json& meta = updated["metadata"];
  if (!meta["annotations"].is_object()) meta["annotations"] = json::object();
  meta["annotations"][std::string(benchmark::kAcceptedSpecAnnotation)] = accepted.dump();
  if (system) {
    meta["annotations"][std::string(benchmark::kAcceptedSystemAnnotation)] = toJson(*system).dump();
  }
  if (!meta["finalizers"].is_array()) meta["finalizers"] = json::array();
  if (!run_.hasFinalizer(benchmark::kFinalizer))
    meta["finalizers"].push_back(std::string(benchmark::kFinalizer));
  common::Result<json> written = client_.update(kBenchmarkRuns, run_.ref.ns, updated);
  if (!written.isOk()) return written.status();
  object_ = std::move(written).value();
  const benchmark::RunStatus status = std::move(run_.status);
  run_ = benchmark::readRun(object_);
  run_.status = status;
  return common::Status();
}

common::Result<ReconcileResult> Pass::finalize() {
  if (!run_.hasFinalizer(benchmark::kFinalizer)) return ReconcileResult{};
  if (logs_ != nullptr) logs_->forgetRun(run_.ref.ns, run_.ref.name);
  observe();
  for (const auto& [name, job] : jobs_)
    if (!terminating(job)) HETBENCH_RETURN_IF_ERROR(removeWorkload(WorkloadKind::kJob, name));
  for (const auto& [name, ipuJob] : ipuJobs_)
    if (!terminating(ipuJob)) HETBENCH_RETURN_IF_ERROR(removeWorkload(WorkloadKind::kIpuJob, name));
  HETBENCH_RETURN_IF_ERROR(cancelSlurmJobs());
  for (const json& pod : pods_) {
    // Pods that Jobs and IPUJobs own go with them.
    if (!terminating(pod) && ownedBy(pod, run_.ref.uid)) {
      HETBENCH_RETURN_IF_ERROR(
          removeWorkload(WorkloadKind::kPod, stringMember(pod["metadata"], "name")));
    }
  }
  json updated = object_;
  json& list = updated["metadata"]["finalizers"];
  list.erase(std::remove(list.begin(), list.end(), json(std::string(benchmark::kFinalizer))),
             list.end());
  common::Result<json> written = client_.update(kBenchmarkRuns, run_.ref.ns, updated);
  if (!written.isOk() && !written.status().isNotFound()) return written.status();
  return ReconcileResult{};
}

void Pass::observe() {
  auto ours = [&](const json& object) {
    return label(object, benchmark::kIdLabel) == id_ && ownedBy(object, run_.ref.uid);
  };
  for (json& pod : cache_.pods(run_.ref.ns, run_.ref.name)) {
    if (label(pod, benchmark::kIdLabel) != id_) continue;
    if (ownedBy(pod, run_.ref.uid)) podsByName_[stringMember(pod["metadata"], "name")] = pod;
    pods_.push_back(std::move(pod));
  }
  for (json& job : cache_.jobs(run_.ref.ns, run_.ref.name)) {
    if (!ours(job)) continue;
    std::string name = stringMember(job["metadata"], "name");
    jobs_.emplace(std::move(name), std::move(job));
  }
  for (json& ipuJob : cache_.ipuJobs(run_.ref.ns, run_.ref.name)) {
    if (!ours(ipuJob)) continue;
    std::string name = stringMember(ipuJob["metadata"], "name");
    ipuJobs_.emplace(std::move(name), std::move(ipuJob));
  }
}

std::vector<json> Pass::podsOf(const UnitRecord& unit) const {
  std::vector<json> out;
  const std::string trial = std::to_string(unit.trial);
  const std::string repetition = std::to_string(unit.repetition);
  for (const json& pod : pods_) {
    if (label(pod, benchmark::kTrialLabel) == trial &&
        label(pod, benchmark::kRepetitionLabel) == repetition) {
      out.push_back(pod);
    }
  }
  return out;
}

common::Result<std::vector<json>> Pass::livePodsOf(const UnitRecord& unit) const {
  kube::ListOptions options;
  options.labelSelector = std::string(benchmark::kRunLabel) + "=" + run_.ref.name + "," +
                          std::string(benchmark::kTrialLabel) + "=" + std::to_string(unit.trial) +
                          "," + std::string(benchmark::kRepetitionLabel) + "=" +
                          std::to_string(unit.repetition);
  HETBENCH_ASSIGN_OR_RETURN(kube::ListResult listed,
                            client_.list(kube::resources::kPods, run_.ref.ns, options));
  return std::move(listed.items);
}

std::vector<std::string> Pass::nodesOf(const UnitRecord& unit) const {
  std::set<std::string> nodes;
  for (const json& pod : podsOf(unit)) {
    const std::string node = stringMember(member(pod, "spec"), "nodeName");
    if (!node.empty()) nodes.insert(node);
  }
  return {nodes.begin(), nodes.end()};
}

logs::PodLogs Pass::collectLogs(const UnitRecord& unit) {
  logs::PodLogs all{true, ""};
  if (logs_ == nullptr) return all;
  for (const json& pod : podsOf(unit)) {
    logs_->track(pod, logDirOf(unit));
    const logs::PodLogs one = logs_->logsOf(pod);
    all.ended = all.ended && one.ended;
    if (all.incomplete.empty()) all.incomplete = one.incomplete;
  }
  return all;
}

void Pass::awaitLogs(const UnitRecord& unit) {
  deadlines_.note(now_ + benchmark::kLogRecheck);
  if (logs_ == nullptr || !benchmark::logsOverdue(unit.completionTime.value_or(now_), now_)) return;
  const std::string why = "the stream had not ended " +
                          common::formatDuration(benchmark::kLogGrace) + " after the unit ended";
  for (const json& pod : podsOf(unit)) logs_->abandon(pod, why);
}

void Pass::noteFinished(const benchmark::RunStatus& status) {
  const std::string& phase = status.phase;
  if (phase == run_.status.phase ||
      (phase != "Succeeded" && phase != "Failed" && phase != "Cancelled")) {
    return;
  }
  finishedPhase_ = phase;
  if (phase == "Succeeded") {
    event(EventType::kNormal, reason::kRunSucceeded, "all " + status.progress + " units succeeded");
  } else if (phase == "Failed") {
    auto failed = std::find_if(status.trials.begin(), status.trials.end(),
                               [](const UnitRecord& u) { return benchmark::isFailure(u.phase); });
    std::string first;
    if (failed != status.trials.end()) {
      first = unitLabel(*failed) + " " + benchmark::toString(failed->phase) + ": " +
              failed->reason + (failed->message.empty() ? "" : " (" + failed->message + ")");
    }
    event(EventType::kWarning, reason::kRunFailed, "the run failed: " + first);
  } else {
    event(EventType::kNormal, reason::kRunCancelled, "the run was suspended");
  }
}

}  // namespace detail

using benchmark::WorkloadKind;
using detail::Pass;
using nlohmann::json;

const kube::GroupVersionResource& resourceOf(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kPod:
      return kube::resources::kPods;
    case WorkloadKind::kJob:
      return kube::resources::kJobs;
    case WorkloadKind::kIpuJob:
      return kIpuJobs;
  }
  return kube::resources::kPods;
}

Reconciler::Reconciler(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
                       kube::EventRecorder& events, ReconcilerOptions options,
                       logs::LogTracker* logs, ReconcileObserver observer)
    : client_(client),
      cache_(cache),
      clock_(clock),
      events_(events),
      options_(std::move(options)),
      logs_(logs),
      observer_(std::move(observer)) {}

common::Result<ReconcileResult> Reconciler::reconcile(const std::string& ns,
                                                      const std::string& name) {
  std::optional<json> cached = cache_.run(ns, name);
  if (!cached) return ReconcileResult{};
  return detail::runPasses(
      client_, kBenchmarkRuns, ns, name, std::move(*cached), options_.statusAttempts, events_,
      [&](json object) {
        return Pass(client_, cache_, clock_, options_, logs_, std::move(object));
      },
      [&](const Pass& pass) {
        if (!pass.finishedPhase().empty() && observer_.runFinished)
          observer_.runFinished(pass.finishedPhase());
      });
}

}  // namespace hetbench::controller
