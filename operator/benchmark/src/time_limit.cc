#include "hetbench/benchmark/time_limit.h"

#include "hetbench/common/duration.h"

namespace hetbench::benchmark {

UnitDecision checkTimeLimit(common::WallTime started, std::chrono::nanoseconds limit,
                            common::WallTime now) {
  const common::WallTime deadline = started + limit;
  if (now < deadline) return {std::nullopt, deadline};
  return {UnitEnd{UnitPhase::kTimedOut, "TimeLimitExceeded",
                  "ran longer than timeLimit " + common::formatDuration(limit) +
                      "; its workload was stopped"},
          std::nullopt};
}

std::int64_t activeDeadlineSeconds(std::chrono::nanoseconds timeLimit) {
  return std::chrono::ceil<std::chrono::seconds>(timeLimit + kDeadlineMargin).count();
}

}  // namespace hetbench::benchmark
