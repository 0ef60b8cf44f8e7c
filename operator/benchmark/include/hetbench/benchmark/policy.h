#pragma once

// What the lifecycle policies (time_limit.h, start_timeout.h, suspend.h, cleanup.h) decide
// about one unit; the reconciler's pass only carries the decisions out.

#include <optional>
#include <string>

#include "hetbench/benchmark/run.h"
#include "hetbench/common/clock.h"

namespace hetbench::benchmark {

/// How a unit ends: its phase, reason and message as status.trials[] records them.
struct UnitEnd {
  UnitPhase phase = UnitPhase::kFailed;
  std::string reason;
  std::string message;

  bool operator==(const UnitEnd&) const = default;
};

/// A policy's answer for a unit: end it now, or when to look again (neither: nothing to do).
struct UnitDecision {
  std::optional<UnitEnd> end;
  std::optional<common::WallTime> recheckAt;

  bool operator==(const UnitDecision&) const = default;
};

}  // namespace hetbench::benchmark
