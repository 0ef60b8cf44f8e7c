#include "hetbench/logs/retention.h"

#include <algorithm>

namespace hetbench::logs {

std::string_view toString(PruneReason reason) {
  return reason == PruneReason::kRetention ? "retention" : "size";
}

std::vector<Prune> planPruning(const std::vector<KeptRun>& runs, common::WallTime now,
                               const RetentionPolicy& policy) {
  std::vector<Prune> out;
  std::vector<bool> pruned(runs.size(), false);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const KeptRun& run = runs[i];
    if (run.state == RunState::kGone && (!run.since || *run.since + policy.afterDeletion <= now)) {
      out.push_back({i, PruneReason::kRetention});
      pruned[i] = true;
    } else {
      total += run.bytes;
    }
  }
  if (policy.maxBytes == 0 || total <= policy.maxBytes) return out;

  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunState state = runs[i].state;
    if (!pruned[i] && (state == RunState::kGone || state == RunState::kFinished))
      candidates.push_back(i);
  }
  // Gone before finished; within each, the oldest first (no time: oldest of all).
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    const KeptRun& x = runs[a];
    const KeptRun& y = runs[b];
    if (x.state != y.state) return x.state == RunState::kGone;
    return x.since.value_or(common::WallTime::min()) < y.since.value_or(common::WallTime::min());
  });
  for (std::size_t i : candidates) {
    if (total <= policy.maxBytes) break;
    out.push_back({i, PruneReason::kSize});
    total -= runs[i].bytes;
  }
  return out;
}

}  // namespace hetbench::logs
