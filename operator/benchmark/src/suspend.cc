#include "hetbench/benchmark/suspend.h"

namespace hetbench::benchmark {

std::optional<UnitEnd> checkSuspend(bool suspended, UnitPhase phase) {
  if (!suspended) return std::nullopt;
  if (inFlight(phase))
    return UnitEnd{UnitPhase::kCancelled, "Suspended",
                   "the run was suspended; its workload was stopped"};
  if (phase == UnitPhase::kPending)
    return UnitEnd{UnitPhase::kCancelled, "Suspended", "the run was suspended before it started"};
  return std::nullopt;
}

}  // namespace hetbench::benchmark
