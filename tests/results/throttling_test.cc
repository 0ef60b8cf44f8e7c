#include "hetbench/results/throttling.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"

namespace hetbench::results {
namespace {

/// A GPU at its default 700 W limit that reports the given shares.
GpuEpoch gpu(double powerCap, double thermal, double hardware) {
  return {"GPU 0 (NVIDIA H200)", powerCap, thermal, hardware, 700.0, 700.0, 0, {}};
}

EpochSample epochOf(std::int64_t rank, std::int64_t epoch, double wall,
                    std::vector<GpuEpoch> gpus) {
  EpochSample sample;
  sample.rank = rank;
  sample.epoch = epoch;
  sample.samples = 100;
  sample.wallSeconds = wall;
  sample.gpus = std::move(gpus);
  return sample;
}

// Verifies which GPU reports make a repetition untrustworthy, and how the message says so.
TEST(UntrustworthyGpus, Table) {
  GpuEpoch capped = gpu(0.5, 0, 0);
  capped.powerLimitWatts = 400;
  GpuEpoch failing = gpu(0, 0, 0);
  failing.eccUncorrected = 2;
  GpuEpoch xids = gpu(0, 0, 0);
  xids.xids = {79, 79, 48, 13, 31, 43, 63};
  GpuEpoch silent{"GPU 3 (Old)", {}, {}, {}, {}, {}, {}, {}};
  struct Case {
    std::string name;
    std::vector<EpochSample> epochs;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no GPU reports", {epochOf(0, 1, 10, {})}, std::nullopt},
      {"a GPU that reports nothing", {epochOf(0, 1, 10, {silent})}, std::nullopt},
      {"the power cap at the default limit all the time",
       {epochOf(0, 1, 10, {gpu(1, 0, 0)})},
       std::nullopt},
      {"heat for 5% exactly", {epochOf(0, 1, 10, {gpu(0, 0.05, 0)})}, std::nullopt},
      {"heat for 6%",
       {epochOf(0, 1, 10, {gpu(0, 0.06, 0)})},
       "rank 0, GPU 0 (NVIDIA H200): thermal slowdown for 6.0% of the measured time (at most "
       "5.0%)"},
      {"the hardware for 20%",
       {epochOf(0, 1, 10, {gpu(0, 0, 0.2)})},
       "rank 0, GPU 0 (NVIDIA H200): hardware slowdown for 20.0% of the measured time (at most "
       "5.0%)"},
      {"a lowered power limit",
       {epochOf(0, 1, 10, {capped})},
       "rank 0, GPU 0 (NVIDIA H200): a power cap below the default limit for 50.0% of the "
       "measured time (at most 5.0%)"},
      {"weighted by wall time: 50% of 1 s and 0 of 19 s is 2.5%",
       {epochOf(0, 1, 1, {gpu(0, 0.5, 0)}), epochOf(0, 2, 19, {gpu(0, 0, 0)})},
       std::nullopt},
      {"weighted by wall time: 50% of 19 s and 0 of 1 s is 47.5%",
       {epochOf(0, 1, 19, {gpu(0, 0.5, 0)}), epochOf(0, 2, 1, {gpu(0, 0, 0)})},
       "rank 0, GPU 0 (NVIDIA H200): thermal slowdown for 47.5% of the measured time (at most "
       "5.0%)"},
      {"a warm-up epoch does not count", {epochOf(0, 0, 10, {gpu(0, 1, 1)})}, std::nullopt},
      {"the second rank's GPU",
       {epochOf(0, 1, 10, {gpu(0, 0, 0)}), epochOf(1, 1, 10, {gpu(0, 0.3, 0)})},
       "rank 1, GPU 0 (NVIDIA H200): thermal slowdown for 30.0% of the measured time (at most "
       "5.0%)"},
      {"an uncorrected ECC error",
       {epochOf(0, 1, 10, {failing})},
       "rank 0, GPU 0 (NVIDIA H200): 2 uncorrected ECC error(s) during the measured epochs"},
      {"Xids, the first five listed",
       {epochOf(0, 1, 10, {xids})},
       "rank 0, GPU 0 (NVIDIA H200): Xid 79, 79, 48, 13, 31 and 2 more during the measured "
       "epochs"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(untrustworthyGpus(c.epochs, {1, 2}, ThrottleLimits{}), c.want) << c.name;
  }
  EXPECT_EQ(untrustworthyGpus({epochOf(0, 1, 10, {gpu(0, 0.06, 0)})}, {1}, ThrottleLimits{0.1}),
            std::nullopt)
      << "a higher limit";
}

// Verifies that a repetition keeps its metrics when its GPUs make it untrustworthy, and says why.
TEST(UntrustworthyGpus, AggregateRepetitionSaysWhy) {
  ParsedLog log;
  log.worldSize = 1;
  log.epochs = {epochOf(0, 0, 10, {gpu(0, 0, 0)}), epochOf(0, 1, 10, {gpu(0, 0.5, 0)})};
  const common::Result<RepetitionMetrics> metrics = aggregateRepetition(log);
  ASSERT_TRUE(metrics.isOk()) << metrics.status().toString();
  EXPECT_EQ(metrics->values.at("effective_throughput"), 10);
  EXPECT_EQ(metrics->invalid,
            "rank 0, GPU 0 (NVIDIA H200): thermal slowdown for 50.0% of the measured time (at "
            "most 5.0%)");
  log.epochs[1].gpus = {gpu(0.9, 0, 0)};
  EXPECT_EQ(aggregateRepetition(log)->invalid, "");
}

}  // namespace
}  // namespace hetbench::results
