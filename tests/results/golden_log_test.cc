// Logs copied from real runs of our own workload, hetbench-train (tests/results/golden/), read by
// both of its formats' parsers: what the operator reads from a real container must stay
// readable, and the two formats must agree on what the run did.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "hetbench/results/metrics.h"
#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results {
namespace {

std::vector<Line> readGolden(const std::string& name) {
  std::ifstream in(std::string(HETBENCH_GOLDEN_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<Line> lines;
  for (std::string text; std::getline(in, text);) lines.push_back({"train", text});
  return lines;
}

// Verifies the CosmoFlow log of `hetbench-train --model cosmoflow --data synthetic --device cpu
// --batch-size 4 --sample-size 32 --epochs 3 --steps-per-epoch 2 --threads 1 --mllog --eval`:
// its JSON lines give three epochs of 8 samples whose I/O and compute add up to the wall time,
// the first a warm-up; its MLLOG lines, read by the MLPerf parser, give the same epochs with the
// same wall times (to the millisecond) and no time to train (the run did not reach its target).
TEST(GoldenLogs, HetbenchTrainCosmoflow) {
  const std::vector<Line> lines = readGolden("hetbench-train-cosmoflow.log");
  const ParsedLog json = feed(*makeHetbenchParser(), lines);
  ASSERT_TRUE(json.errors.empty()) << logStatus(json).toString();
  ASSERT_TRUE(json.run.has_value());
  EXPECT_EQ(json.worldSize, 1);
  ASSERT_EQ(json.epochs.size(), 3u);
  for (const EpochSample& epoch : json.epochs) {
    EXPECT_EQ(epoch.samples, 8) << epoch.epoch;
    EXPECT_EQ(epoch.warmup, epoch.epoch == 0) << epoch.epoch;
    EXPECT_NEAR(*epoch.ioSeconds + *epoch.computeSeconds, epoch.wallSeconds,
                0.01 * epoch.wallSeconds)
        << epoch.epoch;
  }
  const common::Result<RepetitionMetrics> measured = aggregateRepetition(json, {});
  ASSERT_TRUE(measured.isOk()) << measured.status().toString();
  const double wall = json.epochs[1].wallSeconds + json.epochs[2].wallSeconds;
  EXPECT_NEAR(measured->values.at(std::string(kEffectiveThroughput)), 16 / wall, 1e-9);

  const ParsedLog mllog = feed(*makeMlperfParser(), lines);
  ASSERT_TRUE(mllog.errors.empty()) << logStatus(mllog).toString();
  ASSERT_EQ(mllog.epochs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(mllog.epochs[i].epoch, static_cast<std::int64_t>(i) + 1);
    EXPECT_NEAR(mllog.epochs[i].wallSeconds, json.epochs[i].wallSeconds, 1e-3) << i;
    EXPECT_NEAR(mllog.epochs[i].samples, 8, 0.01) << i;
  }
  EXPECT_FALSE(mllog.scalars.contains("time_to_train_seconds"));
}

}  // namespace
}  // namespace hetbench::results
