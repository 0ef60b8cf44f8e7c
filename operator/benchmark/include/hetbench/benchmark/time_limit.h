#pragma once

#include <chrono>

#include "hetbench/benchmark/policy.h"

namespace hetbench::benchmark {

/// spec.timeLimit for a running unit that started at `started`: TimedOut (TimeLimitExceeded)
/// from started + limit on, else look again then.
UnitDecision checkTimeLimit(common::WallTime started, std::chrono::nanoseconds limit,
                            common::WallTime now);

}  // namespace hetbench::benchmark
