#pragma once

#include <chrono>
#include <cstdint>

#include "hetbench/benchmark/policy.h"

namespace hetbench::benchmark {

/// spec.timeLimit for a running unit that started at `started`: TimedOut (TimeLimitExceeded)
/// from started + limit on, else look again then.
UnitDecision checkTimeLimit(common::WallTime started, std::chrono::nanoseconds limit,
                            common::WallTime now);

/// How much longer than timeLimit the cluster itself lets a workload run: long enough that the
/// operator, while it is up, always stops the workload first.
inline constexpr std::chrono::minutes kDeadlineMargin{1};

/// activeDeadlineSeconds for a unit's workload, the cluster's own bound for when the operator is
/// down: timeLimit rounded up to a whole second, plus kDeadlineMargin.
std::int64_t activeDeadlineSeconds(std::chrono::nanoseconds timeLimit);

}  // namespace hetbench::benchmark
