#include "hetbench/benchmark/start_timeout.h"

#include "hetbench/common/duration.h"

namespace hetbench::benchmark {

UnitDecision checkStartTimeout(common::WallTime started, std::chrono::nanoseconds timeout,
                               const StartCheck& check, common::WallTime now) {
  if (check.started) return {};
  const common::WallTime deadline = started + timeout;
  if (now < deadline) return {std::nullopt, deadline};
  return {UnitEnd{UnitPhase::kFailed, check.reason.empty() ? "StartTimeout" : check.reason,
                  "not started within startTimeout " + common::formatDuration(timeout) +
                      (check.message.empty() ? "" : ": " + check.message)},
          std::nullopt};
}

}  // namespace hetbench::benchmark
