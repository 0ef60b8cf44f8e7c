// The units that run as batch jobs on a SlurmCluster (docs/slurm.md, "Runs on Slurm"): submitted
// through slurmrestd once (found again by their comment before any submission), followed by
// polling, stopped by cancelling, their output followed from the shared file system into the log
// directory.

#include <spdlog/spdlog.h>

#include <filesystem>

#include "hetbench/benchmark/slurm_job.h"
#include "hetbench/benchmark/suspend.h"
#include "hetbench/benchmark/time_limit.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/logs/follow.h"
#include "hetbench/logs/layout.h"
#include "pass.h"

namespace hetbench::controller::detail {
namespace {

namespace reason = benchmark::reason;

/// The container name of a Slurm job's output in the log layout.
constexpr const char* kBatchOutput = "batch";

/// The reason of the SlurmReachable condition for a failed request or connection.
std::string troubleReason(const common::Status& status) {
  if (status.isUnauthorized()) return "Unauthorized";
  if (status.isUnavailable() || status.isTimeout()) return "Unreachable";
  if (status.isNotFound()) return "NotFound";
  if (status.isInvalid()) return "InvalidSlurmCluster";
  return "SlurmError";
}

}  // namespace

bool Pass::isSlurm(const UnitRecord& unit) { return unit.workloadKind == benchmark::kSlurmJobKind; }

std::string Pass::slurmOutputName(const UnitRecord& unit) const {
  return "hetbench-" + run_.ref.uid + "-" + std::to_string(unit.trial) + "-" +
         std::to_string(unit.repetition) + ".out";
}

const SlurmConnection* Pass::slurmConnection(const std::string& cluster) {
  slurmUsed_ = true;
  auto it = slurmConnections_.find(cluster);
  if (it == slurmConnections_.end()) {
    common::Result<SlurmConnection> made =
        options_.slurm != nullptr ? options_.slurm->connect(cluster)
                                  : common::Result<SlurmConnection>(common::internalError(
                                        "this operator does not reach SlurmClusters"));
    it = slurmConnections_.emplace(cluster, std::move(made)).first;
  }
  if (!it->second.isOk()) {
    slurmTrouble(it->second.status());
    return nullptr;
  }
  return &it->second.value();
}

void Pass::slurmTrouble(const common::Status& status) {
  if (!slurmTrouble_) slurmTrouble_ = status;
  // Slurm is asked again soon: nothing else brings the run back.
  deadlines_.note(now_ + options_.slurmPollInterval);
}

void Pass::followSlurmOutput(const UnitRecord& unit, const SlurmConnection& connection) {
  if (options_.logDir.empty()) return;
  const std::filesystem::path source =
      std::filesystem::path(connection.spec.output.operatorPath) / slurmOutputName(unit);
  const std::filesystem::path kept =
      options_.logDir /
      logs::LogLayout::containerLog(logDirOf(unit), unit.workloadName, kBatchOutput);
  common::Result<std::uint64_t> copied = logs::followFile(source, kept, options_.logMaxBytes);
  if (!copied.isOk() && !copied.status().isNotFound()) {
    spdlog::warn("run {}/{}: the output of {}: {}", run_.ref.ns, run_.ref.name, unitLabel(unit),
                 copied.status().message());
  }
}

common::Status Pass::startSlurm(UnitRecord& unit, const benchmark::RenderedUnit& r) {
  const benchmark::SlurmJobPlan& plan = *r.slurm;
  const SlurmConnection* connection = slurmConnection(plan.cluster);
  if (connection == nullptr) return common::Status();  // waits: the condition says why
  unit.logDir = logDirOf(unit);
  unit.workloadKind = std::string(benchmark::kSlurmJobKind);
  unit.workloadName = r.name;
  unit.slurmCluster = plan.cluster;

  // Submitted before, by a pass whose status write was lost or whose answer never came: the
  // job is found by its comment and adopted, never submitted again.
  auto listed = slurmJobs_.find(plan.cluster);
  if (listed == slurmJobs_.end()) {
    common::Result<std::vector<slurm::JobInfo>> jobs = connection->api->jobs();
    if (!jobs.isOk()) {
      slurmTrouble(jobs.status());
      unit.workloadKind.clear();
      unit.workloadName.clear();
      return common::Status();
    }
    listed = slurmJobs_.emplace(plan.cluster, std::move(jobs).value()).first;
  }
  for (const slurm::JobInfo& job : listed->second) {
    if (job.comment != plan.request.comment) continue;
    unit.slurmJobId = job.id;
    unit.phase = UnitPhase::kRunning;
    unit.startTime = job.submitTime.value_or(now_);
    deadlines_.note(now_ + options_.slurmPollInterval);
    return common::Status();
  }
  const std::filesystem::path output =
      std::filesystem::path(connection->spec.output.operatorPath) / slurmOutputName(unit);
  std::error_code ec;
  if (std::filesystem::exists(output, ec)) {
    // A job wrote it, and slurmctld no longer knows the job: it ended while no operator looked.
    followSlurmOutput(unit, *connection);
    finish(unit, {UnitPhase::kFailed, std::string(reason::kJobLost),
                  "slurmctld knows no job of this unit, but its output " + output.string() +
                      " exists: the job ended while the operator could not look, and is not "
                      "submitted again; its output is kept"});
    return common::Status();
  }

  slurm::JobRequest request = plan.request;
  const std::string root = connection->spec.output.slurmPath;
  request.workingDirectory = root;
  request.standardOutput = root + "/" + slurmOutputName(unit);
  if (request.partition.empty()) request.partition = connection->spec.partition;
  if (request.account.empty()) request.account = connection->spec.account;
  if (request.qos.empty()) request.qos = connection->spec.qos;
  keepManifest(unit, r);
  common::Result<slurm::Submitted> submitted = connection->api->submit(request);
  if (submitted.status().isInvalid()) {
    finish(unit,
           {UnitPhase::kFailed, std::string(reason::kSubmitRefused),
            "SlurmCluster " + plan.cluster + " refused the job: " + submitted.status().message()});
    return common::Status();
  }
  if (!submitted.isOk()) {
    // The job may exist: the next pass looks for it before it submits.
    slurmTrouble(submitted.status());
    unit.workloadKind.clear();
    unit.workloadName.clear();
    return common::Status();
  }
  unit.slurmJobId = submitted->id;
  unit.phase = UnitPhase::kRunning;
  unit.startTime = now_;
  std::string warnings;
  for (const std::string& w : submitted->warnings) warnings += "; " + w;
  event(EventType::kNormal, reason::kSubmitted,
        "submitted Slurm job " + std::to_string(submitted->id) + " (" + r.name + ") for " +
            unitLabel(unit) + " to SlurmCluster " + plan.cluster +
            (request.partition.empty() ? "" : " partition " + request.partition) + warnings);
  deadlines_.note(now_ + options_.slurmPollInterval);
  return common::Status();
}

void Pass::advanceSlurm(UnitRecord& unit) {
  const SlurmConnection* connection = slurmConnection(unit.slurmCluster);
  if (connection == nullptr) return;
  common::Result<slurm::JobInfo> job = connection->api->job(unit.slurmJobId);
  if (job.status().isNotFound()) {
    followSlurmOutput(unit, *connection);
    finish(unit, {UnitPhase::kFailed, std::string(reason::kJobLost),
                  "slurmctld no longer knows Slurm job " + std::to_string(unit.slurmJobId) +
                      ": it ended while the operator could not look; its output is kept"});
    return;
  }
  if (!job.isOk()) {
    slurmTrouble(job.status());
    return;
  }
  if (!job->nodes.empty()) unit.nodes = {job->nodes};
  followSlurmOutput(unit, *connection);
  if (std::optional<benchmark::UnitEnd> end = benchmark::slurmJobEnd(*job)) {
    finish(unit, *end);
    deadlines_.note(now_);  // measured by the pass after the end is recorded
    return;
  }
  std::optional<benchmark::UnitEnd> end =
      benchmark::checkSuspend(accepted_.spec.suspend, unit.phase);
  if (!end && job->state == slurm::JobState::kPending) {
    const benchmark::UnitDecision start = benchmark::checkSlurmStart(
        *job, unit.startTime.value_or(now_), accepted_.spec.startTimeout, now_);
    end = start.end;
    deadlines_.note(start.recheckAt);
  } else if (!end && job->startTime) {
    const benchmark::UnitDecision limit =
        benchmark::checkTimeLimit(*job->startTime, accepted_.spec.timeLimit, now_);
    end = limit.end;
    deadlines_.note(limit.recheckAt);
  }
  if (end) {
    if (common::Status cancelled = connection->api->cancel(unit.slurmJobId);
        !cancelled.isOk() && !cancelled.isNotFound()) {
      slurmTrouble(cancelled);
      return;  // ended once the cancellation is sent
    }
    finish(unit, *end);
    return;
  }
  deadlines_.note(now_ + options_.slurmPollInterval);
}

void Pass::cleanUpSlurm(UnitRecord& unit, bool endRecorded) {
  if (!benchmark::isTerminal(unit.phase) || !endRecorded || options_.logDir.empty() ||
      !benchmark::awaitsMetrics(unit)) {
    return;
  }
  if (const SlurmConnection* connection = slurmConnection(unit.slurmCluster)) {
    followSlurmOutput(unit, *connection);
  }
  measure(unit, "");
}

common::Status Pass::cancelSlurmJobs() {
  for (const UnitRecord& unit : run_.status.trials) {
    if (!isSlurm(unit) || unit.slurmJobId == 0 || !benchmark::inFlight(unit.phase)) continue;
    const SlurmConnection* connection = slurmConnection(unit.slurmCluster);
    if (connection == nullptr) {
      // A SlurmCluster, Secret or key that is gone will not come back by waiting: the run goes,
      // and its job ends at its time limit.
      if (slurmTrouble_->isNotFound()) {
        event(EventType::kWarning, reason::kSlurmUnreachable,
              "Slurm job " + std::to_string(unit.slurmJobId) + " of " + unitLabel(unit) +
                  " is not cancelled: " + slurmTrouble_->message());
        continue;
      }
      return *slurmTrouble_;
    }
    common::Status cancelled = connection->api->cancel(unit.slurmJobId);
    if (!cancelled.isOk() && !cancelled.isNotFound()) return cancelled;
  }
  return common::Status();
}

void Pass::noteSlurm(benchmark::RunStatus& status) {
  if (!slurmUsed_) return;
  const bool ok = !slurmTrouble_.has_value();
  const std::string before = benchmark::conditionStatus(status.conditions, "SlurmReachable");
  const std::string why = ok ? "Reachable" : troubleReason(*slurmTrouble_);
  const std::string message = ok ? "slurmrestd answers" : slurmTrouble_->message();
  benchmark::setCondition(status.conditions, "SlurmReachable", ok ? "True" : "False", why, message,
                          now_, run_.generation);
  if (!ok && before != "False") {
    event(EventType::kWarning, reason::kSlurmUnreachable, message);
  }
}

}  // namespace hetbench::controller::detail
