#include "hetbench/controller/reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "hetbench/benchmark/completion.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/retention.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/controller/measure.h"
#include "hetbench/logs/collector.h"

namespace hetbench::controller {
namespace {

using benchmark::WorkloadKind;
using common::member;
using common::stringMember;
using kube::EventType;
using nlohmann::json;

constexpr std::size_t kMaxCausesInMessage = 5;

std::string label(const json& object, std::string_view key) {
  return stringMember(member(member(object, "metadata"), "labels"), std::string(key).c_str());
}

bool terminating(const json& object) {
  return !stringMember(member(object, "metadata"), "deletionTimestamp").empty();
}

bool ownedBy(const json& object, const std::string& uid) {
  const json& refs = member(member(object, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const json& ref) { return stringMember(ref, "uid") == uid; });
}

std::optional<common::WallTime> creationTime(const json& object) {
  common::Result<common::WallTime> t =
      common::parseRfc3339(stringMember(member(object, "metadata"), "creationTimestamp"));
  if (!t.isOk()) return std::nullopt;
  return t.value();
}

std::optional<WorkloadKind> kindFromName(const std::string& kind) {
  if (kind == "Pod") return WorkloadKind::kPod;
  if (kind == "Job") return WorkloadKind::kJob;
  if (kind == "IPUJob") return WorkloadKind::kIpuJob;
  return std::nullopt;
}

/// Neither ended by itself nor stopped (a suspended Job is stopped).
bool stillRuns(WorkloadKind kind, const json& object) {
  const benchmark::WorkloadState::Phase phase = benchmark::workloadState(kind, object).phase;
  if (phase == benchmark::WorkloadState::Phase::kSucceeded ||
      phase == benchmark::WorkloadState::Phase::kFailed) {
    return false;
  }
  return !(kind == WorkloadKind::kJob && member(member(object, "spec"), "suspend") == json(true));
}

std::string describeParams(const benchmark::Params& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out += ", ";
    out += key + "=" + value;
  }
  return out;
}

std::string unitLabel(const UnitRecord& unit) {
  std::string out =
      "trial " + std::to_string(unit.trial) + " repetition " + std::to_string(unit.repetition);
  if (!unit.params.empty()) out += " (" + describeParams(unit.params) + ")";
  return out;
}

/// "trial 1 repetition 0 (gpus=4) Failed: Unschedulable (message)" for the first failed unit.
std::string firstFailure(const std::vector<UnitRecord>& units) {
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return isFailure(u.phase); });
  if (failed == units.end()) return "";
  return unitLabel(*failed) + " " + toString(failed->phase) + ": " + failed->reason +
         (failed->message.empty() ? "" : " (" + failed->message + ")");
}

/// "spec.x: msg; spec.y: msg" from an Invalid status, bounded.
std::string describeInvalid(const common::Status& status) {
  if (status.causes().empty()) return status.message();
  std::string out;
  std::size_t shown = 0;
  for (const common::StatusCause& cause : status.causes()) {
    if (shown == kMaxCausesInMessage) {
      out += "; and " + std::to_string(status.causes().size() - shown) + " more";
      break;
    }
    if (!out.empty()) out += "; ";
    out += cause.field.empty() ? cause.message : cause.field + ": " + cause.message;
    ++shown;
  }
  return out;
}

/// The spec without `suspend`: what must not change once the run is accepted.
json frozenSpec(json spec) {
  if (spec.is_object()) spec.erase("suspend");
  return spec;
}

bool writeFileAtomically(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return false;
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return false;
  }
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

/// The metrics a unit must report: the required spec.metrics, every metric with a reference
/// and, for hetbench's own benchmarks read without patterns, the effective throughput.
std::vector<std::string> requiredMetrics(const benchmark::RunSpec& spec,
                                         const std::vector<results::MetricSpec>& specs,
                                         const results::References& references) {
  std::vector<std::string> out = results::requiredMetrics(specs);
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& [name, reference] : references) add(name);
  if (spec.benchmark != benchmark::Benchmark::kCustom && specs.empty())
    add(std::string(results::kEffectiveThroughput));
  return out;
}

struct PendingEvent {
  EventType type;
  std::string reason;
  std::string message;
};

