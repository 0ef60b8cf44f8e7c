#include "hetbench/benchmark/cleanup.h"

namespace hetbench::benchmark {

bool keepsWorkload(UnitPhase phase, const Cleanup& policy) {
  return (phase == UnitPhase::kSucceeded && policy.onSuccess == CleanupAction::kRetain) ||
         (isFailure(phase) && policy.onFailure == CleanupAction::kRetain);
}

CleanupDecision decideCleanup(const CleanupInput& in, const Cleanup& policy, common::WallTime now) {
  if (!isTerminal(in.phase)) return {};
  if (!in.endRecorded) return {CleanupStep::kWaitForStatus, now};
  if (!in.workloadExists) return {};
  if (!keepsWorkload(in.phase, policy)) {
    if (in.phase != UnitPhase::kCancelled && !in.workloadRunning && !in.logsEnded)
      return {CleanupStep::kWaitForLogs, now + kLogRecheck};
    return {CleanupStep::kDelete, std::nullopt};
  }
  if (!isFailure(in.phase)) return {};
  return {in.workloadRunning ? CleanupStep::kStopAndRetain : CleanupStep::kRetain, std::nullopt};
}

}  // namespace hetbench::benchmark
