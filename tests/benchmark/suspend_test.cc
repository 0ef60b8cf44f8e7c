#include "hetbench/benchmark/suspend.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

// Verifies which units a suspended run cancels, and with which message.
TEST(Suspend, CancelsWhatHasNotEnded) {
  struct Row {
    bool suspended;
    UnitPhase phase;
    std::optional<UnitEnd> want;
  };
  const UnitEnd stopped{UnitPhase::kCancelled, "Suspended",
                        "the run was suspended; its workload was stopped"};
  const UnitEnd notStarted{UnitPhase::kCancelled, "Suspended",
                           "the run was suspended before it started"};
  const Row rows[] = {
      {false, UnitPhase::kRunning, std::nullopt},  {false, UnitPhase::kPending, std::nullopt},
      {true, UnitPhase::kRunning, stopped},        {true, UnitPhase::kPending, notStarted},
      {true, UnitPhase::kSucceeded, std::nullopt}, {true, UnitPhase::kFailed, std::nullopt},
      {true, UnitPhase::kCancelled, std::nullopt},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(checkSuspend(row.suspended, row.phase), row.want)
        << row.suspended << " " << toString(row.phase);
  }
}

}  // namespace
}  // namespace hetbench::benchmark
