#include "hetbench/benchmark/time_limit.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Verifies when a running unit times out and when it is looked at again.
TEST(TimeLimit, EndsAtTheLimit) {
  const common::WallTime start{std::chrono::hours(1000)};
  struct Row {
    const char* name;
    common::WallTime now;
    bool ends;
  };
  const Row rows[] = {
      {"at the start", start, false},
      {"a second before", start + minutes(2) - seconds(1), false},
      {"at the limit", start + minutes(2), true},
      {"long after", start + minutes(90), true},
  };
  for (const Row& row : rows) {
    const UnitDecision d = checkTimeLimit(start, minutes(2), row.now);
    EXPECT_EQ(d.end.has_value(), row.ends) << row.name;
    if (row.ends) {
      EXPECT_EQ(d.end->phase, UnitPhase::kTimedOut) << row.name;
      EXPECT_EQ(d.end->reason, "TimeLimitExceeded") << row.name;
      EXPECT_EQ(d.end->message, "ran longer than timeLimit 2m0s; its workload was stopped");
      EXPECT_FALSE(d.recheckAt) << row.name;
    } else {
      EXPECT_EQ(d.recheckAt, start + minutes(2)) << row.name;
    }
  }
}

}  // namespace
}  // namespace hetbench::benchmark
