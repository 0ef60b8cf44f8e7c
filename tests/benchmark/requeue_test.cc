#include "hetbench/benchmark/requeue.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Verifies that a pass requeues at its earliest deadline, never sooner than kMinRequeue.
TEST(Requeue, AtTheEarliestDeadline) {
  const common::WallTime now{std::chrono::hours(1000)};
  struct Row {
    const char* name;
    std::vector<common::WallTime> deadlines;
    std::optional<std::chrono::nanoseconds> want;
  };
  const Row rows[] = {
      {"none", {}, std::nullopt},
      {"one", {now + seconds(30)}, seconds(30)},
      {"the earliest", {now + seconds(30), now + seconds(5), now + seconds(60)}, seconds(5)},
      {"past", {now - seconds(5)}, kMinRequeue},
      {"too soon", {now + milliseconds(1)}, kMinRequeue},
  };
  for (const Row& row : rows) {
    Deadlines deadlines;
    for (common::WallTime at : row.deadlines) deadlines.note(at);
    deadlines.note(std::optional<common::WallTime>());
    EXPECT_EQ(requeueAfter(deadlines, now), row.want) << row.name;
  }
}

}  // namespace
}  // namespace hetbench::benchmark
