#include "hetbench/logs/retention.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::logs {
namespace {

using std::chrono::hours;

const common::WallTime kNow{std::chrono::seconds(1'800'000'000)};

KeptRun run(RunState state, std::uint64_t bytes, std::optional<hours> age = std::nullopt) {
  KeptRun k;
  k.state = state;
  k.bytes = bytes;
  if (age) k.since = kNow - *age;
  return k;
}

std::string plan(const std::vector<KeptRun>& runs, const RetentionPolicy& policy) {
  std::string out;
  for (const Prune& p : planPruning(runs, kNow, policy))
    out += (out.empty() ? "" : " ") + std::to_string(p.run) + ":" + std::string(toString(p.reason));
  return out;
}

// Verifies which runs' logs go and why, over retention and the size bound.
TEST(PlanPruning, RetentionThenOldestFinishedFirst) {
  const RetentionPolicy week{hours(168), 0};
  const RetentionPolicy bounded{hours(168), 100};
  struct Case {
    std::string name;
    std::vector<KeptRun> runs;
    RetentionPolicy policy;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"nothing kept", {}, bounded, ""},
      {"gone for the retention", {run(RunState::kGone, 10, hours(168))}, week, "0:retention"},
      {"gone for less", {run(RunState::kGone, 10, hours(167))}, week, ""},
      {"gone since an unknown time", {run(RunState::kGone, 10)}, week, "0:retention"},
      {"retention 0 deletes at once",
       {run(RunState::kGone, 10, hours(0))},
       {hours(0), 0},
       "0:retention"},
      {"finished runs stay without a bound",
       {run(RunState::kFinished, 1000, hours(1000))},
       week,
       ""},
      {"active and unknown runs stay",
       {run(RunState::kActive, 1000), run(RunState::kUnknown, 1000, hours(9999))},
       bounded,
       ""},
      {"within the bound", {run(RunState::kFinished, 60), run(RunState::kActive, 40)}, bounded, ""},
      {"oldest finished first",
       {run(RunState::kFinished, 50, hours(1)), run(RunState::kFinished, 50, hours(5)),
        run(RunState::kFinished, 50, hours(3))},
       bounded,
       "1:size"},
      {"gone before finished, however old",
       {run(RunState::kFinished, 60, hours(900)), run(RunState::kGone, 60, hours(1))},
       bounded,
       "1:size"},
      {"as many as the bound needs",
       {run(RunState::kFinished, 50, hours(3)), run(RunState::kFinished, 50, hours(2)),
        run(RunState::kFinished, 50, hours(1)), run(RunState::kActive, 50)},
       bounded,
       "0:size 1:size"},
      {"retention counts toward the bound",
       {run(RunState::kGone, 500, hours(200)), run(RunState::kFinished, 90, hours(1))},
       bounded,
       "0:retention"},
      {"finished without a time is the oldest",
       {run(RunState::kFinished, 60, hours(9)), run(RunState::kFinished, 60)},
       bounded,
       "1:size"},
      {"active runs over the bound: the rest all go, no more",
       {run(RunState::kActive, 500), run(RunState::kFinished, 10, hours(1))},
       bounded,
       "1:size"},
  };
  for (const Case& c : cases) EXPECT_EQ(plan(c.runs, c.policy), c.want) << c.name;
}

}  // namespace
}  // namespace hetbench::logs
