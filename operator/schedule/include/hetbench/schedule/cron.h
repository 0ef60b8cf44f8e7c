#pragma once

#include <bitset>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"

namespace hetbench::schedule {

/// A parsed five-field cron expression (minute hour day-of-month month day-of-week), with the
/// syntax and meaning of Kubernetes CronJob schedules: `*` and `?`, lists (`1,15`), ranges
/// (`1-5`), steps (`*/15`, `10-40/10`, `5/20` meaning `5-59/20`), month names `JAN`-`DEC` and day
/// names `SUN`-`SAT` (any case), days of the week 0-6 from Sunday, and the macros `@yearly`
/// (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly`. When both the
/// day of the month and the day of the week are restricted (neither is `*` or `?`), a day that
/// matches either is scheduled, as in Vixie cron; otherwise both must match.
struct CronSchedule {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> daysOfMonth;  // 1-31
  std::bitset<13> months;       // 1-12
  std::bitset<7> daysOfWeek;    // 0-6, Sunday = 0
  bool anyDayOfMonth = false;   // the field was `*` or `?`
  bool anyDayOfWeek = false;

  bool operator==(const CronSchedule&) const = default;
};

/// Parses a schedule; Invalid with a message naming the field and the problem (`hour: 24 is
/// above the maximum 23`), as CronJob refuses it. `TZ=` and `CRON_TZ=` prefixes are refused:
/// the time zone is a field of its own.
common::Result<CronSchedule> parseCron(std::string_view expression);

/// An IANA time zone read from the system's tz database (Debian's tzdata), or UTC.
class TimeZone {
 public:
  /// UTC.
  TimeZone();
  /// `name` such as "Europe/London"; "" and "UTC" are UTC. Invalid when the database does not
  /// know it.
  static common::Result<TimeZone> load(const std::string& name);
  const std::string& name() const { return name_; }

 private:
  friend class SlotSearch;
  std::string name_;
  const void* zone_ = nullptr;  // the database's zone; nullptr for UTC
};

/// The first scheduled instant strictly after `after`, reading the schedule as wall-clock time
/// in `zone`; nullopt when there is none within five years (`0 0 30 2 *`). Daylight saving:
/// a wall time that does not exist (skipped when clocks go forward) is scheduled once, at the
/// instant the clocks jump; a wall time that happens twice (when they go back) is scheduled
/// once, at its first occurrence.
std::optional<common::WallTime> nextTime(const CronSchedule& schedule, const TimeZone& zone,
                                         common::WallTime after);

/// The last scheduled instant at or before `notAfter` (by the same rules), nullopt when there
/// is none within five years.
std::optional<common::WallTime> previousTime(const CronSchedule& schedule, const TimeZone& zone,
                                             common::WallTime notAfter);

}  // namespace hetbench::schedule
