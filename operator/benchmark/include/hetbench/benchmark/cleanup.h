#pragma once

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
  bool logsComplete = true;      // every pod's log streams ended (true when logs are not kept)
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
/// unit whose workload it deleted); a workload to delete waits for its logs unless the unit was
/// cancelled; a failed unit's workload to keep is stopped first if it still runs (it timed out
/// or never started) and is then labelled. Waiting steps look again at `now` (status) or a
/// second later (logs).
CleanupDecision decideCleanup(const CleanupInput& in, const Cleanup& policy, common::WallTime now);

}  // namespace hetbench::benchmark
