#include "hetbench/benchmark/judge.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

UnitRecord unit(std::int64_t trial, UnitPhase phase, double throughput) {
  UnitRecord u;
  u.trial = trial;
  u.phase = phase;
  results::UnitSummary summary;
  summary.values["effective_throughput"] = throughput;
  u.metrics = summary;
  return u;
}

// Verifies that only trials whose units all ended are judged, from their succeeded units.
TEST(JudgeTrials, OnlyEndedTrialsFromSucceededUnits) {
  const results::References references =
      results::parseReferences(json({{"effective_throughput", {{"value", 100}, {"lower", 0.1}}}}),
                               {{"effective_throughput", "samples/s"}})
          .value();
  UnitRecord unmeasured = unit(4, UnitPhase::kSucceeded, 0);
  unmeasured.metrics.reset();
  const std::vector<UnitRecord> units = {
      unit(0, UnitPhase::kSucceeded, 100), unit(0, UnitPhase::kSucceeded, 98),
      unit(1, UnitPhase::kSucceeded, 80),  unit(1, UnitPhase::kFailed, 0),
      unit(2, UnitPhase::kSucceeded, 99),  unit(2, UnitPhase::kRunning, 0),
      unit(3, UnitPhase::kFailed, 0),      unmeasured,
  };
  const std::vector<JudgedTrial> judged =
      judgeTrials(units, [&](std::int64_t) { return references; }, {});
  ASSERT_EQ(judged.size(), 2u);
  EXPECT_EQ(judged[0].trial, 0);
  EXPECT_EQ(judged[0].verdict.verdict, results::Verdict::kPass);
  EXPECT_EQ(judged[0].metrics.metrics.at("effective_throughput").n, 2);
  EXPECT_EQ(judged[1].trial, 1);
  EXPECT_EQ(judged[1].verdict.verdict, results::Verdict::kRegressed);
  EXPECT_EQ(judged[1].metrics.metrics.at("effective_throughput").n, 1);
}

// Verifies that a repetition whose GPUs make it untrustworthy makes its trial Invalid, naming the
// repetition and why, however its metrics compare; and that a missing metric stays the verdict.
TEST(JudgeTrials, AnUntrustworthyRepetitionMakesItsTrialInvalid) {
  const results::References references =
      results::parseReferences(json({{"effective_throughput", {{"value", 100}, {"lower", 0.1}}}}),
                               {{"effective_throughput", "samples/s"}})
          .value();
  UnitRecord throttled = unit(0, UnitPhase::kSucceeded, 60);
  throttled.repetition = 1;
  throttled.metrics->invalid = "rank 0, GPU 0 (X): thermal slowdown for 40.0% of the measured time";
  UnitRecord missing = unit(1, UnitPhase::kSucceeded, 100);
  missing.metrics->values.clear();
  missing.metrics->invalid = "rank 0, GPU 0 (X): Xid 79 during the measured epochs";
  const std::vector<UnitRecord> units = {unit(0, UnitPhase::kSucceeded, 100), throttled, missing};
  const std::vector<JudgedTrial> judged =
      judgeTrials(units, [&](std::int64_t) { return references; }, {});
  ASSERT_EQ(judged.size(), 2u);
  EXPECT_EQ(judged[0].verdict.verdict, results::Verdict::kInvalid);
  EXPECT_EQ(judged[0].verdict.invalid,
            "repetition 1: rank 0, GPU 0 (X): thermal slowdown for 40.0% of the measured time");
  EXPECT_EQ(judged[1].verdict.verdict, results::Verdict::kMetricMissing);
  EXPECT_EQ(judged[1].verdict.invalid,
            "repetition 0: rank 0, GPU 0 (X): Xid 79 during the measured epochs");
  EXPECT_EQ(results::runVerdict({results::Verdict::kRegressed, results::Verdict::kInvalid}),
            results::Verdict::kInvalid);
}

}  // namespace
}  // namespace hetbench::benchmark