/// One reconcile of one run: the observed state, the decisions and the status to write.
class Pass {
 public:
  Pass(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
       const ReconcilerOptions& options, logs::LogTracker* logs, json run)
      : client_(client),
        cache_(cache),
        clock_(clock),
        options_(options),
        logs_(logs),
        run_(std::move(run)) {
    const json& meta = run_["metadata"];
    ref_ = {stringMember(meta, "namespace"), stringMember(meta, "name"), stringMember(meta, "uid")};
    id_ = benchmark::runId(ref_.uid);
    generation_ = meta.value("generation", json(0)).is_number_integer()
                      ? meta["generation"].get<std::int64_t>()
                      : 0;
    now_ = clock_.now();
  }

  common::Result<ReconcileResult> execute();
  const std::vector<PendingEvent>& events() const { return events_; }
  const json& run() const { return run_; }
  std::string finishedPhase() const { return finishedPhase_; }

 private:
  common::Result<ReconcileResult> finalize();
  common::Result<ReconcileResult> reject(const std::string& reason, const std::string& message);
  common::Status ensureAccepted(const json& accepted);
  void observe();
  const json* workloadOf(const UnitRecord& unit) const;
  common::Status advance(UnitRecord& unit);
  common::Status start(UnitRecord& unit, const benchmark::Unit& planned);
  common::Status stop(UnitRecord& unit, bool failure);
  common::Status cleanUp(UnitRecord& unit, bool endRecorded);
  common::Status applyRetention(std::vector<UnitRecord>& units);
  common::Status removeWorkload(WorkloadKind kind, const std::string& name);
  void finish(UnitRecord& unit, UnitPhase phase, std::string reason, std::string message);
  std::vector<std::string> nodesOf(const UnitRecord& unit) const;
  std::vector<json> podsOf(const UnitRecord& unit) const;
  /// Follows the logs of the unit's pods; true once all of them are complete on disk.
  bool collectLogs(const UnitRecord& unit);
  std::string logDirOf(const UnitRecord& unit) const {
    return ref_.ns + "/" + ref_.name + "/" + std::to_string(unit.trial) + "-" +
           std::to_string(unit.repetition);
  }
  /// Reads a succeeded unit's metrics from its kept logs; a malformed metrics line or a
  /// required metric the logs lack fails the unit.
  void measure(UnitRecord& unit);
  /// A Warning Event for each trial whose verdict has just become Regressed.
  void noteRegressions(const json& oldStatus, json& newStatus);
  /// status.results (per judged trial), status.verdict, latestEffectiveThroughput, Regressed.
  void addResults(json& status, const std::vector<UnitRecord>& units) const;
  json buildStatus(const std::vector<UnitRecord>& units) const;
  void event(EventType type, std::string reason, std::string message) {
    events_.push_back({type, std::move(reason), std::move(message)});
  }

  kube::KubeClient& client_;
  const RunCache& cache_;
  const common::Clock& clock_;
  const ReconcilerOptions& options_;
  logs::LogTracker* logs_;
  json run_;
  benchmark::RunRef ref_;
  std::string id_;
  std::int64_t generation_ = 0;
  common::WallTime now_;
  benchmark::RunSpec spec_;
  std::vector<results::MetricSpec> metricSpecs_;
  results::References references_;
  std::vector<std::string> required_;
  bool suspend_ = false;
  std::vector<json> pods_;
  std::map<std::string, json> jobs_;
  std::map<std::string, json> ipuJobs_;
  std::map<std::string, json> podsByName_;
  std::optional<common::WallTime> nextDeadline_;
  std::vector<PendingEvent> events_;
  std::string finishedPhase_;
};

void noteDeadline(std::optional<common::WallTime>& next, common::WallTime at) {
  if (!next || at < *next) next = at;
}

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

