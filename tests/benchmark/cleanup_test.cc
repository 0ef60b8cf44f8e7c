#include "hetbench/benchmark/cleanup.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using S = CleanupStep;
using P = UnitPhase;

// Verifies what cleanup does with an ended unit's workload, for every policy.
TEST(Cleanup, DecidesPerOutcomeAndPolicy) {
  const common::WallTime now{std::chrono::hours(1000)};
  const Cleanup defaults;  // onSuccess Delete, onFailure Retain
  Cleanup keepAll;
  keepAll.onSuccess = CleanupAction::kRetain;
  Cleanup deleteAll;
  deleteAll.onFailure = CleanupAction::kDelete;
  struct Row {
    const char* name;
    CleanupInput in;
    Cleanup policy;
    CleanupDecision want;
  };
  auto ended = [](P phase, bool logs = true, bool exists = true, bool running = false) {
    return CleanupInput{phase, true, logs, exists, running};
  };
  const Row rows[] = {
      {"running", {P::kRunning, true, true, true, true}, defaults, {}},
      {"end not written yet",
       {P::kSucceeded, false, true, true, false},
       defaults,
       {S::kWaitForStatus, now}},
      {"gone", ended(P::kFailed, true, false), defaults, {}},
      {"succeeded, logs on disk", ended(P::kSucceeded), defaults, {S::kDelete, {}}},
      {"succeeded, logs still streaming",
       ended(P::kSucceeded, false),
       defaults,
       {S::kWaitForLogs, now + std::chrono::seconds(1)}},
      {"succeeded, kept", ended(P::kSucceeded, false), keepAll, {}},
      {"failed, kept", ended(P::kFailed, false), defaults, {S::kRetain, {}}},
      {"timed out and still running, kept",
       ended(P::kTimedOut, false, true, true),
       defaults,
       {S::kStopAndRetain, {}}},
      {"failed, deleted after its logs", ended(P::kFailed), deleteAll, {S::kDelete, {}}},
      {"failed, waits for its logs before deletion",
       ended(P::kFailed, false),
       deleteAll,
       {S::kWaitForLogs, now + std::chrono::seconds(1)}},
      {"timed out and still running, deleted at once",
       ended(P::kTimedOut, false, true, true),
       deleteAll,
       {S::kDelete, {}}},
      {"never started (Pending), deleted at once",
       ended(P::kFailed, false, true, true),
       deleteAll,
       {S::kDelete, {}}},
      {"cancelled: deleted at once",
       ended(P::kCancelled, false, true, true),
       keepAll,
       {S::kDelete, {}}},
  };
  for (const Row& row : rows)
    EXPECT_EQ(decideCleanup(row.in, row.policy, now), row.want) << row.name;
  EXPECT_TRUE(keepsWorkload(P::kTimedOut, defaults));
  EXPECT_FALSE(keepsWorkload(P::kSucceeded, defaults));
  EXPECT_FALSE(keepsWorkload(P::kCancelled, keepAll));
}

// Verifies the bound on waiting for an ended unit's logs.
TEST(Cleanup, LogsAreOverdueAfterTheGrace) {
  const common::WallTime ended{std::chrono::hours(1000)};
  EXPECT_FALSE(logsOverdue(ended, ended));
  EXPECT_FALSE(logsOverdue(ended, ended + kLogGrace - std::chrono::nanoseconds(1)));
  EXPECT_TRUE(logsOverdue(ended, ended + kLogGrace));
}

}  // namespace
}  // namespace hetbench::benchmark
