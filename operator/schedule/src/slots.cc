#include "hetbench/schedule/slots.h"

namespace hetbench::schedule {

DueSlot dueSlot(const CronSchedule& schedule, const TimeZone& zone, common::WallTime since,
                common::WallTime now, std::optional<std::chrono::seconds> deadline) {
  DueSlot due;
  due.next = nextTime(schedule, zone, now);
  const std::optional<common::WallTime> latest = previousTime(schedule, zone, now);
  if (!latest || *latest <= since) return due;
  if (deadline && *latest + *deadline < now) {
    due.missed = latest;
  } else {
    due.start = latest;
  }
  for (std::optional<common::WallTime> t = nextTime(schedule, zone, since);
       t && *t < *latest && due.skipped < kMaxCountedSlots; t = nextTime(schedule, zone, *t)) {
    ++due.skipped;
  }
  return due;
}

std::string runName(const std::string& scheduleName, common::WallTime slot) {
  const auto minutes = std::chrono::floor<std::chrono::minutes>(slot.time_since_epoch()).count();
  return scheduleName + "-" + std::to_string(minutes);
}

}  // namespace hetbench::schedule
