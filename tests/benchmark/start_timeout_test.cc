#include "hetbench/benchmark/start_timeout.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Verifies the start timeout: nothing once started, the stuck pods' reason when it passes, and
// the deadline to look again before.
TEST(StartTimeout, FailsWithTheStuckReason) {
  const common::WallTime start{std::chrono::hours(1000)};
  const common::WallTime deadline = start + minutes(10);
  struct Row {
    const char* name;
    StartCheck check;
    common::WallTime now;
    UnitDecision want;
  };
  const Row rows[] = {
      {"started", {true, "", ""}, deadline + minutes(5), {}},
      {"waiting", {false, "Unschedulable", "0/4 nodes"}, deadline - seconds(1), {{}, deadline}},
      {"stuck past the deadline",
       {false, "Unschedulable", "0/4 nodes are available"},
       deadline,
       {UnitEnd{UnitPhase::kFailed, "Unschedulable",
                "not started within startTimeout 10m0s: 0/4 nodes are available"},
        {}}},
      {"nothing stuck, not started",
       {false, "", ""},
       deadline + seconds(1),
       {UnitEnd{UnitPhase::kFailed, "StartTimeout", "not started within startTimeout 10m0s"}, {}}},
  };
  for (const Row& row : rows)
    EXPECT_EQ(checkStartTimeout(start, minutes(10), row.check, row.now), row.want) << row.name;
}

}  // namespace
}  // namespace hetbench::benchmark