common::Status Pass::advance(UnitRecord& unit) {
  if (unit.phase == UnitPhase::kPending) {
    // A workload created by an earlier pass whose status write did not land: adopt it.
    const std::string name = benchmark::unitName(ref_, {unit.trial, unit.repetition, unit.params});
    const json* found = nullptr;
    std::string kind;
    if (auto it = podsByName_.find(name); it != podsByName_.end()) {
      found = &it->second;
      kind = "Pod";
    } else if (auto j = jobs_.find(name); j != jobs_.end()) {
      found = &j->second;
      kind = "Job";
    } else if (auto i = ipuJobs_.find(name); i != ipuJobs_.end()) {
      found = &i->second;
      kind = "IPUJob";
    }
    if (found == nullptr) return common::Status();
    unit.phase = UnitPhase::kRunning;
    unit.workloadApiVersion = stringMember(*found, "apiVersion");
    unit.workloadKind = kind;
    unit.workloadName = name;
    unit.startTime = creationTime(*found).value_or(now_);
    unit.logDir = logDirOf(unit);
  }
  if (unit.phase != UnitPhase::kRunning) return common::Status();

  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  if (!kind) {
    finish(unit, UnitPhase::kFailed, "UnknownWorkload",
           "status names a workload of kind \"" + unit.workloadKind + "\"");
    return common::Status();
  }
  json object;
  if (const json* cached = workloadOf(unit)) {
    object = *cached;
  } else {
    // The cache may lag behind a create of this or an earlier pass: ask the API server.
    common::Result<json> got = client_.get(resourceOf(*kind), ref_.ns, unit.workloadName);
    if (got.status().isNotFound()) {
      finish(unit, UnitPhase::kFailed, "WorkloadDeleted",
             unit.workloadKind + " " + unit.workloadName + " was deleted before it finished");
      return common::Status();
    }
    if (!got.isOk()) return got.status();
    object = std::move(got).value();
    if (*kind == WorkloadKind::kPod) podsByName_[unit.workloadName] = object;
    if (*kind == WorkloadKind::kJob) jobs_[unit.workloadName] = object;
    if (*kind == WorkloadKind::kIpuJob) ipuJobs_[unit.workloadName] = object;
  }
  if (std::vector<std::string> nodes = nodesOf(unit); !nodes.empty()) unit.nodes = nodes;
  collectLogs(unit);

  const benchmark::WorkloadState state = benchmark::workloadState(*kind, object);
  if (state.phase == benchmark::WorkloadState::Phase::kSucceeded) {
    finish(unit, UnitPhase::kSucceeded, state.reason.empty() ? "Completed" : state.reason,
           state.message);
    return common::Status();
  }
  if (state.phase == benchmark::WorkloadState::Phase::kFailed) {
    finish(unit, UnitPhase::kFailed, state.reason.empty() ? "Failed" : state.reason, state.message);
    return common::Status();
  }
  // Deleted by someone else, or by a pass that recorded the unit's end in a status this cache
  // has not caught up with yet.
  if (terminating(object)) return common::Status();

  const common::WallTime started = unit.startTime.value_or(now_);
  if (suspend_) {
    finish(unit, UnitPhase::kCancelled, "Suspended",
           "the run was suspended; its workload was stopped");
    return common::Status();
  }
  const common::WallTime limit = started + spec_.timeLimit;
  if (now_ >= limit) {
    finish(unit, UnitPhase::kTimedOut, "TimeLimitExceeded",
           "ran longer than timeLimit " + common::formatDuration(spec_.timeLimit) +
               "; its workload was stopped");
    return common::Status();
  }
  noteDeadline(nextDeadline_, limit);

  const std::int64_t expected = [&]() -> std::int64_t {
    common::Result<benchmark::RenderedUnit> rendered =
        benchmark::renderUnit(ref_, spec_, {unit.trial, unit.repetition, unit.params});
    return rendered.isOk() ? rendered.value().expectedPods : 1;
  }();
  const benchmark::StartCheck check = benchmark::startCheck(podsOf(unit), expected);
  if (!check.started) {
    const common::WallTime deadline = started + spec_.startTimeout;
    if (now_ >= deadline) {
      finish(unit, UnitPhase::kFailed, check.reason.empty() ? "StartTimeout" : check.reason,
             "not started within startTimeout " + common::formatDuration(spec_.startTimeout) +
                 (check.message.empty() ? "" : ": " + check.message));
      return common::Status();
    }
    noteDeadline(nextDeadline_, deadline);
  }
  return common::Status();
}

