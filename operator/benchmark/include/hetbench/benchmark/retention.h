#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/spec.h"
#include "hetbench/common/clock.h"

namespace hetbench::benchmark {

/// A failed unit's workload kept for inspection.
struct RetainedWorkload {
  std::string name;
  common::WallTime failedAt;
};

struct RetentionPlan {
  std::vector<std::string> remove;             // expired or beyond maxRetained
  std::optional<common::WallTime> nextExpiry;  // of the ones kept, the earliest
};

/// Which retained workloads go now: those failed retainFor ago or longer, and beyond the
/// maxRetained newest, the oldest (ties broken by name, so the answer is repeatable).
RetentionPlan planRetention(std::vector<RetainedWorkload> retained, common::WallTime now,
                            const Cleanup& cleanup);

}  // namespace hetbench::benchmark
