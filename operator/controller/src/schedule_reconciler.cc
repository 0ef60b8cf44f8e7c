#include "hetbench/controller/schedule_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/time.h"
#include "hetbench/controller/run_status.h"
#include "hetbench/schedule/history.h"
#include "hetbench/schedule/schedule_spec.h"
#include "hetbench/schedule/slots.h"
#include "pass.h"

namespace hetbench::controller {
namespace {

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

ScheduledRun scheduledRunOf(const json& run) {
  const json& meta = member(run, "metadata");
  const json& status = member(run, "status");
  ScheduledRun out;
  out.name = stringMember(meta, "name");
  out.uid = stringMember(meta, "uid");
  out.scheduledTime = timeMember(member(meta, "annotations"), benchmark::kScheduledTimeAnnotation)
                          .value_or(timeMember(meta, "creationTimestamp").value_or(WallTime()));
  out.phase = stringMember(status, "phase");
  out.completionTime = timeMember(status, "completionTime");
  out.verdict = stringMember(status, "verdict");
  const json& trials = member(status, "trials");
  if (trials.is_array()) {
    out.retainsWorkloads = std::any_of(trials.begin(), trials.end(), [](const json& trial) {
      return member(trial, "retained") == json(true);
    });
  }
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

}  // namespace

ScheduleReconciler::ScheduleReconciler(kube::KubeClient& client, const ScheduleCache& cache,
                                       const common::Clock& clock, kube::EventRecorder& events)
    : client_(client), cache_(cache), clock_(clock), events_(events) {}

common::Result<ReconcileResult> ScheduleReconciler::reconcile(const std::string& ns,
                                                              const std::string& name) {
  const std::optional<json> cached = cache_.schedule(ns, name);
  if (!cached) return ReconcileResult{};
  const json& owner = *cached;
  const json& meta = member(owner, "metadata");
  if (!stringMember(meta, "deletionTimestamp").empty()) return ReconcileResult{};
  const std::int64_t generation = common::intMember(meta, "generation");
  const WallTime now = clock_.now();
  const json oldStatus = member(owner, "status").is_object() ? owner["status"] : json::object();
  json status = oldStatus;
  status["observedGeneration"] = generation;
  auto event = [&](EventType type, const std::string& reason, const std::string& message) {
    events_.event(owner, type, reason, message);
  };

  auto writeStatus = [&]() -> common::Status {
    if (status == oldStatus) return common::Status();
    common::Status last;
    for (int attempt = 0; attempt < kStatusAttempts; ++attempt) {
      common::Result<json> fresh = client_.get(kBenchmarkSchedules, ns, name);
      if (!fresh.isOk()) return fresh.status().isNotFound() ? common::Status() : fresh.status();
      json object = std::move(fresh).value();
      if (stringMember(member(object, "metadata"), "uid") != stringMember(meta, "uid"))
        return common::Status();  // deleted and made anew: the new one gets its own reconcile
      object["status"] = status;
      common::Result<json> written = client_.updateStatus(kBenchmarkSchedules, ns, object);
      if (written.isOk() || written.status().isNotFound()) return common::Status();
      last = written.status();
      if (!last.isConflict()) return last;
    }
    return last;
  };

  common::Result<schedule::ScheduleSpec> parsed =
      schedule::parseScheduleSpec(member(owner, "spec"));
  if (!parsed.isOk()) {
    const std::string message = detail::describeInvalid(parsed.status());
    if (conditionStatus(oldStatus, "Accepted") != "False") {
      event(EventType::kWarning, "InvalidSpec", message);
    }
    setCondition(status, "Accepted", "False", "InvalidSpec", message, now, generation);
    common::Status written = writeStatus();
    if (!written.isOk()) return written;
    return ReconcileResult{};
  }
  const schedule::ScheduleSpec& spec = parsed.value();

  std::vector<ScheduledRun> runs;
  for (const json& run : cache_.scheduledRuns(ns, name)) {
    if (controlledBy(run, stringMember(meta, "uid"))) runs.push_back(scheduledRunOf(run));
  }
  std::vector<ScheduledRun> active;
  for (const ScheduledRun& run : runs)
    if (!schedule::isFinished(run)) active.push_back(run);

  // The last slot handled: what the status says, or the newest run's slot should the status
  // lag behind a run created just before a crash; at first the schedule's creation.
  WallTime since = timeMember(meta, "creationTimestamp").value_or(now);
  const std::optional<WallTime> lastScheduled = timeMember(oldStatus, "lastScheduleTime");
  if (lastScheduled) since = std::max(since, *lastScheduled);
  for (const ScheduledRun& run : runs) {
    if (!lastScheduled || *lastScheduled < run.scheduledTime) {
      since = std::max(since, run.scheduledTime);
      status["lastScheduleTime"] = common::formatRfc3339(since);
    }
  }
  const schedule::DueSlot due =
      schedule::dueSlot(spec.cron, spec.timeZone, since, now, spec.startingDeadline);

  if (!spec.suspend && due.missed) {
    const std::optional<WallTime> reported = timeMember(oldStatus, "lastMissedTime");
    if (!reported || *reported < *due.missed) {
      event(EventType::kWarning, "MissedSchedule",
            "the slot " + common::formatRfc3339(*due.missed) + " is more than " +
                std::to_string(spec.startingDeadline->count()) +
                "s (startingDeadlineSeconds) past; it is not started");
      status["lastMissedTime"] = common::formatRfc3339(*due.missed);
    }
  }
  if (!spec.suspend && due.start) {
    const std::string slot = common::formatRfc3339(*due.start);
    if (due.skipped > 0) {
      event(EventType::kWarning, "MissedSchedule",
            (due.skipped >= schedule::kMaxCountedSlots ? "at least " : "") +
                std::to_string(due.skipped) + " slot(s) before " + slot +
                " were missed; only the latest missed slot starts");
    }
    if (spec.concurrencyPolicy == schedule::ConcurrencyPolicy::kForbid && !active.empty()) {
      event(EventType::kNormal, "RunAlreadyActive",
            "the slot " + slot + " waits: run " + active.front().name +
                " has not finished (concurrencyPolicy Forbid)");
    } else {
      if (spec.concurrencyPolicy == schedule::ConcurrencyPolicy::kReplace) {
        for (const ScheduledRun& run : active) {
          kube::DeleteOptions options;
          options.preconditionUid = run.uid;
          common::Status removed = client_.remove(kBenchmarkRuns, ns, run.name, options);
          if (!removed.isOk() && !removed.isNotFound()) return removed;
          event(
              EventType::kNormal, "ReplacedRun",
              "deleted run " + run.name + " for the slot " + slot + " (concurrencyPolicy Replace)");
        }
        active.clear();
      }
      const json run = runOf(owner, spec, *due.start);
      const std::string runName = run["metadata"]["name"];
      common::Result<json> created = client_.create(kBenchmarkRuns, ns, run);
      if (created.isOk()) {
        event(EventType::kNormal, "SuccessfulCreate",
              "created run " + runName + " for the slot " + slot);
        spdlog::info("schedule created a run schedule={}/{} run={} slot={}", ns, name, runName,
                     slot);
        ScheduledRun made = scheduledRunOf(created.value());
        made.scheduledTime = *due.start;
        active.push_back(std::move(made));
      } else if (!created.status().isAlreadyExists()) {
        event(EventType::kWarning, "FailedCreate",
              "run " + runName + " for the slot " + slot + ": " + created.status().message());
        return created.status();
      }
      status["lastScheduleTime"] = slot;
    }
  }

  json activeList = json::array();
  std::sort(active.begin(), active.end(), [](const ScheduledRun& a, const ScheduledRun& b) {
    return a.scheduledTime < b.scheduledTime;
  });
  for (const ScheduledRun& run : active) {
    activeList.push_back({{"name", run.name},
                          {"uid", run.uid},
                          {"scheduledTime", common::formatRfc3339(run.scheduledTime)}});
  }
  status["activeCount"] = activeList.size();
  status["active"] = std::move(activeList);

  const std::vector<schedule::RecentVerdict> recent =
      schedule::recentVerdicts(recentFromStatus(oldStatus), runs);
  json recentList = json::array();
  for (const schedule::RecentVerdict& v : recent) {
    recentList.push_back({{"run", v.run},
                          {"scheduledTime", common::formatRfc3339(v.scheduledTime)},
                          {"phase", v.phase},
                          {"verdict", v.verdict}});
  }
  status["recentVerdicts"] = std::move(recentList);
  if (!recent.empty()) {
    status["lastVerdict"] =
        recent.front().verdict.empty() ? recent.front().phase : recent.front().verdict;
  }
  for (const ScheduledRun& run : runs) {
    if (run.phase != "Succeeded" || !run.completionTime) continue;
    const std::optional<WallTime> known = timeMember(status, "lastSuccessfulTime");
    if (!known || *known < *run.completionTime) {
      status["lastSuccessfulTime"] = common::formatRfc3339(*run.completionTime);
      status["lastSuccessfulRun"] = run.name;
    }
  }
  std::string next = "suspended";
  if (!spec.suspend) {
    next = due.next ? "next slot " + common::formatRfc3339(*due.next) : "no further slot";
  }
  setCondition(status, "Accepted", "True", "Scheduled",
               spec.schedule + " (" + spec.timeZone.name() + "): " + next, now, generation);

  // The status names the newest slot before any run is pruned, so that a pruned run's slot is
  // never taken for one still to come.
  common::Status written = writeStatus();
  if (!written.isOk()) return written;

  for (const std::string& prune :
       schedule::runsToPrune(runs, spec.successfulRunsHistoryLimit, spec.failedRunsHistoryLimit)) {
    common::Status removed = client_.remove(kBenchmarkRuns, ns, prune, {});
    if (!removed.isOk() && !removed.isNotFound()) return removed;
    event(EventType::kNormal, "SuccessfulDelete",
          "deleted finished run " + prune + " beyond the history limits");
  }

  ReconcileResult result;
  if (!spec.suspend && due.next) {
    result.requeueAfter =
        std::max<std::chrono::nanoseconds>(*due.next - clock_.now(), std::chrono::nanoseconds(0));
  }
  return result;
}

}  // namespace hetbench::controller
