#include <spdlog/spdlog.h>

#include "pass.h"

namespace hetbench::controller::detail {

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
  if (measuring() && awaitsMetrics(unit)) {
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

}  // namespace hetbench::controller::detail
