#include "hetbench/schedule/cron.h"

#include <gtest/gtest.h>

#include "hetbench/common/time.h"

namespace hetbench::schedule {
namespace {

common::WallTime at(const std::string& rfc3339) {
  common::Result<common::WallTime> t = common::parseRfc3339(rfc3339);
  EXPECT_TRUE(t.isOk()) << rfc3339;
  return t.isOk() ? t.value() : common::WallTime();
}

std::string next(const std::string& expression, const std::string& after,
                 const std::string& zone = "UTC") {
  common::Result<CronSchedule> schedule = parseCron(expression);
  if (!schedule.isOk()) return "invalid: " + schedule.status().message();
  common::Result<TimeZone> tz = TimeZone::load(zone);
  if (!tz.isOk()) return "invalid: " + tz.status().message();
  std::optional<common::WallTime> t = nextTime(schedule.value(), tz.value(), at(after));
  return t ? common::formatRfc3339(*t) : "never";
}

TEST(CronTest, NextTimes) {
  struct Row {
    const char* expression;
    const char* after;
    const char* want;
  };
  const Row rows[] = {
      {"* * * * *", "2026-11-22T10:00:00Z", "2026-11-22T10:01:00Z"},
      {"* * * * *", "2026-11-22T10:00:30Z", "2026-11-22T10:01:00Z"},
      {"*/15 * * * *", "2026-11-22T10:07:00Z", "2026-11-22T10:15:00Z"},
      {"*/15 * * * *", "2026-11-22T10:45:00Z", "2026-11-22T11:00:00Z"},
      {"10-40/10 * * * *", "2026-11-22T10:35:00Z", "2026-11-22T10:40:00Z"},
      {"10-40/10 * * * *", "2026-11-22T10:40:00Z", "2026-11-22T11:10:00Z"},
      {"5/20 * * * *", "2026-11-22T10:26:00Z", "2026-11-22T10:45:00Z"},
      {"0 3 * * *", "2026-11-22T03:00:00Z", "2026-11-23T03:00:00Z"},
      {"0 0,12 * * *", "2026-11-22T01:00:00Z", "2026-11-22T12:00:00Z"},
      {"30 2 1 * *", "2026-11-22T00:00:00Z", "2026-12-01T02:30:00Z"},
      {"0 0 1 jan *", "2026-11-22T00:00:00Z", "2027-01-01T00:00:00Z"},
      {"0 0 * * MON", "2026-11-22T00:00:00Z", "2026-11-23T00:00:00Z"},  // the 22nd is a Sunday
      {"0 0 * * sat,sun", "2026-11-23T00:00:00Z", "2026-11-28T00:00:00Z"},
      {"0 0 * FEB-MAR ?", "2026-11-22T00:00:00Z", "2027-02-01T00:00:00Z"},
      {"0 0 29 2 *", "2026-11-22T00:00:00Z", "2028-02-29T00:00:00Z"},
      {"0 0 30 2 *", "2026-11-22T00:00:00Z", "never"},
      // Day of month and day of week both restricted: either matches (Vixie cron).
      {"0 0 13 * 5", "2026-11-22T00:00:00Z", "2026-11-27T00:00:00Z"},
      {"0 0 1 * MON", "2026-11-24T00:00:00Z", "2026-11-30T00:00:00Z"},
      // One of them `*`: both must match.
      {"0 0 13 * *", "2026-11-22T00:00:00Z", "2026-12-13T00:00:00Z"},
      {"0 0 */2 * 1", "2026-11-22T00:00:00Z", "2026-11-23T00:00:00Z"},  // */2 restricts
      {"@hourly", "2026-11-22T10:59:59Z", "2026-11-22T11:00:00Z"},
      {"@daily", "2026-11-22T10:00:00Z", "2026-11-23T00:00:00Z"},
      {"@midnight", "2026-11-22T10:00:00Z", "2026-11-23T00:00:00Z"},
      {"@weekly", "2026-11-22T10:00:00Z", "2026-11-29T00:00:00Z"},
      {"@monthly", "2026-11-22T10:00:00Z", "2026-12-01T00:00:00Z"},
      {"@yearly", "2026-11-22T10:00:00Z", "2027-01-01T00:00:00Z"},
      {"@annually", "2026-11-22T10:00:00Z", "2027-01-01T00:00:00Z"},
      {"  0   6  *  *  1-5 ", "2026-11-21T07:00:00Z", "2026-11-23T06:00:00Z"},
  };
  for (const Row& row : rows)
    EXPECT_EQ(next(row.expression, row.after), row.want)
        << row.expression << " after " << row.after;
}

TEST(CronTest, TimeZonesAndDaylightSaving) {
  struct Row {
    const char* expression;
    const char* zone;
    const char* after;
    const char* want;
  };
  const Row rows[] = {
      // 03:00 in London is 03:00 UTC in winter and 02:00 UTC in summer.
      {"0 3 * * *", "Europe/London", "2026-11-22T00:00:00Z", "2026-11-22T03:00:00Z"},
      {"0 3 * * *", "Europe/London", "2026-07-01T00:00:00Z", "2026-07-01T02:00:00Z"},
      {"0 9 * * *", "Asia/Kolkata", "2026-11-22T00:00:00Z", "2026-11-22T03:30:00Z"},
      {"0 9 * * *", "America/New_York", "2026-11-22T00:00:00Z", "2026-11-22T14:00:00Z"},
      // Spring forward (London, 2026-03-29 01:00 UTC: 01:00 local becomes 02:00): 01:30 local
      // does not exist that day and runs once, when the clocks jump.
      {"30 1 * * *", "Europe/London", "2026-03-28T02:00:00Z", "2026-03-29T01:00:00Z"},
      {"30 1 * * *", "Europe/London", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"},
      {"*/20 1 * * *", "Europe/London", "2026-03-29T00:50:00Z", "2026-03-29T01:00:00Z"},
      {"*/20 1,2 * * *", "Europe/London", "2026-03-29T01:00:00Z", "2026-03-29T01:20:00Z"},
      // Fall back (London, 2026-10-25 01:00 UTC: 02:00 local becomes 01:00): 01:30 local happens
      // twice and runs once, at its first occurrence (00:30 UTC).
      {"30 1 * * *", "Europe/London", "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z"},
      {"30 1 * * *", "Europe/London", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"},
      {"0 * * * *", "Europe/London", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z"},
      // New York springs forward at 02:00 local on 2026-03-08 (07:00 UTC).
      {"30 2 * * *", "America/New_York", "2026-03-08T00:00:00Z", "2026-03-08T07:00:00Z"},
      {"0 12 * * *", "UTC", "2026-03-08T00:00:00Z", "2026-03-08T12:00:00Z"},
      {"0 12 * * *", "", "2026-03-08T00:00:00Z", "2026-03-08T12:00:00Z"},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(next(row.expression, row.after, row.zone), row.want)
        << row.expression << " in " << row.zone << " after " << row.after;
  }
}

TEST(CronTest, Rejections) {
  struct Row {
    const char* expression;
    const char* message;
  };
  const Row rows[] = {
      {"", "want 5 fields (minute hour day-of-month month day-of-week), found 0"},
      {"* * * *", "want 5 fields (minute hour day-of-month month day-of-week), found 4"},
      {"* * * * * *", "want 5 fields (minute hour day-of-month month day-of-week), found 6"},
      {"60 * * * *", "minute: 60 is above the maximum 59"},
      {"* 24 * * *", "hour: 24 is above the maximum 23"},
      {"* * 0 * *", "day of month: 0 is below the minimum 1"},
      {"* * 32 * *", "day of month: 32 is above the maximum 31"},
      {"* * * 13 *", "month: 13 is above the maximum 12"},
      {"* * * * 7", "day of week: 7 is above the maximum 6"},
      {"-1 * * * *", "minute: -1 is below the minimum 0"},
      {"5-1 * * * *", "minute: range 5-1 starts after it ends"},
      {"* * * * sat-sun", "day of week: range 6-0 starts after it ends"},
      {"*/0 * * * *", "minute: step 0 must be at least 1"},
      {"*/x * * * *", "minute: step \"x\" is not a number"},
      {"1,,2 * * * *", "minute: \"1,,2\" has an empty element"},
      {"a * * * *", "minute: \"a\" is not a number"},
      {"* * * foo *", "month: \"foo\" is not a number or a name"},
      {"* * * * monday", "day of week: \"monday\" is not a number or a name"},
      {"/5 * * * *", "minute: \"/5\" has no value"},
      {"@every 5m",
       "unknown macro \"@every 5m\" (want @yearly, @annually, @monthly, @weekly, "
       "@daily, @midnight or @hourly)"},
      {"TZ=UTC 0 * * * *",
       "cannot use TZ or CRON_TZ in the schedule; use the timeZone field "
       "instead"},
      {"CRON_TZ=UTC 0 * * * *",
       "cannot use TZ or CRON_TZ in the schedule; use the timeZone "
       "field instead"},
  };
  for (const Row& row : rows) {
    common::Result<CronSchedule> parsed = parseCron(row.expression);
    ASSERT_FALSE(parsed.isOk()) << row.expression;
    EXPECT_TRUE(parsed.status().isInvalid()) << row.expression;
    EXPECT_EQ(parsed.status().message(), row.message) << row.expression;
  }
}

TEST(CronTest, UnknownTimeZone) {
  common::Result<TimeZone> zone = TimeZone::load("Mars/Olympus_Mons");
  ASSERT_FALSE(zone.isOk());
  EXPECT_EQ(zone.status().message(), "unknown time zone \"Mars/Olympus_Mons\"");
  EXPECT_FALSE(TimeZone::load("../../etc/passwd").isOk());
  EXPECT_EQ(TimeZone::load("Europe/London").value().name(), "Europe/London");
  EXPECT_EQ(TimeZone::load("").value().name(), "UTC");
}

TEST(CronTest, ListsAndNamesParseToTheSameBits) {
  EXPECT_EQ(parseCron("0 0 * jan,FEB,Mar * ").value(), parseCron("0 0 * 1-3 *").value());
  EXPECT_EQ(parseCron("0 0 * * sun,sat").value(), parseCron("0 0 * * 0,6").value());
  EXPECT_EQ(parseCron("0 0 ? * *").value(), parseCron("0 0 * * *").value());
  EXPECT_FALSE(parseCron("0 0 * * *").value().daysOfMonth.none());
}

}  // namespace
}  // namespace hetbench::schedule