common::Status Pass::start(UnitRecord& unit, const benchmark::Unit& planned) {
  common::Result<benchmark::RenderedUnit> rendered = benchmark::renderUnit(ref_, spec_, planned);
  if (!rendered.isOk()) {
    finish(unit, UnitPhase::kFailed, "InvalidWorkload", describeInvalid(rendered.status()));
    return common::Status();
  }
  const benchmark::RenderedUnit& r = rendered.value();
  unit.logDir = logDirOf(unit);
  if (!options_.logDir.empty()) {
    const std::filesystem::path path = options_.logDir / unit.logDir / "manifest.json";
    json manifest = json::array({r.workload});
    if (r.service) manifest.push_back(*r.service);
    if (!writeFileAtomically(path, manifest.dump(2) + "\n")) {
      spdlog::warn("cannot write {}; the unit runs without its manifest record", path.string());
    }
  }

  const kube::GroupVersionResource& gvr = resourceOf(r.kind);
  common::Result<json> created = client_.create(gvr, ref_.ns, r.workload);
  json object;
  if (created.isOk()) {
    object = std::move(created).value();
    event(EventType::kNormal, "Created",
          "created " + toString(r.kind) + " " + r.name + " for " + unitLabel(unit));
  } else if (created.status().isAlreadyExists()) {
    common::Result<json> got = client_.get(gvr, ref_.ns, r.name);
    if (!got.isOk()) return got.status();
    object = std::move(got).value();
    if (!ownedBy(object, ref_.uid)) {
      finish(unit, UnitPhase::kFailed, "NameConflict",
             toString(r.kind) + " " + r.name + " exists and does not belong to this run");
      return common::Status();
    }
  } else if (created.status().isNotFound()) {
    finish(unit, UnitPhase::kFailed, "ResourceNotServed",
           "the cluster does not serve " + gvr.apiVersion() + " " + toString(r.kind) + ": " +
               created.status().message());
    return common::Status();
  } else if (created.status().isInvalid() || created.status().isInternal()) {
    finish(unit, UnitPhase::kFailed, "CreateFailed",
           "the API server refused " + toString(r.kind) + " " + r.name + ": " +
               describeInvalid(created.status()));
    return common::Status();
  } else {
    return created.status();
  }

  if (r.service) {
    // The Service belongs to the Job, so whatever deletes the Job deletes the Service too.
    json service = *r.service;
    service["metadata"]["ownerReferences"] =
        json::array({{{"apiVersion", stringMember(object, "apiVersion")},
                      {"kind", stringMember(object, "kind")},
                      {"name", r.name},
                      {"uid", stringMember(object["metadata"], "uid")},
                      {"blockOwnerDeletion", true}}});
    common::Result<json> svc = client_.create(kube::resources::kServices, ref_.ns, service);
    if (!svc.isOk() && !svc.status().isAlreadyExists()) return svc.status();
  }
  unit.phase = UnitPhase::kRunning;
  unit.workloadApiVersion = stringMember(object, "apiVersion");
  unit.workloadKind = toString(r.kind);
  unit.workloadName = r.name;
  unit.startTime = creationTime(object).value_or(now_);
  noteDeadline(nextDeadline_, *unit.startTime + std::min(spec_.startTimeout, spec_.timeLimit));
  return common::Status();
}

common::Status Pass::removeWorkload(WorkloadKind kind, const std::string& name) {
  kube::DeleteOptions options;
  if (kind != WorkloadKind::kPod) options.propagationPolicy = "Background";
  common::Status removed = client_.remove(resourceOf(kind), ref_.ns, name, options);
  if (removed.isNotFound()) return common::Status();
  return removed;
}

