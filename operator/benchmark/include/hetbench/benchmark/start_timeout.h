#pragma once

#include <chrono>

#include "hetbench/benchmark/completion.h"
#include "hetbench/benchmark/policy.h"

namespace hetbench::benchmark {

/// spec.startTimeout for a running unit that started at `started` and whose pods stand as
/// `check` says: nothing once they started; Failed from started + timeout on, with the stuck
/// pods' reason (StartTimeout when none is stuck); else look again then.
UnitDecision checkStartTimeout(common::WallTime started, std::chrono::nanoseconds timeout,
                               const StartCheck& check, common::WallTime now);

}  // namespace hetbench::benchmark
