#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/schedule/cron.h"

namespace hetbench::schedule {

/// Older missed slots are counted up to this many; beyond it the count says "at least".
inline constexpr std::int64_t kMaxCountedSlots = 100;

/// What a schedule has to do at one moment, decided as the CronJob controller decides it.
struct DueSlot {
  /// The slot whose run to create now: the latest slot after `since` and not after `now`, when
  /// it is within the starting deadline.
  std::optional<common::WallTime> start;
  /// The latest slot, when it is past the starting deadline: reported as missed, not started.
  std::optional<common::WallTime> missed;
  /// Slots after `since` and before the latest one that nothing will start (CronJob starts only
  /// the latest missed slot); at most kMaxCountedSlots.
  std::int64_t skipped = 0;
  /// The first slot after `now`: when to look again.
  std::optional<common::WallTime> next;
};

/// `since` is the last slot a run was created for, or the schedule's creation; `deadline` is
/// startingDeadlineSeconds (a slot later than that after its time is missed).
DueSlot dueSlot(const CronSchedule& schedule, const TimeZone& zone, common::WallTime since,
                common::WallTime now, std::optional<std::chrono::seconds> deadline);

/// The deterministic name of the run of one slot, as CronJob names its Jobs: the schedule's name
/// and the slot's minutes since the Unix epoch (`nightly-29922360`). Two creations for one slot
/// collide on the name, so a slot never gets two runs, across restarts too.
std::string runName(const std::string& scheduleName, common::WallTime slot);

}  // namespace hetbench::schedule