common::Status Pass::stop(UnitRecord& unit, bool failure) {
  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  if (!kind) return common::Status();
  if (*kind == WorkloadKind::kJob && failure &&
      spec_.cleanup.onFailure == benchmark::CleanupAction::kRetain) {
    // Suspending deletes the Job's pods at once and keeps the Job for inspection.
    common::Result<json> patched =
        client_.patch(kube::resources::kJobs, ref_.ns, unit.workloadName, kube::PatchType::kMerge,
                      {{"spec", {{"suspend", true}}}});
    if (patched.isOk()) jobs_[unit.workloadName] = std::move(patched).value();
    if (patched.isOk() || patched.status().isNotFound()) return common::Status();
    return patched.status();
  }
  HETBENCH_RETURN_IF_ERROR(removeWorkload(*kind, unit.workloadName));
  if (*kind == WorkloadKind::kPod) podsByName_.erase(unit.workloadName);
  if (*kind == WorkloadKind::kJob) jobs_.erase(unit.workloadName);
  if (*kind == WorkloadKind::kIpuJob) ipuJobs_.erase(unit.workloadName);
  return common::Status();
}

common::Status Pass::cleanUp(UnitRecord& unit, bool endRecorded) {
  if (!isTerminal(unit.phase)) return common::Status();
  if (!endRecorded) {
    // Workloads are stopped or deleted only once the unit's end is in the status: a pass whose
    // status write is lost (a Conflict redone from a fresh read, a crash) must not leave behind
    // a Running unit whose workload it deleted, which the next pass would take for a failure.
    noteDeadline(nextDeadline_, now_);
    return common::Status();
  }
  if (unit.phase == UnitPhase::kSucceeded && logs_ != nullptr && !options_.logDir.empty() &&
      !unit.metrics.is_object()) {
    if (!collectLogs(unit)) {
      noteDeadline(nextDeadline_, now_ + std::chrono::seconds(1));
      return common::Status();
    }
    measure(unit);
  }
  const json* object = workloadOf(unit);
  if (object == nullptr || terminating(*object)) {
    unit.retained = false;
    return common::Status();
  }
  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  const bool keep =
      (unit.phase == UnitPhase::kSucceeded &&
       spec_.cleanup.onSuccess == benchmark::CleanupAction::kRetain) ||
      (isFailure(unit.phase) && spec_.cleanup.onFailure == benchmark::CleanupAction::kRetain);
  if (!keep) {
    unit.retained = false;
    if (unit.phase != UnitPhase::kCancelled && !collectLogs(unit)) {
      // The pods go only once their logs are on disk.
      noteDeadline(nextDeadline_, now_ + std::chrono::seconds(1));
      return common::Status();
    }
    return stop(unit, false);
  }
  if (!isFailure(unit.phase)) return common::Status();
  if (stillRuns(*kind, *object)) {  // timed out, or never started
    HETBENCH_RETURN_IF_ERROR(stop(unit, true));
    object = workloadOf(unit);
    if (object == nullptr) {
      unit.retained = false;
      return common::Status();
    }
  }
  if (label(*object, benchmark::kRetainedLabel) != "true") {
    json patch = {{"metadata",
                   {{"labels", {{std::string(benchmark::kRetainedLabel), "true"}}},
                    {"annotations",
                     {{std::string(benchmark::kFailedAtAnnotation),
                       common::formatRfc3339(unit.completionTime.value_or(now_))}}}}}};
    common::Result<json> patched = client_.patch(resourceOf(*kind), ref_.ns, unit.workloadName,
                                                 kube::PatchType::kMerge, patch);
    if (!patched.isOk() && !patched.status().isNotFound()) return patched.status();
    if (!unit.retained) {
      event(EventType::kNormal, "Retained",
            unit.workloadKind + " " + unit.workloadName + " of " + unitLabel(unit) +
                " is kept for inspection for " + common::formatDuration(spec_.cleanup.retainFor));
    }
  }
  unit.retained = true;
  return common::Status();
}

common::Status Pass::applyRetention(std::vector<UnitRecord>& units) {
  std::vector<benchmark::RetainedWorkload> retained;
  std::map<std::string, UnitRecord*> byName;
  for (UnitRecord& unit : units) {
    if (!unit.retained) continue;
    retained.push_back({unit.workloadName, unit.completionTime.value_or(now_)});
    byName[unit.workloadName] = &unit;
  }
  if (retained.empty()) return common::Status();
  const benchmark::RetentionPlan plan =
      benchmark::planRetention(std::move(retained), now_, spec_.cleanup);
  for (const std::string& name : plan.remove) {
    UnitRecord& unit = *byName.at(name);
    HETBENCH_RETURN_IF_ERROR(stop(unit, false));
    unit.retained = false;
    event(EventType::kNormal, "RetentionExpired",
          "deleted the retained " + unit.workloadKind + " " + name + " of " + unitLabel(unit));
  }
  if (plan.nextExpiry) noteDeadline(nextDeadline_, *plan.nextExpiry);
  return common::Status();
}

