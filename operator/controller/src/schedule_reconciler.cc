#include "hetbench/controller/schedule_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/schedule/history.h"
#include "hetbench/schedule/schedule_spec.h"
#include "hetbench/schedule/slots.h"
#include "pass_loop.h"

namespace hetbench::controller {
namespace {

namespace reason = benchmark::reason;
namespace condition = benchmark::condition;
using common::member;
using common::stringMember;
using common::timeMember;
using common::WallTime;
using kube::EventType;
using nlohmann::json;
using schedule::ScheduledRun;

constexpr int kStatusAttempts = 3;

bool controlledBy(const json& run, const std::string& uid) {
  const json& refs = member(member(run, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(), [&](const json& ref) {
    return stringMember(ref, "uid") == uid && member(ref, "controller") == json(true);
  });
}

ScheduledRun scheduledRunOf(const json& object) {
  const benchmark::Run run = benchmark::readRun(object);
  ScheduledRun out;
  out.name = run.ref.name;
  out.uid = run.ref.uid;
  std::optional<WallTime> slot;
  if (auto it = run.annotations.find(std::string(benchmark::kScheduledTimeAnnotation));
      it != run.annotations.end()) {
    if (common::Result<WallTime> parsed = common::parseRfc3339(it->second); parsed.isOk())
      slot = parsed.value();
  }
  out.scheduledTime = slot.value_or(run.creationTime.value_or(WallTime()));
  out.phase = run.status.phase;
  out.completionTime = run.status.completionTime;
  out.verdict = run.status.verdict ? results::toString(*run.status.verdict) : "";
  out.retainsWorkloads = std::any_of(run.status.trials.begin(), run.status.trials.end(),
                                     [](const benchmark::UnitRecord& u) { return u.retained; });
  return out;
}

json runOf(const json& owner, const schedule::ScheduleSpec& spec, WallTime slot) {
  const json& meta = member(owner, "metadata");
  const std::string name = stringMember(meta, "name");
  json labels = spec.runLabels;
  labels[std::string(benchmark::kScheduleLabel)] = name;
  json annotations = spec.runAnnotations;
  annotations[std::string(benchmark::kScheduledTimeAnnotation)] = common::formatRfc3339(slot);
  return {{"apiVersion", benchmark::kApiVersion},
          {"kind", benchmark::kKind},
          {"metadata",
           {{"name", schedule::runName(name, slot)},
            {"namespace", stringMember(meta, "namespace")},
            {"labels", std::move(labels)},
            {"annotations", std::move(annotations)},
            {"ownerReferences", json::array({{{"apiVersion", benchmark::kApiVersion},
                                              {"kind", benchmark::kScheduleKind},
                                              {"name", name},
                                              {"uid", stringMember(meta, "uid")},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
          {"spec", spec.runSpec}};
}

std::vector<schedule::RecentVerdict> recentFromStatus(const json& status) {
  std::vector<schedule::RecentVerdict> out;
  const json& recent = member(status, "recentVerdicts");
  if (!recent.is_array()) return out;
  for (const json& entry : recent) {
    std::optional<WallTime> at = timeMember(entry, "scheduledTime");
    if (!at || stringMember(entry, "run").empty()) continue;
    out.push_back({stringMember(entry, "run"), *at, stringMember(entry, "phase"),
                   stringMember(entry, "verdict")});
  }
  return out;
}

/// One reconcile of one BenchmarkSchedule.
class SchedulePass : public detail::EventBuffer {
 public:
  SchedulePass(kube::KubeClient& client, const ScheduleCache& cache, const common::Clock& clock,
               json object)
      : client_(client),
        cache_(cache),
        object_(std::move(object)),
        meta_(member(object_, "metadata")),
        ns_(stringMember(meta_, "namespace")),
        name_(stringMember(meta_, "name")),
        generation_(common::intMember(meta_, "generation")),
        now_(clock.now()),
        old_(member(object_, "status").is_object() ? object_["status"] : json::object()),
        status_(old_),
        conditions_(benchmark::conditionsFromJson(member(old_, "conditions"))) {
    status_["observedGeneration"] = generation_;
  }

  common::Result<ReconcileResult> execute();
  const json& object() const { return object_; }

 private:
  void readRuns();
  void noteMissed();
  /// The runs that have not finished, read from the API server rather than the cache.
  common::Status readActiveRuns();
  common::Status startSlot(WallTime slot);
  void recordRuns();
  common::Status writeStatus();
  common::Status prune();

  kube::KubeClient& client_;
  const ScheduleCache& cache_;
  json object_;
  json meta_;
  std::string ns_;
  std::string name_;
  std::int64_t generation_;
  WallTime now_;
  json old_;
  json status_;
  std::vector<benchmark::Condition> conditions_;
  schedule::ScheduleSpec spec_;
  std::vector<ScheduledRun> runs_;
  std::vector<ScheduledRun> active_;
  schedule::DueSlot due_;
};

common::Result<ReconcileResult> SchedulePass::execute() {
  if (!stringMember(meta_, "deletionTimestamp").empty()) return ReconcileResult{};
  // The template is checked placed on its BenchmarkSystem, as its runs will be accepted.
  bool systemsSyncing = false;
  const schedule::SystemLookup systems =
      [&](const std::string& name) -> std::optional<benchmark::SystemSpec> {
    const SystemLookup found = cache_.system(name);
    systemsSyncing = systemsSyncing || found.state == SystemLookup::State::kSyncing;
    if (found.state != SystemLookup::State::kFound) return std::nullopt;
    common::Result<benchmark::SystemSpec> system =
        benchmark::parseSystemSpec(member(found.object, "spec"));
    return system.isOk() ? std::optional<benchmark::SystemSpec>(*system) : std::nullopt;
  };
  common::Result<schedule::ScheduleSpec> parsed =
      schedule::parseScheduleSpec(member(object_, "spec"), systems);
  if (systemsSyncing) return ReconcileResult{std::chrono::seconds(1)};
  if (!parsed.isOk()) {
    const std::string message = benchmark::describeInvalid(parsed.status());
    if (benchmark::conditionStatus(conditions_, condition::kAccepted) != "False")
      event(EventType::kWarning, reason::kInvalidSpec, message);
    benchmark::setCondition(conditions_, condition::kAccepted, "False", reason::kInvalidSpec,
                            message, now_, generation_);
    HETBENCH_RETURN_IF_ERROR(writeStatus());
    return ReconcileResult{};
  }
  spec_ = std::move(parsed).value();
  readRuns();
  if (!spec_.suspend) noteMissed();
  if (!spec_.suspend && due_.start) HETBENCH_RETURN_IF_ERROR(startSlot(*due_.start));
  recordRuns();
  // The status names the newest slot before any run is pruned, so that a pruned run's slot is
  // never taken for one still to come.
  HETBENCH_RETURN_IF_ERROR(writeStatus());
  HETBENCH_RETURN_IF_ERROR(prune());
  ReconcileResult result;
  if (!spec_.suspend && due_.next)
    result.requeueAfter = std::max<std::chrono::nanoseconds>(*due_.next - now_, {});
  return result;
}

void SchedulePass::readRuns() {
  const std::string uid = stringMember(meta_, "uid");
  for (const json& run : cache_.scheduledRuns(ns_, name_))
    if (controlledBy(run, uid)) runs_.push_back(scheduledRunOf(run));
  for (const ScheduledRun& run : runs_)
    if (!schedule::isFinished(run)) active_.push_back(run);
  // The last slot handled: what the status says, or the newest run's slot should the status
  // lag behind a run created just before a crash; at first the schedule's creation.
  WallTime since = timeMember(meta_, "creationTimestamp").value_or(now_);
  const std::optional<WallTime> lastScheduled = timeMember(old_, "lastScheduleTime");
  if (lastScheduled) since = std::max(since, *lastScheduled);
  for (const ScheduledRun& run : runs_) {
    if (!lastScheduled || *lastScheduled < run.scheduledTime) {
      since = std::max(since, run.scheduledTime);
      status_["lastScheduleTime"] = common::formatRfc3339(since);
    }
  }
  due_ = schedule::dueSlot(spec_.cron, spec_.timeZone, since, now_, spec_.startingDeadline);
}

common::Status SchedulePass::readActiveRuns() {
  kube::ListOptions options;
  options.labelSelector = std::string(benchmark::kScheduleLabel) + "=" + name_;
  HETBENCH_ASSIGN_OR_RETURN(const kube::ListResult listed,
                            client_.list(kBenchmarkRuns, ns_, options));
  const std::string uid = stringMember(meta_, "uid");
  active_.clear();
  for (const json& run : listed.items) {
    if (!controlledBy(run, uid)) continue;
    ScheduledRun scheduled = scheduledRunOf(run);
    if (!schedule::isFinished(scheduled)) active_.push_back(std::move(scheduled));
  }
  return common::Status();
}

void SchedulePass::noteMissed() {
  if (!due_.missed) return;
  const std::optional<WallTime> reported = timeMember(old_, "lastMissedTime");
  if (reported && !(*reported < *due_.missed)) return;
  event(EventType::kWarning, reason::kMissedSchedule,
        "the slot " + common::formatRfc3339(*due_.missed) + " is more than " +
            std::to_string(spec_.startingDeadline->count()) +
            "s (startingDeadlineSeconds) past; it is not started");
  status_["lastMissedTime"] = common::formatRfc3339(*due_.missed);
}

common::Status SchedulePass::startSlot(WallTime due) {
  const std::string slot = common::formatRfc3339(due);
  if (due_.skipped > 0) {
    event(EventType::kWarning, reason::kMissedSchedule,
          (due_.skipped >= schedule::kMaxCountedSlots ? "at least " : "") +
              std::to_string(due_.skipped) + " slot(s) before " + slot +
              " were missed; only the latest missed slot starts");
  }
  // Forbid and Replace act on the runs still going. The cache may not hold yet the run that the
  // previous pass created a moment ago, and a decision taken on it would let a second run share
  // the accelerators (issue 19): ask the API server, as a due slot is rare.
  if (spec_.concurrencyPolicy != schedule::ConcurrencyPolicy::kAllow)
    HETBENCH_RETURN_IF_ERROR(readActiveRuns());
  if (spec_.concurrencyPolicy == schedule::ConcurrencyPolicy::kForbid && !active_.empty()) {
    event(EventType::kNormal, reason::kRunAlreadyActive,
          "the slot " + slot + " waits: run " + active_.front().name +
              " has not finished (concurrencyPolicy Forbid)");
    return common::Status();
  }
  if (spec_.concurrencyPolicy == schedule::ConcurrencyPolicy::kReplace) {
    for (const ScheduledRun& run : active_) {
      kube::DeleteOptions options;
      options.preconditionUid = run.uid;
      common::Status removed = client_.remove(kBenchmarkRuns, ns_, run.name, options);
      if (!removed.isOk() && !removed.isNotFound()) return removed;
      event(EventType::kNormal, reason::kReplacedRun,
            "deleted run " + run.name + " for the slot " + slot + " (concurrencyPolicy Replace)");
    }
    active_.clear();
  }
  const json run = runOf(object_, spec_, due);
  const std::string runName = run["metadata"]["name"];
  common::Result<json> created = client_.create(kBenchmarkRuns, ns_, run);
  if (created.isOk()) {
    event(EventType::kNormal, reason::kSuccessfulCreate,
          "created run " + runName + " for the slot " + slot);
    spdlog::info("schedule created a run schedule={}/{} run={} slot={}", ns_, name_, runName, slot);
    ScheduledRun made = scheduledRunOf(created.value());
    made.scheduledTime = due;
    active_.push_back(std::move(made));
  } else if (!created.status().isAlreadyExists()) {
    event(EventType::kWarning, reason::kFailedCreate,
          "run " + runName + " for the slot " + slot + ": " + created.status().message());
    return created.status();
  }
  status_["lastScheduleTime"] = slot;
  return common::Status();
}

void SchedulePass::recordRuns() {
  json activeList = json::array();
  std::sort(active_.begin(), active_.end(), [](const ScheduledRun& a, const ScheduledRun& b) {
    return a.scheduledTime < b.scheduledTime;
  });
  for (const ScheduledRun& run : active_) {
    activeList.push_back({{"name", run.name},
                          {"uid", run.uid},
                          {"scheduledTime", common::formatRfc3339(run.scheduledTime)}});
  }
  status_["activeCount"] = activeList.size();
  status_["active"] = std::move(activeList);

  const std::vector<schedule::RecentVerdict> recent =
      schedule::recentVerdicts(recentFromStatus(old_), runs_);
  json recentList = json::array();
  for (const schedule::RecentVerdict& v : recent) {
    recentList.push_back({{"run", v.run},
                          {"scheduledTime", common::formatRfc3339(v.scheduledTime)},
                          {"phase", v.phase},
                          {"verdict", v.verdict}});
  }
  status_["recentVerdicts"] = std::move(recentList);
  if (!recent.empty()) {
    status_["lastVerdict"] =
        recent.front().verdict.empty() ? recent.front().phase : recent.front().verdict;
  }
  for (const ScheduledRun& run : runs_) {
    if (run.phase != "Succeeded" || !run.completionTime) continue;
    const std::optional<WallTime> known = timeMember(status_, "lastSuccessfulTime");
    if (!known || *known < *run.completionTime) {
      status_["lastSuccessfulTime"] = common::formatRfc3339(*run.completionTime);
      status_["lastSuccessfulRun"] = run.name;
    }
  }
  std::string next = "suspended";
  if (!spec_.suspend)
    next = due_.next ? "next slot " + common::formatRfc3339(*due_.next) : "no further slot";
  benchmark::setCondition(conditions_, condition::kAccepted, "True", reason::kScheduled,
                          spec_.schedule + " (" + spec_.timeZone.name() + "): " + next, now_,
                          generation_);
}

common::Status SchedulePass::writeStatus() {
  status_["conditions"] = benchmark::toJson(conditions_);
  if (status_ == old_) return common::Status();
  json updated = object_;
  updated["status"] = status_;
  common::Result<json> written = client_.updateStatus(kBenchmarkSchedules, ns_, updated);
  if (written.status().isNotFound()) return common::Status();
  if (!written.isOk()) return written.status();
  object_ = std::move(written).value();
  return common::Status();
}

common::Status SchedulePass::prune() {
  for (const std::string& name : schedule::runsToPrune(runs_, spec_.successfulRunsHistoryLimit,
                                                       spec_.failedRunsHistoryLimit)) {
    common::Status removed = client_.remove(kBenchmarkRuns, ns_, name, {});
    if (!removed.isOk() && !removed.isNotFound()) return removed;
    event(EventType::kNormal, reason::kSuccessfulDelete,
          "deleted finished run " + name + " beyond the history limits");
  }
  return common::Status();
}

}  // namespace

ScheduleReconciler::ScheduleReconciler(kube::KubeClient& client, const ScheduleCache& cache,
                                       const common::Clock& clock, kube::EventRecorder& events)
    : client_(client), cache_(cache), clock_(clock), events_(events) {}

common::Result<ReconcileResult> ScheduleReconciler::reconcile(const std::string& ns,
                                                              const std::string& name) {
  std::optional<json> cached = cache_.schedule(ns, name);
  if (!cached) return ReconcileResult{};
  return detail::runPasses(
      client_, kBenchmarkSchedules, ns, name, std::move(*cached), kStatusAttempts, events_,
      [&](json object) { return SchedulePass(client_, cache_, clock_, std::move(object)); },
      [](const SchedulePass&) {});
}

}  // namespace hetbench::controller
