#pragma once

#include <chrono>
#include <optional>

#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/clock.h"

namespace hetbench::benchmark {

/// What an ended unit's workload needs.
enum class CleanupStep {
  kNone,           // running, already gone or being deleted, or kept as it is
  kWaitForStatus,  // the unit's end is not in the written status yet: touch nothing
  kWaitForLogs,    // its pods go once their logs are complete on disk
  kDelete,         // delete the workload (and its pods)
  kStopAndRetain,  // stop what still runs (a Job is suspended, else deleted), keep the object
  kRetain,         // keep the finished workload, labelled as retained
};

/// What is known of an ended unit and its workload in this pass.
struct CleanupInput {
  UnitPhase phase = UnitPhase::kPending;
  bool endRecorded = false;      // the unit's end is in the status the pass read
  bool logsEnded = true;         // every pod's log streams ended (true when logs are not kept)
  bool workloadExists = false;   // seen, and not being deleted
  bool workloadRunning = false;  // neither ended by itself nor stopped
};

struct CleanupDecision {
  CleanupStep step = CleanupStep::kNone;
  std::optional<common::WallTime> recheckAt;

  bool operator==(const CleanupDecision&) const = default;
};

/// Whether cleanup.onSuccess or onFailure keeps the workload of a unit that ended in `phase`.
bool keepsWorkload(UnitPhase phase, const Cleanup& policy);

/// cleanup.onSuccess and onFailure for an ended unit: workloads are stopped or deleted only once
/// the unit's end is in the status (a pass whose status write is lost must not leave a Running
/// unit whose workload it deleted); a workload to delete that ended by itself waits for its
/// logs, while one that still runs (the unit timed out, never started or was cancelled) is
/// deleted at once, its logs ending as its pods go; a failed unit's workload to keep is stopped
/// first if it still runs and is then labelled. Waiting steps look again at `now` (status) or a
/// second later (logs).
CleanupDecision decideCleanup(const CleanupInput& in, const Cleanup& policy, common::WallTime now);

/// How long a unit waiting for its logs waits before the next look.
inline constexpr std::chrono::seconds kLogRecheck{1};

/// How long the logs of an ended unit may take to end before they are given up as incomplete
/// (a half-open connection, a kubelet that keeps failing for a pod on a lost node).
inline constexpr std::chrono::minutes kLogGrace{2};

/// Whether to give up on the logs of a unit that ended at `endedAt`, still not ended at `now`.
inline bool logsOverdue(common::WallTime endedAt, common::WallTime now) {
  return now - endedAt >= kLogGrace;
}

}  // namespace hetbench::benchmark
