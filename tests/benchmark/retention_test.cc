#include "hetbench/benchmark/retention.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using namespace std::chrono_literals;
using common::WallTime;

const WallTime kNow = WallTime(std::chrono::seconds(1'800'000'000));

Cleanup keep(std::chrono::nanoseconds retainFor, std::int64_t maxRetained) {
  Cleanup c;
  c.retainFor = retainFor;
  c.maxRetained = maxRetained;
  return c;
}

struct RetentionCase {
  std::string name;
  std::vector<RetainedWorkload> retained;
  Cleanup cleanup;
  std::vector<std::string> wantRemove;
  std::optional<WallTime> wantNextExpiry;
};

// Verifies which retained workloads go (expired ones, then the oldest beyond maxRetained, ties by
// name, oldest first) and when the next one of those kept expires.
TEST(PlanRetention, Table) {
  const std::vector<RetentionCase> cases = {
      {"nothing retained", {}, keep(24h, 10), {}, std::nullopt},
      {"expired and fresh",
       {{"old", kNow - 25h}, {"new", kNow - 1h}},
       keep(24h, 10),
       {"old"},
       kNow + 23h},
      {"expiring exactly now", {{"edge", kNow - 24h}}, keep(24h, 10), {"edge"}, std::nullopt},
      {"the earliest expiry of those kept",
       {{"b", kNow - 2h}, {"a", kNow - 3h}, {"c", kNow - 1h}},
       keep(24h, 10),
       {},
       kNow + 21h},
      {"beyond maxRetained, oldest first",
       {{"w3", kNow - 1h}, {"w1", kNow - 3h}, {"w4", kNow - 30min}, {"w2", kNow - 2h}},
       keep(24h, 2),
       {"w1", "w2"},
       kNow + 23h},
      {"equal times: by name",
       {{"c", kNow - 1h}, {"a", kNow - 1h}, {"b", kNow - 1h}},
       keep(24h, 1),
       {"a", "b"},
       kNow + 23h},
      {"maxRetained 0 keeps none",
       {{"a", kNow - 1h}, {"b", kNow - 2h}},
       keep(24h, 0),
       {"b", "a"},
       std::nullopt},
      {"negative maxRetained keeps none", {{"a", kNow - 1h}}, keep(24h, -1), {"a"}, std::nullopt},
      {"expired and surplus together",
       {{"fresh", kNow - 1h}, {"older", kNow - 2h}, {"expired", kNow - 48h}},
       keep(24h, 1),
       {"expired", "older"},
       kNow + 23h},
      {"within maxRetained", {{"a", kNow - 1h}}, keep(24h, 5), {}, kNow + 23h},
      {"a failure time in the future", {{"a", kNow + 1h}}, keep(1h, 5), {}, kNow + 2h},
      {"retainFor 0 removes at once", {{"a", kNow}}, keep(0s, 5), {"a"}, std::nullopt},
      {"retention too long to represent never expires",
       {{"a", kNow - 1h}},
       keep(std::chrono::nanoseconds::max(), 5),
       {},
       std::nullopt},
  };
  for (const RetentionCase& c : cases) {
    const RetentionPlan got = planRetention(c.retained, kNow, c.cleanup);
    EXPECT_EQ(got.remove, c.wantRemove) << c.name;
    EXPECT_EQ(got.nextExpiry, c.wantNextExpiry) << c.name;
  }
}

}  // namespace
}  // namespace hetbench::benchmark
