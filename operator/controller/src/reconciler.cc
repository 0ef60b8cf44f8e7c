#include "hetbench/controller/reconciler.h"

#include <spdlog/spdlog.h>

#include "pass.h"

namespace hetbench::controller {
namespace detail {

common::Result<ReconcileResult> Pass::execute() {
  if (terminating(run_)) return finalize();

  const json& annotations = member(run_["metadata"], "annotations");
  const std::string acceptedText =
      stringMember(annotations, std::string(benchmark::kAcceptedSpecAnnotation).c_str());
  const json& currentSpec = member(run_, "spec");
  const json& status = member(run_, "status");
  suspend_ = member(currentSpec, "suspend").is_boolean() && currentSpec["suspend"].get<bool>();

  json accepted;
  if (!acceptedText.empty()) {
    accepted = json::parse(acceptedText, nullptr, false);
    if (accepted.is_discarded()) {
      return reject("InvalidSpec", "the annotation " +
                                       std::string(benchmark::kAcceptedSpecAnnotation) +
                                       " is not JSON; it is the operator's record, do not edit it");
    }
    const std::int64_t observed = member(status, "observedGeneration").is_number_integer()
                                      ? status["observedGeneration"].get<std::int64_t>()
                                      : 0;
    if (observed != generation_ && frozenSpec(currentSpec) != accepted) {
      event(EventType::kWarning, "SpecImmutable",
            "the spec cannot change once the run is accepted (only suspend may); the change is "
            "ignored");
    }
  } else {
    if (stringMember(status, "phase") == "Failed" &&
        conditionStatus(status, "Accepted") == "False" &&
        member(status, "observedGeneration") == json(generation_)) {
      return ReconcileResult{};  // rejected already; a new generation is looked at again
    }
    accepted = frozenSpec(currentSpec);
  }

  if (ref_.name.size() > 63) {
    return reject("InvalidSpec",
                  "metadata.name: must be no more than 63 characters (it labels the run's "
                  "workloads)");
  }
  common::Result<benchmark::RunSpec> parsed = benchmark::parseRunSpec(accepted);
  if (!parsed.isOk()) return reject("InvalidSpec", describeInvalid(parsed.status()));
  spec_ = std::move(parsed).value();
  spec_.suspend = suspend_;
  common::Result<std::vector<results::MetricSpec>> metricSpecs =
      results::parseMetricSpecs(spec_.metrics);
  if (!metricSpecs.isOk()) return reject("InvalidSpec", describeInvalid(metricSpecs.status()));
  metricSpecs_ = std::move(metricSpecs).value();
  common::Result<results::References> references =
      results::parseReferences(spec_.references, results::metricUnits(metricSpecs_));
  if (!references.isOk()) return reject("InvalidSpec", describeInvalid(references.status()));
  references_ = std::move(references).value();
  required_ = requiredMetrics(spec_, metricSpecs_, references_);
  const std::vector<benchmark::Unit> plan = benchmark::planUnits(spec_);

  if (acceptedText.empty()) {
    for (const benchmark::Unit& unit : plan) {
      common::Result<benchmark::RenderedUnit> rendered = benchmark::renderUnit(ref_, spec_, unit);
      if (!rendered.isOk()) {
        return reject("InvalidSpec", "trial " + std::to_string(unit.trial) + ": " +
                                         describeInvalid(rendered.status()));
      }
    }
    HETBENCH_RETURN_IF_ERROR(ensureAccepted(accepted));
    event(EventType::kNormal, "Accepted",
          "planned " + std::to_string(plan.size() / static_cast<std::size_t>(spec_.repetitions)) +
              " trial(s) x " + std::to_string(spec_.repetitions) + " repetition(s)");
  } else if (!std::count(member(run_["metadata"], "finalizers").begin(),
                         member(run_["metadata"], "finalizers").end(),
                         json(std::string(benchmark::kFinalizer)))) {
    HETBENCH_RETURN_IF_ERROR(ensureAccepted(accepted));
  }

  std::map<std::pair<std::int64_t, std::int64_t>, UnitRecord> previous;
  std::set<std::pair<std::int64_t, std::int64_t>> recordedEnds;
  if (const json& trials = member(status, "trials"); trials.is_array()) {
    for (const json& t : trials) {
      UnitRecord record = unitFromJson(t);
      if (isTerminal(record.phase)) recordedEnds.insert({record.trial, record.repetition});
      previous[{record.trial, record.repetition}] = std::move(record);
    }
  }
  std::vector<UnitRecord> units;
  units.reserve(plan.size());
  for (const benchmark::Unit& planned : plan) {
    auto it = previous.find({planned.trial, planned.repetition});
    if (it != previous.end()) {
      units.push_back(std::move(it->second));
    } else {
      UnitRecord record;
      record.trial = planned.trial;
      record.repetition = planned.repetition;
      record.params = planned.params;
      units.push_back(std::move(record));
    }
  }

  observe();
  for (UnitRecord& unit : units) HETBENCH_RETURN_IF_ERROR(advance(unit));

  std::int64_t running = std::count_if(units.begin(), units.end(), [](const UnitRecord& u) {
    return u.phase == UnitPhase::kRunning;
  });
  for (std::size_t i = 0; i < units.size(); ++i) {
    UnitRecord& unit = units[i];
    if (unit.phase != UnitPhase::kPending) continue;
    if (suspend_) {
      finish(unit, UnitPhase::kCancelled, "Suspended", "the run was suspended before it started");
      continue;
    }
    if (running >= spec_.parallelism) continue;
    HETBENCH_RETURN_IF_ERROR(start(unit, plan[i]));
    if (unit.phase == UnitPhase::kRunning) ++running;
  }

  for (UnitRecord& unit : units) {
    HETBENCH_RETURN_IF_ERROR(cleanUp(unit, recordedEnds.contains({unit.trial, unit.repetition})));
  }
  HETBENCH_RETURN_IF_ERROR(applyRetention(units));

  json newStatus = buildStatus(units);
  noteRegressions(status, newStatus);
  const std::string oldPhase = stringMember(status, "phase");
  const std::string newPhase = stringMember(newStatus, "phase");
  if (newPhase != oldPhase &&
      (newPhase == "Succeeded" || newPhase == "Failed" || newPhase == "Cancelled")) {
    finishedPhase_ = newPhase;
    const std::string done = stringMember(newStatus, "progress");
    if (newPhase == "Succeeded") {
      event(EventType::kNormal, "RunSucceeded", "all " + done + " units succeeded");
    } else if (newPhase == "Failed") {
      event(EventType::kWarning, "RunFailed", "the run failed: " + firstFailure(units));
    } else {
      event(EventType::kNormal, "RunCancelled", "the run was suspended");
    }
  }
  if (newStatus != status) {
    json updated = run_;
    updated["status"] = std::move(newStatus);
    common::Result<json> written = client_.updateStatus(kBenchmarkRuns, ref_.ns, updated);
    if (!written.isOk()) return written.status();
    run_ = std::move(written).value();
  }

  ReconcileResult result;
  if (nextDeadline_) {
    result.requeueAfter = std::max<std::chrono::nanoseconds>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(*nextDeadline_ - now_),
        std::chrono::milliseconds(100));
  }
  return result;
}

common::Result<ReconcileResult> Pass::reject(const std::string& reason,
                                             const std::string& message) {
  json status = member(run_, "status").is_object() ? run_["status"] : json::object();
  const bool already = stringMember(status, "phase") == "Failed" &&
                       conditionStatus(status, "Accepted") == "False" &&
                       member(status, "observedGeneration") == json(generation_);
  status["phase"] = "Failed";
  status["observedGeneration"] = generation_;
  if (!status.contains("completionTime")) status["completionTime"] = common::formatRfc3339(now_);
  setCondition(status, "Accepted", "False", reason, message, now_, generation_);
  setCondition(status, "Failed", "True", reason, message, now_, generation_);
  setCondition(status, "Running", "False", reason, "", now_, generation_);
  setCondition(status, "Complete", "False", reason, "", now_, generation_);
  if (status != member(run_, "status")) {
    json updated = run_;
    updated["status"] = std::move(status);
    common::Result<json> written = client_.updateStatus(kBenchmarkRuns, ref_.ns, updated);
    if (!written.isOk()) return written.status();
    run_ = std::move(written).value();
  }
  if (!already) {
    event(EventType::kWarning, reason, message);
    finishedPhase_ = "Failed";
  }
  return ReconcileResult{};
}

common::Status Pass::ensureAccepted(const json& accepted) {
  json updated = run_;
  json& meta = updated["metadata"];
  if (!meta["annotations"].is_object()) meta["annotations"] = json::object();
  meta["annotations"][std::string(benchmark::kAcceptedSpecAnnotation)] = accepted.dump();
  if (!meta["finalizers"].is_array()) meta["finalizers"] = json::array();
  const json finalizer = std::string(benchmark::kFinalizer);
  if (std::find(meta["finalizers"].begin(), meta["finalizers"].end(), finalizer) ==
      meta["finalizers"].end()) {
    meta["finalizers"].push_back(finalizer);
  }
  common::Result<json> written = client_.update(kBenchmarkRuns, ref_.ns, updated);
  if (!written.isOk()) return written.status();
  run_ = std::move(written).value();
  return common::Status();
}

common::Result<ReconcileResult> Pass::finalize() {
  json finalizers = member(run_["metadata"], "finalizers");
  const json ours = std::string(benchmark::kFinalizer);
  if (!finalizers.is_array() ||
      std::find(finalizers.begin(), finalizers.end(), ours) == finalizers.end()) {
    return ReconcileResult{};
  }
  if (logs_ != nullptr) logs_->forgetRun(ref_.ns, ref_.name);
  observe();
  for (const auto& [name, job] : jobs_)
    if (!terminating(job)) HETBENCH_RETURN_IF_ERROR(removeWorkload(WorkloadKind::kJob, name));
  for (const auto& [name, ipuJob] : ipuJobs_)
    if (!terminating(ipuJob)) HETBENCH_RETURN_IF_ERROR(removeWorkload(WorkloadKind::kIpuJob, name));
  for (const json& pod : pods_) {
    // Pods that Jobs and IPUJobs own go with them.
    if (!terminating(pod) && ownedBy(pod, ref_.uid)) {
      HETBENCH_RETURN_IF_ERROR(
          removeWorkload(WorkloadKind::kPod, stringMember(pod["metadata"], "name")));
    }
  }
  json updated = run_;
  json& list = updated["metadata"]["finalizers"];
  list.erase(std::remove(list.begin(), list.end(), ours), list.end());
  common::Result<json> written = client_.update(kBenchmarkRuns, ref_.ns, updated);
  if (!written.isOk() && !written.status().isNotFound()) return written.status();
  return ReconcileResult{};
}

void Pass::observe() {
  auto ours = [&](const json& object) {
    return label(object, benchmark::kIdLabel) == id_ && ownedBy(object, ref_.uid);
  };
  for (json& pod : cache_.pods(ref_.ns, ref_.name)) {
    if (label(pod, benchmark::kIdLabel) != id_) continue;
    if (ownedBy(pod, ref_.uid)) podsByName_[stringMember(pod["metadata"], "name")] = pod;
    pods_.push_back(std::move(pod));
  }
  for (json& job : cache_.jobs(ref_.ns, ref_.name)) {
    if (!ours(job)) continue;
    std::string name = stringMember(job["metadata"], "name");
    jobs_.emplace(std::move(name), std::move(job));
  }
  for (json& ipuJob : cache_.ipuJobs(ref_.ns, ref_.name)) {
    if (!ours(ipuJob)) continue;
    std::string name = stringMember(ipuJob["metadata"], "name");
    ipuJobs_.emplace(std::move(name), std::move(ipuJob));
  }
}

const json* Pass::workloadOf(const UnitRecord& unit) const {
  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  if (!kind || unit.workloadName.empty()) return nullptr;
  const std::map<std::string, json>& objects = *kind == WorkloadKind::kPod   ? podsByName_
                                               : *kind == WorkloadKind::kJob ? jobs_
                                                                             : ipuJobs_;
  auto it = objects.find(unit.workloadName);
  return it == objects.end() ? nullptr : &it->second;
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

bool Pass::collectLogs(const UnitRecord& unit) {
  if (logs_ == nullptr) return true;
  bool complete = true;
  for (const json& pod : podsOf(unit)) {
    logs_->track(pod, unit.logDir.empty() ? logDirOf(unit) : unit.logDir);
    if (!logs_->complete(pod)) complete = false;
  }
  return complete;
}

std::vector<std::string> Pass::nodesOf(const UnitRecord& unit) const {
  std::set<std::string> nodes;
  for (const json& pod : podsOf(unit)) {
    const std::string node = stringMember(member(pod, "spec"), "nodeName");
    if (!node.empty()) nodes.insert(node);
  }
  return {nodes.begin(), nodes.end()};
}

void Pass::finish(UnitRecord& unit, UnitPhase phase, std::string reason, std::string message) {
  unit.phase = phase;
  unit.reason = std::move(reason);
  unit.message = std::move(message);
  unit.completionTime = now_;
  const std::string who = unitLabel(unit);
  switch (phase) {
    case UnitPhase::kSucceeded:
      event(EventType::kNormal, "TrialSucceeded", who + " succeeded");
      break;
    case UnitPhase::kCancelled:
      event(EventType::kNormal, "TrialCancelled", who + " cancelled: " + unit.message);
      break;
    default:
      event(EventType::kWarning,
            unit.phase == UnitPhase::kTimedOut ? "TrialTimedOut" : "TrialFailed",
            who + " " + toString(phase) + " (" + unit.reason + "): " + unit.message);
      break;
  }
}

}  // namespace detail

using benchmark::WorkloadKind;
using detail::Pass;
using detail::PendingEvent;
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
  json run = std::move(*cached);
  for (int attempt = 1;; ++attempt) {
    Pass pass(client_, cache_, clock_, options_, logs_, run);
    common::Result<ReconcileResult> result = pass.execute();
    if (result.isOk()) {
      for (const PendingEvent& e : pass.events())
        events_.event(pass.run(), e.type, e.reason, e.message);
      if (!pass.finishedPhase().empty() && observer_.runFinished)
        observer_.runFinished(pass.finishedPhase());
      return result;
    }
    if (!result.status().isConflict() || attempt >= options_.statusAttempts) return result;
    // The cache was behind: redo the pass from the object as the API server has it now.
    common::Result<json> fresh = client_.get(kBenchmarkRuns, ns, name);
    if (fresh.status().isNotFound()) return ReconcileResult{};
    if (!fresh.isOk()) return fresh.status();
    run = std::move(fresh).value();
  }
}

}  // namespace hetbench::controller
