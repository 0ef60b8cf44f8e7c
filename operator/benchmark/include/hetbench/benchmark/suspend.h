#pragma once

#include <optional>

#include "hetbench/benchmark/policy.h"

namespace hetbench::benchmark {

/// spec.suspend: a suspended run's pending and running units end Cancelled (Suspended), the
/// running ones with their workload stopped; nothing otherwise, and never for an ended unit.
std::optional<UnitEnd> checkSuspend(bool suspended, UnitPhase phase);

}  // namespace hetbench::benchmark
