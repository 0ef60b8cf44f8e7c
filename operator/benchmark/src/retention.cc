#include "hetbench/benchmark/retention.h"

#include <algorithm>
#include <tuple>

namespace hetbench::benchmark {
namespace {

// failedAt + retainFor, saturating: a retention too long to represent never expires (max).
common::WallTime expiryOf(common::WallTime failedAt, std::chrono::nanoseconds retainFor) {
  const auto keep = std::max(std::chrono::duration_cast<common::WallTime::duration>(retainFor),
                             common::WallTime::duration::zero());
  if (failedAt > common::WallTime::max() - keep) return common::WallTime::max();
  return failedAt + keep;
}

}  // namespace

RetentionPlan planRetention(std::vector<RetainedWorkload> retained, common::WallTime now,
                            const Cleanup& cleanup) {
  // Oldest first; equal times in name order.
  std::sort(retained.begin(), retained.end(),
            [](const RetainedWorkload& a, const RetainedWorkload& b) {
              return std::tie(a.failedAt, a.name) < std::tie(b.failedAt, b.name);
            });
  const auto count = static_cast<std::int64_t>(retained.size());
  const auto surplus =
      static_cast<std::size_t>(count - std::clamp(cleanup.maxRetained, std::int64_t{0}, count));
  RetentionPlan plan;
  for (std::size_t i = 0; i < retained.size(); ++i) {
    const common::WallTime expiry = expiryOf(retained[i].failedAt, cleanup.retainFor);
    if (i < surplus || expiry <= now) {
      plan.remove.push_back(retained[i].name);
    } else if (expiry != common::WallTime::max() &&
               (!plan.nextExpiry || expiry < *plan.nextExpiry)) {
      plan.nextExpiry = expiry;
    }
  }
  return plan;
}

}  // namespace hetbench::benchmark
