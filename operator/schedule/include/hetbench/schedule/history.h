#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"

namespace hetbench::schedule {

/// A BenchmarkRun that a schedule created, as the schedule sees it.
struct ScheduledRun {
  std::string name;
  std::string uid;
  common::WallTime scheduledTime;
  /// status.phase: "" (not yet reconciled), Pending, Running, Succeeded, Failed or Cancelled.
  std::string phase;
  std::optional<common::WallTime> completionTime;
  /// status.verdict, "" until the run has results.
  std::string verdict;
  /// The run still keeps failed workloads for inspection (until its own retainFor).
  bool retainsWorkloads = false;
};

/// Succeeded, Failed and Cancelled runs have finished.
bool isFinished(const ScheduledRun& run);
/// Failed and Cancelled runs count against failedRunsHistoryLimit, Succeeded ones against
/// successfulRunsHistoryLimit.
bool isFailed(const ScheduledRun& run);

/// The finished runs to delete: of each kind the oldest (by scheduled time, then name) beyond
/// its limit, as CronJob prunes its Jobs, except failed runs that still keep workloads for
/// inspection: they stay until their retention ends, so that history limits never cut a
/// retained failure's time short.
std::vector<std::string> runsToPrune(const std::vector<ScheduledRun>& runs,
                                     std::int64_t successfulLimit, std::int64_t failedLimit);

/// How many finished runs status.recentVerdicts lists.
inline constexpr std::size_t kRecentVerdicts = 10;

struct RecentVerdict {
  std::string run;
  common::WallTime scheduledTime;
  std::string phase;
  std::string verdict;

  bool operator==(const RecentVerdict&) const = default;
};

/// The newest kRecentVerdicts finished runs, newest first: those listed before (runs may have
/// been pruned since) merged with the finished runs that exist now, which win for the same run.
std::vector<RecentVerdict> recentVerdicts(const std::vector<RecentVerdict>& before,
                                          const std::vector<ScheduledRun>& runs);

}  // namespace hetbench::schedule