void Pass::addResults(json& status, const std::vector<UnitRecord>& units) const {
  const results::MetricUnits metricUnits = results::metricUnits(metricSpecs_);
  json trialResults = json::array();
  std::vector<results::Verdict> verdicts;
  std::string regressed;
  for (const TrialResult& judged : judgeTrials(units, references_, required_)) {
    json metrics = json::object();
    for (const auto& [name, stats] : judged.metrics.metrics) {
      metrics[name] = {{"mean", stats.mean},
                       {"stddev", stats.stddev},
                       {"min", stats.min},
                       {"max", stats.max},
                       {"n", stats.n}};
      if (auto unit = metricUnits.find(name); unit != metricUnits.end() && !unit->second.empty())
        metrics[name]["unit"] = unit->second;
    }
    json checks = json::array();
    for (const results::MetricCheck& check : judged.verdict.checks) {
      checks.push_back({{"metric", check.metric},
                        {"verdict", results::toString(check.verdict)},
                        {"message", check.message}});
      if (check.verdict == results::Verdict::kRegressed && regressed.empty())
        regressed = "trial " + std::to_string(judged.trial) + ": " + check.message;
    }
    json entry = {{"trial", judged.trial},
                  {"verdict", results::toString(judged.verdict.verdict)},
                  {"repetitions", judged.metrics.repetitions},
                  {"metrics", std::move(metrics)}};
    if (!checks.empty()) entry["checks"] = std::move(checks);
    for (const UnitRecord& unit : units) {
      if (unit.trial == judged.trial) {
        entry["parameters"] = unit.params;
        break;
      }
    }
    trialResults.push_back(std::move(entry));
    verdicts.push_back(judged.verdict.verdict);
  }
  if (trialResults.empty()) {
    status.erase("results");
    status.erase("verdict");
  } else {
    status["results"] = std::move(trialResults);
    status["verdict"] = results::toString(results::runVerdict(verdicts));
  }
  const UnitRecord* latest = nullptr;
  for (const UnitRecord& unit : units) {
    const results::UnitSummary summary = results::unitSummaryFromJson(unit.metrics);
    if (unit.phase != UnitPhase::kSucceeded || !unit.completionTime ||
        !summary.values.contains(std::string(results::kEffectiveThroughput))) {
      continue;
    }
    if (latest == nullptr || *latest->completionTime <= *unit.completionTime) latest = &unit;
  }
  if (latest != nullptr) {
    status["latestEffectiveThroughput"] =
        results::unitSummaryFromJson(latest->metrics)
            .values.at(std::string(results::kEffectiveThroughput));
  }
  if (!regressed.empty()) {
    setCondition(status, "Regressed", "True", "BelowReference", regressed, now_, generation_);
  } else {
    setCondition(status, "Regressed", "False", "NoRegression", "", now_, generation_);
  }
}

void Pass::noteRegressions(const json& oldStatus, json& newStatus) {
  std::map<std::int64_t, std::string> before;
  if (const json& old = member(oldStatus, "results"); old.is_array()) {
    for (const json& r : old)
      if (r.is_object() && r.value("trial", json()).is_number_integer())
        before[r["trial"].get<std::int64_t>()] = stringMember(r, "verdict");
  }
  const json& now = member(newStatus, "results");
  if (!now.is_array()) return;
  std::map<std::int64_t, std::string> verdictOf;
  for (const json& r : now) {
    const std::int64_t trial = r["trial"].get<std::int64_t>();
    verdictOf[trial] = stringMember(r, "verdict");
    if (stringMember(r, "verdict") != "Regressed" || before[trial] == "Regressed") continue;
    std::string message = "trial " + std::to_string(trial);
    for (const json& check : member(r, "checks"))
      if (stringMember(check, "verdict") == "Regressed")
        message += ": " + stringMember(check, "message");
    event(EventType::kWarning, "Regressed", message);
  }
  for (json& t : newStatus["trials"]) {
    auto it = verdictOf.find(t.value("trial", std::int64_t{-1}));
    if (it != verdictOf.end()) t["verdict"] = it->second;
  }
}

