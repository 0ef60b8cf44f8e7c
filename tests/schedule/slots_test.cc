#include "hetbench/schedule/slots.h"

#include <gtest/gtest.h>

#include "hetbench/common/time.h"

namespace hetbench::schedule {
namespace {

using std::chrono::seconds;

common::WallTime at(const std::string& rfc3339) { return common::parseRfc3339(rfc3339).value(); }

std::string show(const std::optional<common::WallTime>& t) {
  return t ? common::formatRfc3339(*t) : "-";
}

TEST(SlotsTest, AsTheCronJobControllerDecides) {
  struct Row {
    const char* name;
    const char* schedule;
    const char* since;
    const char* now;
    std::optional<seconds> deadline;
    const char* start;
    const char* missed;
    std::int64_t skipped;
    const char* next;
  };
  const Row rows[] = {
      {"nothing due yet", "0 * * * *", "2026-11-22T10:00:00Z", "2026-11-22T10:59:59Z", std::nullopt,
       "-", "-", 0, "2026-11-22T11:00:00Z"},
      {"due on the dot", "0 * * * *", "2026-11-22T10:00:00Z", "2026-11-22T11:00:00Z", std::nullopt,
       "2026-11-22T11:00:00Z", "-", 0, "2026-11-22T12:00:00Z"},
      {"the slot just started is not due again", "0 * * * *", "2026-11-22T11:00:00Z",
       "2026-11-22T11:00:30Z", std::nullopt, "-", "-", 0, "2026-11-22T12:00:00Z"},
      {"three missed: the latest starts, two are skipped", "0 * * * *", "2026-11-22T10:00:00Z",
       "2026-11-22T13:10:00Z", std::nullopt, "2026-11-22T13:00:00Z", "-", 2,
       "2026-11-22T14:00:00Z"},
      {"within the deadline", "0 * * * *", "2026-11-22T10:00:00Z", "2026-11-22T11:04:00Z",
       seconds(300), "2026-11-22T11:00:00Z", "-", 0, "2026-11-22T12:00:00Z"},
      {"past the deadline: missed", "0 * * * *", "2026-11-22T10:00:00Z", "2026-11-22T11:06:00Z",
       seconds(300), "-", "2026-11-22T11:00:00Z", 0, "2026-11-22T12:00:00Z"},
      {"a minute schedule down for a day counts at most 100", "* * * * *", "2026-11-21T10:00:00Z",
       "2026-11-22T10:00:00Z", std::nullopt, "2026-11-22T10:00:00Z", "-", kMaxCountedSlots,
       "2026-11-22T10:01:00Z"},
  };
  for (const Row& row : rows) {
    const DueSlot due = dueSlot(parseCron(row.schedule).value(), TimeZone(), at(row.since),
                                at(row.now), row.deadline);
    EXPECT_EQ(show(due.start), row.start) << row.name;
    EXPECT_EQ(show(due.missed), row.missed) << row.name;
    EXPECT_EQ(due.skipped, row.skipped) << row.name;
    EXPECT_EQ(show(due.next), row.next) << row.name;
  }
}

TEST(SlotsTest, PreviousTimeAcrossDaylightSaving) {
  const CronSchedule daily = parseCron("30 1 * * *").value();
  const TimeZone london = TimeZone::load("Europe/London").value();
  // Fall back: 01:30 happens twice on 2026-10-25; its one slot is the first, 00:30 UTC.
  EXPECT_EQ(show(previousTime(daily, london, at("2026-10-25T01:45:00Z"))), "2026-10-25T00:30:00Z");
  // Spring forward: 01:30 does not exist on 2026-03-29; its slot is the jump, 01:00 UTC.
  EXPECT_EQ(show(previousTime(daily, london, at("2026-03-29T01:00:00Z"))), "2026-03-29T01:00:00Z");
  EXPECT_EQ(show(previousTime(daily, london, at("2026-03-29T00:59:59Z"))), "2026-03-28T01:30:00Z");
  EXPECT_EQ(
      show(previousTime(parseCron("0 0 30 2 *").value(), TimeZone(), at("2026-11-22T00:00:00Z"))),
      "-");
}

TEST(SlotsTest, RunNamesAreTheSlotsMinutes) {
  EXPECT_EQ(runName("nightly", at("2026-11-22T10:00:00Z")), "nightly-29922360");
  EXPECT_EQ(runName("nightly", at("2026-11-22T10:00:59Z")), "nightly-29922360");
  EXPECT_NE(runName("nightly", at("2026-11-22T10:01:00Z")), "nightly-29922360");
}

}  // namespace
}  // namespace hetbench::schedule
