#include <spdlog/spdlog.h>

#include <fstream>

#include "hetbench/benchmark/completion.h"
#include "hetbench/benchmark/queue.h"
#include "hetbench/benchmark/retention.h"
#include "hetbench/benchmark/start_timeout.h"
#include "hetbench/benchmark/suspend.h"
#include "hetbench/benchmark/time_limit.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/logs/layout.h"
#include "pass.h"

namespace hetbench::controller::detail {
namespace {

namespace reason = benchmark::reason;
using common::member;
using common::stringMember;

std::optional<WorkloadKind> kindFromName(const std::string& kind) {
  if (kind == "Pod") return WorkloadKind::kPod;
  if (kind == "Job") return WorkloadKind::kJob;
  if (kind == "IPUJob") return WorkloadKind::kIpuJob;
  return std::nullopt;
}

/// Neither ended by itself nor stopped (a suspended Job is stopped, unless it is in a Kueue
/// queue, which may resume it).
bool stillRuns(WorkloadKind kind, const json& object) {
  const benchmark::WorkloadState::Phase phase = benchmark::workloadState(kind, object).phase;
  if (phase == benchmark::WorkloadState::Phase::kSucceeded ||
      phase == benchmark::WorkloadState::Phase::kFailed) {
    return false;
  }
  if (kind != WorkloadKind::kJob || member(member(object, "spec"), "suspend") != json(true)) {
    return true;
  }
  return benchmark::queueState(kind, object).stage != benchmark::QueueStage::kNone;
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

}  // namespace

std::string unitLabel(const UnitRecord& unit) {
  std::string out =
      "trial " + std::to_string(unit.trial) + " repetition " + std::to_string(unit.repetition);
  std::string params;
  for (const auto& [key, value] : unit.params)
    params += (params.empty() ? "" : ", ") + key + "=" + value;
  if (!params.empty()) out += " (" + params + ")";
  return out;
}

std::string Pass::logDirOf(const UnitRecord& unit) const {
  if (!unit.logDir.empty()) return unit.logDir;
  return logs::LogLayout::unitDir(run_.ref.ns, run_.ref.name, run_.ref.uid, unit.trial,
                                  unit.repetition);
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

void Pass::adopt(UnitRecord& unit) {
  // A workload created by an earlier pass whose status write did not land.
  const std::string name =
      benchmark::unitName(run_.ref, {unit.trial, unit.repetition, unit.params});
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
  if (found == nullptr) return;
  const std::optional<WorkloadKind> foundKind = kindFromName(kind);
  unit.phase = benchmark::queueState(*foundKind, *found).stage == benchmark::QueueStage::kWaiting
                   ? UnitPhase::kQueued
                   : UnitPhase::kRunning;
  unit.workloadApiVersion = stringMember(*found, "apiVersion");
  unit.workloadKind = kind;
  unit.workloadName = name;
  unit.startTime =
      common::timeMember(member(*found, "metadata"), "creationTimestamp").value_or(now_);
  unit.logDir = logDirOf(unit);
}

common::Result<json> Pass::readWorkload(UnitRecord& unit, WorkloadKind kind) {
  if (const json* cached = workloadOf(unit)) return *cached;
  // The cache may lag behind a create of this or an earlier pass: ask the API server.
  common::Result<json> got = client_.get(resourceOf(kind), run_.ref.ns, unit.workloadName);
  if (!got.isOk()) return got.status();
  std::map<std::string, json>& objects = kind == WorkloadKind::kPod   ? podsByName_
                                         : kind == WorkloadKind::kJob ? jobs_
                                                                      : ipuJobs_;
  objects[unit.workloadName] = got.value();
  return got;
}

common::Status Pass::advance(UnitRecord& unit) {
  if (isSlurm(unit)) {
    if (benchmark::inFlight(unit.phase)) advanceSlurm(unit);
    return common::Status();
  }
  if (unit.phase == UnitPhase::kPending) adopt(unit);
  if (!benchmark::inFlight(unit.phase)) return common::Status();

  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  if (!kind) {
    finish(unit, {UnitPhase::kFailed, std::string(reason::kUnknownWorkload),
                  "status names a workload of kind \"" + unit.workloadKind + "\""});
    return common::Status();
  }
  common::Result<json> object = readWorkload(unit, *kind);
  if (object.status().isNotFound()) {
    finish(unit, {UnitPhase::kFailed, std::string(reason::kWorkloadDeleted),
                  unit.workloadKind + " " + unit.workloadName + " was deleted before it finished"});
    return common::Status();
  }
  if (!object.isOk()) return object.status();
  if (std::vector<std::string> nodes = nodesOf(unit); !nodes.empty()) unit.nodes = nodes;
  collectLogs(unit);
  checkRunning(unit, *kind, object.value());
  return common::Status();
}

void Pass::checkRunning(UnitRecord& unit, WorkloadKind kind, const json& object) {
  const benchmark::WorkloadState state = benchmark::workloadState(kind, object);
  if (state.phase == benchmark::WorkloadState::Phase::kSucceeded) {
    finish(unit,
           {UnitPhase::kSucceeded,
            state.reason.empty() ? std::string(reason::kCompleted) : state.reason, state.message});
    return;
  }
  const benchmark::QueueState queue = benchmark::queueState(kind, object);
  // A pod that Kueue stopped fails when its container is killed: the eviction is the reason.
  if (state.phase == benchmark::WorkloadState::Phase::kFailed &&
      queue.stage != benchmark::QueueStage::kStopped) {
    finish(unit,
           {UnitPhase::kFailed,
            state.reason.empty() ? std::string(reason::kUnitFailed) : state.reason, state.message});
    return;
  }
  // Deleted by someone else, or by a pass that recorded the unit's end in a status this cache
  // has not caught up with yet; a pod that Kueue stopped is deleted by Kueue.
  if (terminating(object) && queue.stage != benchmark::QueueStage::kStopped) return;

  if (std::optional<benchmark::UnitEnd> end =
          benchmark::checkSuspend(accepted_.spec.suspend, unit.phase)) {
    finish(unit, *end);
    return;
  }
  if (!checkQueue(unit, queue)) return;
  const common::WallTime started = unit.startTime.value_or(now_);
  const benchmark::UnitDecision limit =
      benchmark::checkTimeLimit(started, accepted_.spec.timeLimit, now_);
  if (limit.end) {
    finish(unit, *limit.end);
    return;
  }
  deadlines_.note(limit.recheckAt);
  if (unit.expectedPods == 0) {
    // Adopted, or started by an operator that did not record it: rendered once, then recorded.
    common::Result<benchmark::RenderedUnit> rendered =
        benchmark::renderUnit(run_.ref, accepted_.spec, {unit.trial, unit.repetition, unit.params});
    unit.expectedPods = rendered.isOk() ? rendered.value().expectedPods : 1;
  }
  benchmark::UnitDecision start =
      benchmark::checkStartTimeout(started, accepted_.spec.startTimeout,
                                   benchmark::startCheck(podsOf(unit), unit.expectedPods), now_);
  if (start.end) {
    // Failing the unit stops its workload, and the cache may not have seen yet the pods that
    // have just started: the API server decides.
    common::Result<std::vector<json>> live = livePodsOf(unit);
    if (!live.isOk()) {
      spdlog::warn("run {}/{}: cannot confirm that {} has not started: {}", run_.ref.ns,
                   run_.ref.name, unitLabel(unit), live.status().toString());
      deadlines_.note(now_ + std::chrono::seconds(1));
      return;
    }
    start =
        benchmark::checkStartTimeout(started, accepted_.spec.startTimeout,
                                     benchmark::startCheck(live.value(), unit.expectedPods), now_);
  }
  if (start.end) finish(unit, *start.end);
  deadlines_.note(start.recheckAt);
}

bool Pass::checkQueue(UnitRecord& unit, const benchmark::QueueState& queue) {
  const common::WallTime queuedSince = unit.startTime.value_or(now_);
  const benchmark::QueueDecision decision =
      benchmark::checkQueue(unit.phase, queue, queuedSince, accepted_.spec.queueTimeout, now_);
  if (decision.end) {
    finish(unit, *decision.end);
    return false;
  }
  if (decision.admittedAt) {
    // Time spent in the queue is not start time: startTimeout and timeLimit count from here.
    const common::WallTime admitted = std::max(*decision.admittedAt, queuedSince);
    unit.phase = UnitPhase::kRunning;
    unit.startTime = admitted;
    event(EventType::kNormal, reason::kAdmitted,
          unitLabel(unit) + " admitted by its queue after " +
              common::formatDuration(
                  std::chrono::duration_cast<std::chrono::seconds>(admitted - queuedSince)));
  }
  deadlines_.note(decision.recheckAt);
  return unit.phase == UnitPhase::kRunning;
}

void Pass::keepManifest(const UnitRecord& unit, const benchmark::RenderedUnit& r) const {
  if (options_.logDir.empty()) return;
  const std::filesystem::path path = options_.logDir / logs::LogLayout::manifestFile(unit.logDir);
  json manifest = json::array({r.workload});
  if (r.service) manifest.push_back(*r.service);
  if (!writeFileAtomically(path, manifest.dump(2) + "\n")) {
    spdlog::warn("cannot write {}; the unit runs without its manifest record", path.string());
  }
}

common::Status Pass::start(UnitRecord& unit, const benchmark::Unit& planned) {
  common::Result<benchmark::RenderedUnit> rendered =
      benchmark::renderUnit(run_.ref, accepted_.spec, planned);
  if (!rendered.isOk()) {
    finish(unit, {UnitPhase::kFailed, std::string(reason::kInvalidWorkload),
                  benchmark::describeInvalid(rendered.status())});
    return common::Status();
  }
  benchmark::RenderedUnit& r = rendered.value();
  if (r.slurm) return startSlurm(unit, r);
  const std::string queue = accepted_.spec.queueName.value_or(options_.defaultQueueName);
  // The operator's default queue passes over IPUJobs, which Kueue does not integrate; a run that
  // names a queue for one is refused when it is accepted.
  const bool queued = !queue.empty() && benchmark::queueable(r.kind);
  if (queued) benchmark::submitToQueue(r, queue);
  unit.logDir = logDirOf(unit);
  keepManifest(unit, r);
  common::Result<json> created = createWorkload(unit, r, queued ? queue : std::string());
  if (!created.isOk()) return created.status();
  if (unit.phase != UnitPhase::kPending) return common::Status();  // failed to create
  const json& object = created.value();

  if (r.service) {
    // The Service belongs to the Job, so whatever deletes the Job deletes the Service too.
    json service = *r.service;
    service["metadata"]["ownerReferences"] =
        json::array({{{"apiVersion", stringMember(object, "apiVersion")},
                      {"kind", stringMember(object, "kind")},
                      {"name", r.name},
                      {"uid", stringMember(object["metadata"], "uid")},
                      {"blockOwnerDeletion", true}}});
    common::Result<json> svc = client_.create(kube::resources::kServices, run_.ref.ns, service);
    if (!svc.isOk() && !svc.status().isAlreadyExists()) return svc.status();
  }
  unit.phase = queued ? UnitPhase::kQueued : UnitPhase::kRunning;
  unit.workloadApiVersion = stringMember(object, "apiVersion");
  unit.workloadKind = benchmark::toString(r.kind);
  unit.workloadName = r.name;
  unit.expectedPods = r.expectedPods;
  unit.startTime =
      common::timeMember(member(object, "metadata"), "creationTimestamp").value_or(now_);
  deadlines_.note(*unit.startTime +
                  (queued ? accepted_.spec.queueTimeout
                          : std::min(accepted_.spec.startTimeout, accepted_.spec.timeLimit)));
  return common::Status();
}

common::Result<json> Pass::createWorkload(UnitRecord& unit, const benchmark::RenderedUnit& r,
                                          const std::string& queue) {
  const kube::GroupVersionResource& gvr = resourceOf(r.kind);
  const std::string what = benchmark::toString(r.kind) + " " + r.name;
  common::Result<json> created = client_.create(gvr, run_.ref.ns, r.workload);
  if (created.isOk()) {
    event(EventType::kNormal, reason::kCreated,
          "created " + what + " for " + unitLabel(unit) +
              (queue.empty() ? "" : ", queued in LocalQueue " + queue));
    return created;
  }
  const common::Status& error = created.status();
  if (error.isAlreadyExists()) {
    common::Result<json> got = client_.get(gvr, run_.ref.ns, r.name);
    if (!got.isOk()) return got.status();
    if (!ownedBy(got.value(), run_.ref.uid)) {
      finish(unit, {UnitPhase::kFailed, std::string(reason::kNameConflict),
                    what + " exists and does not belong to this run"});
    }
    return got;
  }
  if (error.isNotFound()) {
    finish(unit, {UnitPhase::kFailed, std::string(reason::kResourceNotServed),
                  "the cluster does not serve " + gvr.apiVersion() + " " +
                      benchmark::toString(r.kind) + ": " + error.message()});
    return json();
  }
  if (error.isInvalid() || error.isInternal()) {
    finish(unit, {UnitPhase::kFailed, std::string(reason::kCreateFailed),
                  "the API server refused " + what + ": " + benchmark::describeInvalid(error)});
    return json();
  }
  return error;
}

common::Status Pass::removeWorkload(WorkloadKind kind, const std::string& name) {
  kube::DeleteOptions options;
  if (kind != WorkloadKind::kPod) options.propagationPolicy = "Background";
  common::Status removed = client_.remove(resourceOf(kind), run_.ref.ns, name, options);
  if (removed.isNotFound()) return common::Status();
  return removed;
}

common::Status Pass::stop(UnitRecord& unit, bool failure) {
  // A Slurm unit's job is cancelled when the unit ends (pass_slurm.cc); nothing is kept on the
  // cluster but its output.
  if (isSlurm(unit)) return common::Status();
  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  if (!kind) return common::Status();
  const json* job = *kind == WorkloadKind::kJob ? workloadOf(unit) : nullptr;
  // Kueue resumes a suspended Job whose workload it has admitted, or admits it again: a Job of a
  // queue that has not finished by itself is deleted rather than kept suspended.
  const bool queueWouldResume =
      job != nullptr &&
      benchmark::queueState(WorkloadKind::kJob, *job).stage != benchmark::QueueStage::kNone &&
      stillRuns(WorkloadKind::kJob, *job);
  if (*kind == WorkloadKind::kJob && failure && !queueWouldResume &&
      accepted_.spec.cleanup.onFailure == benchmark::CleanupAction::kRetain) {
    // Suspending deletes the Job's pods at once and keeps the Job for inspection.
    common::Result<json> patched =
        client_.patch(kube::resources::kJobs, run_.ref.ns, unit.workloadName,
                      kube::PatchType::kMerge, {{"spec", {{"suspend", true}}}});
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
  if (isSlurm(unit)) {
    cleanUpSlurm(unit, endRecorded);
    return common::Status();
  }
  if (!benchmark::isTerminal(unit.phase)) return common::Status();
  if (endRecorded && measuring() && benchmark::awaitsMetrics(unit)) {
    const logs::PodLogs logs = collectLogs(unit);
    if (!logs.ended) {
      awaitLogs(unit);
      return common::Status();
    }
    measure(unit, logs.incomplete);
  }
  const json* object = workloadOf(unit);
  const bool exists = object != nullptr && !terminating(*object);
  const std::optional<WorkloadKind> kind = kindFromName(unit.workloadKind);
  benchmark::CleanupInput in;
  in.phase = unit.phase;
  in.endRecorded = endRecorded;
  in.workloadExists = exists;
  in.workloadRunning = exists && kind && stillRuns(*kind, *object);
  // Logs matter only for a workload that is to be deleted and may still have pods.
  in.logsEnded = !endRecorded || !exists || unit.phase == UnitPhase::kCancelled ||
                 benchmark::keepsWorkload(unit.phase, accepted_.spec.cleanup) ||
                 collectLogs(unit).ended;
  const benchmark::CleanupDecision decision =
      benchmark::decideCleanup(in, accepted_.spec.cleanup, now_);
  deadlines_.note(decision.recheckAt);
  if (!exists && endRecorded) unit.retained = false;
  switch (decision.step) {
    case benchmark::CleanupStep::kNone:
    case benchmark::CleanupStep::kWaitForStatus:
      return common::Status();
    case benchmark::CleanupStep::kWaitForLogs:
      unit.retained = false;
      awaitLogs(unit);
      return common::Status();
    case benchmark::CleanupStep::kDelete:
      unit.retained = false;
      return stop(unit, false);
    case benchmark::CleanupStep::kStopAndRetain:
      HETBENCH_RETURN_IF_ERROR(stop(unit, true));
      object = workloadOf(unit);
      if (object == nullptr) {
        unit.retained = false;
        return common::Status();
      }
      return retain(unit, *kind, *object);
    case benchmark::CleanupStep::kRetain:
      return retain(unit, *kind, *object);
  }
  return common::Status();
}

common::Status Pass::retain(UnitRecord& unit, WorkloadKind kind, const json& object) {
  if (stringMember(member(member(object, "metadata"), "labels"), benchmark::kRetainedLabel) !=
      "true") {
    json patch = {{"metadata",
                   {{"labels", {{std::string(benchmark::kRetainedLabel), "true"}}},
                    {"annotations",
                     {{std::string(benchmark::kFailedAtAnnotation),
                       common::formatRfc3339(unit.completionTime.value_or(now_))}}}}}};
    common::Result<json> patched = client_.patch(resourceOf(kind), run_.ref.ns, unit.workloadName,
                                                 kube::PatchType::kMerge, patch);
    if (!patched.isOk() && !patched.status().isNotFound()) return patched.status();
    if (!unit.retained) {
      event(EventType::kNormal, reason::kRetained,
            unit.workloadKind + " " + unit.workloadName + " of " + unitLabel(unit) +
                " is kept for inspection for " +
                common::formatDuration(accepted_.spec.cleanup.retainFor));
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
      benchmark::planRetention(std::move(retained), now_, accepted_.spec.cleanup);
  for (const std::string& name : plan.remove) {
    UnitRecord& unit = *byName.at(name);
    HETBENCH_RETURN_IF_ERROR(stop(unit, false));
    unit.retained = false;
    event(EventType::kNormal, reason::kRetentionExpired,
          "deleted the retained " + unit.workloadKind + " " + name + " of " + unitLabel(unit));
  }
  deadlines_.note(plan.nextExpiry);
  return common::Status();
}

void Pass::finish(UnitRecord& unit, const benchmark::UnitEnd& end) {
  unit.phase = end.phase;
  unit.reason = benchmark::statusReason(end.reason);
  unit.message = benchmark::statusMessage(end.message);
  unit.completionTime = now_;
  const std::string who = unitLabel(unit);
  switch (end.phase) {
    case UnitPhase::kSucceeded:
      event(EventType::kNormal, reason::kTrialSucceeded, who + " succeeded");
      break;
    case UnitPhase::kCancelled:
      event(EventType::kNormal, reason::kTrialCancelled, who + " cancelled: " + unit.message);
      break;
    default:
      event(EventType::kWarning,
            unit.phase == UnitPhase::kTimedOut ? reason::kTrialTimedOut : reason::kTrialFailed,
            who + " " + benchmark::toString(end.phase) + " (" + unit.reason + "): " + unit.message);
      break;
  }
}

}  // namespace hetbench::controller::detail
