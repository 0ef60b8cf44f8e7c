#include "hetbench/results/aggregate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "printers.h"

namespace hetbench::results {
namespace {

EpochSample sample(std::int64_t rank, std::int64_t epoch, double samples, double wall,
                   std::optional<double> io, std::optional<double> compute,
                   std::optional<double> energy = std::nullopt, bool warmup = false) {
  return {rank, epoch, samples, wall, io, compute, energy, warmup};
}

ParsedLog logOf(std::int64_t worldSize, std::vector<EpochSample> epochs,
                MetricValues scalars = {}) {
  ParsedLog log;
  log.worldSize = worldSize;
  log.epochs = std::move(epochs);
  log.scalars = std::move(scalars);
  return log;
}

// One rank: a slow first epoch, then two steady ones with energy counters.
const std::vector<EpochSample> kOneRank = {
    sample(0, 0, 1000, 20, 5, 15, 9000),
    sample(0, 1, 1000, 10, 2, 8, 3600),
    sample(0, 2, 1000, 10, 3, 7, 3600),
};

struct AggregateCase {
  std::string name;
  ParsedLog log;
  AggregationOptions options;
  MetricValues want;
  std::int64_t wantMeasured;
  std::int64_t wantExcluded;
};

// Verifies the derived metrics and which epochs are measured.
TEST(AggregateRepetition, Table) {
  const MetricValues steady = {
      {"wall_seconds", 20},
      {"effective_throughput", 100},
      {"io_seconds", 5},
      {"compute_seconds", 15},
      {"compute_throughput", 2000.0 / 15},
      {"compute_fraction", 0.75},
      {"energy_joules", 7200},
      {"samples_per_wh", 1000},
  };
  std::vector<EpochSample> firstFlagged = kOneRank;
  firstFlagged[0].warmup = true;
  std::vector<EpochSample> secondFlagged = kOneRank;
  secondFlagged[1].warmup = true;
  const std::vector<AggregateCase> cases = {
      {"the first epoch is a warm-up epoch by default", logOf(1, kOneRank), {}, steady, 2, 1},
      {"a flagged first epoch is excluded once", logOf(1, firstFlagged), {}, steady, 2, 1},
      {"a flagged later epoch is excluded too",
       logOf(1, secondFlagged),
       {},
       {{"wall_seconds", 10},
        {"effective_throughput", 100},
        {"io_seconds", 3},
        {"compute_seconds", 7},
        {"compute_throughput", 1000.0 / 7},
        {"compute_fraction", 0.7},
        {"energy_joules", 3600},
        {"samples_per_wh", 1000}},
       1,
       2},
      {"no warm-up epochs",
       logOf(1, kOneRank),
       {0},
       {{"wall_seconds", 40},
        {"effective_throughput", 75},
        {"io_seconds", 10},
        {"compute_seconds", 30},
        {"compute_throughput", 100},
        {"compute_fraction", 0.75},
        {"energy_joules", 16200},
        {"samples_per_wh", 3000 / 4.5}},
       3,
       0},
      {"two warm-up epochs",
       logOf(1, kOneRank),
       {2},
       {{"wall_seconds", 10},
        {"effective_throughput", 100},
        {"io_seconds", 3},
        {"compute_seconds", 7},
        {"compute_throughput", 1000.0 / 7},
        {"compute_fraction", 0.7},
        {"energy_joules", 3600},
        {"samples_per_wh", 1000}},
       1,
       2},
      {"a single epoch is measured",
       logOf(1, {sample(0, 4, 600, 6, 1, 5)}),
       {},
       {{"wall_seconds", 6},
        {"effective_throughput", 100},
        {"io_seconds", 1},
        {"compute_seconds", 5},
        {"compute_throughput", 120},
        {"compute_fraction", 5.0 / 6}},
       1,
       0},
      {"ranks: samples and energy summed, times the maximum",
       logOf(2, {sample(1, 0, 500, 30, 10, 20, 5000), sample(0, 0, 500, 30, 10, 20, 5000),
                 sample(0, 1, 500, 10, 2, 8, 1000), sample(1, 1, 500, 12, 4, 7.5, 1200)}),
       {},
       {{"wall_seconds", 12},
        {"effective_throughput", 1000.0 / 12},
        {"io_seconds", 4},
        {"compute_seconds", 8},
        {"compute_throughput", 125},
        {"compute_fraction", 8.0 / 12},
        {"energy_joules", 2200},
        {"samples_per_wh", 1000 / (2200.0 / 3600)}},
       1,
       1},
      {"a warm-up flag of one rank excludes the epoch",
       logOf(2, {sample(0, 0, 10, 1, 0, 1), sample(1, 0, 10, 1, 0, 1),
                 sample(0, 1, 10, 1, 0, 1, std::nullopt, true), sample(1, 1, 10, 1, 0, 1),
                 sample(0, 2, 20, 2, 1, 1), sample(1, 2, 20, 2, 0.5, 1.5)}),
       {},
       {{"wall_seconds", 2},
        {"effective_throughput", 20},
        {"io_seconds", 1},
        {"compute_seconds", 1.5},
        {"compute_throughput", 40.0 / 1.5},
        {"compute_fraction", 0.75}},
       1,
       2},
      {"energy from one rank only: no energy metrics",
       logOf(2, {sample(0, 0, 10, 2, 1, 1, 50), sample(1, 0, 10, 2, 1, 1)}),
       {},
       {{"wall_seconds", 2},
        {"effective_throughput", 10},
        {"io_seconds", 1},
        {"compute_seconds", 1},
        {"compute_throughput", 20},
        {"compute_fraction", 0.5}},
       1,
       0},
      {"compute time from I/O time, and I/O time from compute time",
       logOf(2, {sample(0, 0, 10, 4, 1, std::nullopt), sample(1, 0, 10, 5, std::nullopt, 2)}),
       {},
       {{"wall_seconds", 5},
        {"effective_throughput", 4},
        {"io_seconds", 3},
        {"compute_seconds", 3},
        {"compute_throughput", 20.0 / 3},
        {"compute_fraction", 0.6}},
       1,
       0},
      {"wall time only (MLPerf logs)",
       logOf(1, {sample(0, 1, 512, 8, std::nullopt, std::nullopt),
                 sample(0, 2, 512, 4, std::nullopt, std::nullopt)}),
       {},
       {{"wall_seconds", 4}, {"effective_throughput", 128}},
       1,
       1},
      {"zero compute time and energy: no ratios over them",
       logOf(1, {sample(0, 0, 10, 2, 2, 0, 0)}),
       {},
       {{"wall_seconds", 2},
        {"effective_throughput", 5},
        {"io_seconds", 2},
        {"compute_seconds", 0},
        {"compute_fraction", 0},
        {"energy_joules", 0}},
       1,
       0},
      {"scalars beside epochs",
       logOf(1, {sample(0, 0, 10, 2, std::nullopt, std::nullopt)}, {{"time_to_train_seconds", 60}}),
       {},
       {{"wall_seconds", 2}, {"effective_throughput", 5}, {"time_to_train_seconds", 60}},
       1,
       0},
      {"scalars only (patterns)",
       logOf(1, {}, {{"speed", 179.7}, {"io", 12.3}}),
       {},
       {{"speed", 179.7}, {"io", 12.3}},
       0,
       0},
  };
  for (const AggregateCase& c : cases) {
    const common::Result<RepetitionMetrics> got = aggregateRepetition(c.log, c.options);
    ASSERT_TRUE(got.isOk()) << c.name << ": " << got.status().toString();
    EXPECT_EQ(got->epochsMeasured, c.wantMeasured) << c.name;
    EXPECT_EQ(got->epochsExcluded, c.wantExcluded) << c.name;
    ASSERT_EQ(got->values.size(), c.want.size()) << c.name;
    for (const auto& [name, value] : c.want) {
      ASSERT_EQ(got->values.count(name), 1u) << c.name << ": " << name;
      EXPECT_DOUBLE_EQ(got->values.at(name), value) << c.name << ": " << name;
    }
  }
}

// Verifies each reason a log cannot be aggregated.
TEST(AggregateRepetition, Errors) {
  struct Case {
    std::string name;
    ParsedLog log;
    AggregationOptions options;
    std::string want;
  };
  ParsedLog withErrors = logOf(1, kOneRank);
  withErrors.errors = {{"w0", 7, "not a JSON object"}};
  std::vector<EpochSample> twentyRanks = {sample(0, 0, 1, 1, 0, 1)};
  ParsedLog noWorld = logOf(1, kOneRank);
  noWorld.worldSize.reset();
  const std::vector<Case> cases = {
      {"a log with errors", withErrors, {}, "1 error in the log: w0 line 7: not a JSON object"},
      {"an epoch that lacks a rank",
       logOf(2, {sample(0, 0, 1, 1, 0, 1), sample(1, 0, 1, 1, 0, 1), sample(0, 1, 1, 1, 0, 1)}),
       {},
       "epoch 1: reported by 1 of 2 ranks; missing rank 1"},
      {"an epoch that lacks two ranks",
       logOf(3, {sample(1, 2, 1, 1, 0, 1)}),
       {},
       "epoch 2: reported by 1 of 3 ranks; missing ranks 0, 2"},
      {"an epoch that lacks many ranks",
       logOf(20, twentyRanks),
       {},
       "epoch 0: reported by 1 of 20 ranks; missing ranks 1, 2, 3, 4, 5, 6, 7, 8 and 11 more"},
      {"a rank beyond the world",
       logOf(2, {sample(0, 0, 1, 1, 0, 1), sample(3, 0, 1, 1, 0, 1)}),
       {},
       "epoch 0: rank 3 is not below the world size 2"},
      {"a rank twice",
       logOf(2, {sample(0, 0, 1, 1, 0, 1), sample(0, 0, 1, 1, 0, 1)}),
       {},
       "epoch 0: rank 0 reported it twice"},
      {"no world size", noWorld, {}, "epochs without a world size"},
      {"only warm-up epochs",
       logOf(1, {sample(0, 0, 1, 1, 0, 1), sample(0, 1, 1, 1, 0, 1, std::nullopt, true)}),
       {},
       "all 2 epochs are warm-up epochs; none is left to measure"},
      {"more warm-up epochs than epochs",
       logOf(1, kOneRank),
       {3},
       "all 3 epochs are warm-up epochs; none is left to measure"},
      {"negative warm-up epochs", logOf(1, kOneRank), {-1}, "warm-up epochs must not be negative"},
      {"a scalar named like a derived metric",
       logOf(1, kOneRank, {{"effective_throughput", 5}}),
       {},
       "metric effective_throughput is both derived from the epochs and reported by name"},
      // Finite figures whose ratios or sums are not (fuzz_hetbench checks every metric is finite).
      {"a ratio beyond a double",
       logOf(1, {sample(0, 0, 640512, 1e-320, 0, 1171.7)}),
       {},
       "metric compute_fraction is beyond the range of a double"},
      {"a sum beyond a double",
       logOf(1, {sample(0, 0, 1, 1e308, std::nullopt, std::nullopt),
                 sample(0, 1, 1, 1e308, std::nullopt, std::nullopt)}),
       {0},
       "metric wall_seconds is beyond the range of a double"},
  };
  for (const Case& c : cases) {
    const common::Result<RepetitionMetrics> got = aggregateRepetition(c.log, c.options);
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_EQ(got.status().message(), c.want) << c.name;
  }
}

// Verifies mean, sample standard deviation, min, max and n over repetitions, and that a
// metric some repetitions lack counts only where it is.
TEST(AggregateTrial, Statistics) {
  std::vector<MetricValues> repetitions;
  for (double x : {2, 4, 4, 4, 5, 5, 7, 9}) repetitions.push_back({{"x", x}});
  repetitions[0]["only_once"] = 3;
  const TrialMetrics trial = aggregateTrial(repetitions);
  EXPECT_EQ(trial.repetitions, 8);
  ASSERT_EQ(trial.metrics.size(), 2u);
  const MetricStats& x = trial.metrics.at("x");
  EXPECT_DOUBLE_EQ(x.mean, 5);
  EXPECT_DOUBLE_EQ(x.stddev, std::sqrt(32.0 / 7));
  EXPECT_EQ(x.min, 2);
  EXPECT_EQ(x.max, 9);
  EXPECT_EQ(x.n, 8);
  EXPECT_EQ(trial.metrics.at("only_once"), (MetricStats{3, 0, 3, 3, 1}));

  EXPECT_EQ(aggregateTrial({}), TrialMetrics{});
  const TrialMetrics empty = aggregateTrial({{}, {}});
  EXPECT_EQ(empty.repetitions, 2);
  EXPECT_TRUE(empty.metrics.empty());
  EXPECT_EQ(aggregateTrial({{{"y", 1.5}}, {{"y", 1.5}}}).metrics.at("y"),
            (MetricStats{1.5, 0, 1.5, 1.5, 2}));
}

}  // namespace
}  // namespace hetbench::results
