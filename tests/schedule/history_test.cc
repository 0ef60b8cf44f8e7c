#include "hetbench/schedule/history.h"

#include <gtest/gtest.h>

namespace hetbench::schedule {
namespace {

using std::chrono::hours;

common::WallTime at(int hour) { return common::WallTime(hours(490'000 + hour)); }

ScheduledRun run(const std::string& name, int hour, const std::string& phase,
                 bool retains = false) {
  ScheduledRun r;
  r.name = name;
  r.scheduledTime = at(hour);
  r.phase = phase;
  r.retainsWorkloads = retains;
  return r;
}

struct PruneCase {
  const char* what;
  std::vector<ScheduledRun> runs;
  std::int64_t successfulLimit;
  std::int64_t failedLimit;
  std::vector<std::string> pruned;  // oldest first
};

// Verifies which finished runs each history limit removes, oldest first, and that active runs
// and failed runs still keeping workloads are never removed.
TEST(HistoryTest, RunsToPrune) {
  const std::vector<PruneCase> cases = {
      {"within limits", {run("a", 1, "Succeeded"), run("b", 2, "Failed")}, 3, 1, {}},
      {"oldest successes beyond the limit",
       {run("a", 1, "Succeeded"), run("b", 2, "Succeeded"), run("c", 3, "Succeeded"),
        run("d", 4, "Succeeded")},
       2,
       1,
       {"a", "b"}},
      {"failed and cancelled share a limit",
       {run("a", 1, "Failed"), run("b", 2, "Cancelled"), run("c", 3, "Failed")},
       3,
       1,
       {"a", "b"}},
      {"limit 0 removes every finished run of that kind",
       {run("a", 1, "Succeeded"), run("b", 2, "Failed")},
       0,
       0,
       {"a", "b"}},
      {"running and pending runs are never history",
       {run("a", 1, "Running"), run("b", 2, "Pending"), run("c", 3, ""), run("d", 4, "Succeeded")},
       0,
       0,
       {"d"}},
      {"a failed run keeping workloads stays until its retention ends",
       {run("a", 1, "Failed", true), run("b", 2, "Failed"), run("c", 3, "Failed")},
       3,
       1,
       {"b"}},
      {"equal times: the later name counts as newer",
       {run("x", 1, "Succeeded"), run("y", 1, "Succeeded")},
       1,
       1,
       {"x"}},
      {"a negative limit reads as 0", {run("a", 1, "Succeeded")}, -1, 1, {"a"}},
  };
  for (const PruneCase& c : cases) {
    EXPECT_EQ(runsToPrune(c.runs, c.successfulLimit, c.failedLimit), c.pruned) << c.what;
  }
}

// Verifies that recent verdicts keep pruned runs, take the current state of existing runs, list
// only finished runs, newest first, and stop at kRecentVerdicts.
TEST(HistoryTest, RecentVerdicts) {
  ScheduledRun passed = run("b", 2, "Succeeded");
  passed.verdict = "Pass";
  ScheduledRun regressed = run("c", 3, "Succeeded");
  regressed.verdict = "Regressed";
  const std::vector<RecentVerdict> before = {{"a", at(1), "Failed", "MetricMissing"},
                                             {"b", at(2), "Running", ""}};
  const std::vector<RecentVerdict> got =
      recentVerdicts(before, {passed, regressed, run("d", 4, "Running")});
  const std::vector<RecentVerdict> want = {{"c", at(3), "Succeeded", "Regressed"},
                                           {"b", at(2), "Succeeded", "Pass"},
                                           {"a", at(1), "Failed", "MetricMissing"}};
  EXPECT_EQ(got, want);

  std::vector<ScheduledRun> many;
  for (int i = 0; i < 15; ++i) many.push_back(run("r" + std::to_string(100 + i), i, "Succeeded"));
  const std::vector<RecentVerdict> capped = recentVerdicts({}, many);
  ASSERT_EQ(capped.size(), kRecentVerdicts);
  EXPECT_EQ(capped.front().run, "r114");
  EXPECT_EQ(capped.back().run, "r105");
}

}  // namespace
}  // namespace hetbench::schedule