void Pass::measure(UnitRecord& unit) {
  const UnitMeasurement m = measureUnit(options_.logDir / logDirOf(unit), metricSpecs_,
                                        results::AggregationOptions{spec_.warmupEpochs}, required_);
  std::string reason;
  std::string message;
  if (!m.status.isOk()) {
    reason = "InvalidMetrics";
    message = "the metrics in the log cannot be read: " + m.status.message();
  } else {
    unit.metrics = results::toJson(m.summary);
    if (!m.missing.empty()) {
      reason = "MetricMissing";
      message = "the log has no " + m.missing.front();
      for (std::size_t i = 1; i < m.missing.size(); ++i) message += ", " + m.missing[i];
    }
  }
  if (reason.empty()) return;
  unit.phase = UnitPhase::kFailed;
  unit.reason = reason;
  unit.message = message;
  event(EventType::kWarning, "TrialFailed",
        unitLabel(unit) + " Failed (" + reason + "): " + message);
}

json Pass::buildStatus(const std::vector<UnitRecord>& units) const {
  json status = member(run_, "status").is_object() ? run_["status"] : json::object();
  // A run is not over while a succeeded unit still waits to be measured: its metrics may yet
  // fail it.
  const bool measuring = logs_ != nullptr && !options_.logDir.empty();
  const bool unmeasured =
      measuring && std::any_of(units.begin(), units.end(), [](const UnitRecord& u) {
        return u.phase == UnitPhase::kSucceeded && !u.metrics.is_object();
      });
  std::string phase = runPhase(units, suspend_);
  if (unmeasured && (phase == "Succeeded" || phase == "Failed")) phase = "Running";
  const auto done = std::count_if(units.begin(), units.end(),
                                  [](const UnitRecord& u) { return isTerminal(u.phase); });
  const auto running = std::count_if(units.begin(), units.end(), [](const UnitRecord& u) {
    return u.phase == UnitPhase::kRunning;
  });
  status["phase"] = phase;
  status["observedGeneration"] = generation_;
  status["trialsTotal"] = units.size();
  status["trialsDone"] = done;
  status["progress"] = std::to_string(done) + "/" + std::to_string(units.size());
  json trials = json::array();
  std::optional<common::WallTime> firstStart;
  for (const UnitRecord& unit : units) {
    trials.push_back(toJson(unit));
    if (unit.startTime && (!firstStart || *unit.startTime < *firstStart))
      firstStart = unit.startTime;
  }
  status["trials"] = std::move(trials);
  if (firstStart && !status.contains("startTime"))
    status["startTime"] = common::formatRfc3339(*firstStart);
  const bool terminal = phase == "Succeeded" || phase == "Failed" || phase == "Cancelled";
  if (terminal && !status.contains("completionTime")) {
    status["completionTime"] = common::formatRfc3339(now_);
  }
  if (!terminal) status.erase("completionTime");

  addResults(status, units);

  const std::string planned = std::to_string(units.size()) + " unit(s)";
  setCondition(status, "Accepted", "True", "Accepted", planned + " planned", now_, generation_);
  setCondition(status, "Running", running > 0 ? "True" : "False",
               running > 0 ? "UnitsRunning" : phase,
               std::to_string(running) + " of " + planned + " running", now_, generation_);
  setCondition(status, "Complete", phase == "Succeeded" ? "True" : "False",
               phase == "Succeeded" ? "AllSucceeded" : phase,
               std::to_string(done) + " of " + planned + " finished", now_, generation_);
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return isFailure(u.phase); });
  if (failed != units.end()) {
    setCondition(status, "Failed", "True", failed->reason, firstFailure(units), now_, generation_);
  } else {
    setCondition(status, "Failed", "False", "NoFailure", "", now_, generation_);
  }
  return status;
}

}  // namespace

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
