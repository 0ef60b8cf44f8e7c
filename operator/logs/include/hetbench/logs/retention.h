#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"

namespace hetbench::logs {

/// What is known of the run whose logs a directory keeps.
enum class RunState {
  kActive,    // the run exists and has not finished
  kFinished,  // the run exists and has finished; `since`: its completion time
  kGone,      // no run of that uid exists; `since`: when that was first seen
  kUnknown,   // not a run the operator watches (another namespace, or files of no run)
};

/// One run's logs on disk.
struct KeptRun {
  std::uint64_t bytes = 0;
  RunState state = RunState::kUnknown;
  std::optional<common::WallTime> since;  // none: as old as can be
};

struct RetentionPolicy {
  /// How long a run's logs stay after the run is gone (0: at the next sweep).
  std::chrono::nanoseconds afterDeletion{std::chrono::hours(24 * 7)};
  /// The most bytes the log directory may keep (0: no bound).
  std::uint64_t maxBytes = 0;
};

enum class PruneReason { kRetention, kSize };
/// "retention", "size": the label of hetbench_log_pruned_runs_total.
std::string_view toString(PruneReason reason);

struct Prune {
  std::size_t run;  // index into the runs given
  PruneReason reason;
};

/// Which runs' logs to delete, and why: those gone for `afterDeletion`; then, while the rest is
/// over `maxBytes`, gone runs before finished ones, the oldest `since` first. The logs of an
/// active run, and files of no known run, are never deleted, even over the bound.
std::vector<Prune> planPruning(const std::vector<KeptRun>& runs, common::WallTime now,
                               const RetentionPolicy& policy);

}  // namespace hetbench::logs
