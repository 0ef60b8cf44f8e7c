#include "hetbench/controller/measure.h"

#include <gtest/gtest.h>

#include <fstream>

namespace hetbench::controller {
namespace {

using nlohmann::json;

std::string epochLine(int epoch, int rank, std::int64_t samples, double wall, double io) {
  return ":::HETBENCH " + json({{"v", 1},
                                {"event", "epoch"},
                                {"epoch", epoch},
                                {"rank", rank},
                                {"samples", samples},
                                {"wall_seconds", wall},
                                {"io_seconds", io},
                                {"compute_seconds", wall - io}})
                              .dump();
}

std::string runStart(int worldSize) {
  return ":::HETBENCH " + json({{"v", 1},
                                {"event", "run_start"},
                                {"benchmark", "resnet50"},
                                {"model", "resnet50"},
                                {"world_size", worldSize},
                                {"rank", 0},
                                {"global_batch_size", 256},
                                {"precision", "fp32"},
                                {"device", "cpu"},
                                {"accelerator", {{"name", "cpu"}, {"count", 1}}}})
                              .dump();
}

class MeasureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hetbench-measure-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& path, const std::vector<std::string>& lines) {
    std::filesystem::create_directories((dir_ / path).parent_path());
    std::ofstream out(dir_ / path);
    for (const std::string& line : lines) out << "2026-11-22T10:00:00.000000001Z " << line << "\n";
  }
  std::filesystem::path dir_;
};

TEST_F(MeasureTest, TwoRanksAcrossPods) {
  write("pod-0/benchmark.log",
        {runStart(2), epochLine(0, 0, 100, 10, 5), epochLine(1, 0, 100, 10, 2)});
  write("pod-1/benchmark.log", {epochLine(0, 1, 100, 12, 5), epochLine(1, 1, 100, 8, 4)});
  write("manifest.json", {"not a log"});
  const UnitMeasurement m = measureUnit(dir_, {}, {}, {"effective_throughput"});
  ASSERT_TRUE(m.status.isOk()) << m.status.toString();
  EXPECT_TRUE(m.missing.empty());
  // Epoch 0 is the warm-up epoch; epoch 1: 200 samples in max(10, 8) s.
  EXPECT_DOUBLE_EQ(m.summary.values.at("effective_throughput"), 20.0);
  EXPECT_EQ(m.summary.epochs, 1);
}

TEST_F(MeasureTest, PatternsAndMissingMetrics) {
  write("pod/benchmark.log", {"Processing Speed: 179.7", "Processing Speed: 180.3", "done"});
  const std::vector<results::MetricSpec> specs =
      results::parseMetricSpecs(
          json::array(
              {{{"name", "speed"}, {"pattern", "Processing Speed: ([0-9.]+)"}},
               {{"name", "io_time"}, {"pattern", "Total IO Time: ([0-9.]+)"}, {"unit", "s"}}}))
          .value();
  const UnitMeasurement m = measureUnit(dir_, specs, {}, results::requiredMetrics(specs));
  ASSERT_TRUE(m.status.isOk()) << m.status.toString();
  EXPECT_DOUBLE_EQ(m.summary.values.at("speed"), 180.0);
  EXPECT_EQ(m.missing, std::vector<std::string>{"io_time"});
}

TEST_F(MeasureTest, MalformedMetricsLineIsAnError) {
  write("pod/benchmark.log", {runStart(1), ":::HETBENCH {\"v\":1,\"event\":\"epoch\"}"});
  const UnitMeasurement m = measureUnit(dir_, {}, {}, {});
  EXPECT_TRUE(m.status.isInvalid());
  EXPECT_NE(m.status.message().find("pod/benchmark.log line 2"), std::string::npos)
      << m.status.message();
}

TEST_F(MeasureTest, NoMetricsAtAll) {
  write("pod/benchmark.log", {"hello"});
  const UnitMeasurement m = measureUnit(dir_, {}, {}, {"effective_throughput"});
  ASSERT_TRUE(m.status.isOk());
  EXPECT_TRUE(m.summary.values.empty());
  EXPECT_EQ(m.missing, std::vector<std::string>{"effective_throughput"});
}

UnitRecord unit(std::int64_t trial, UnitPhase phase, double throughput) {
  UnitRecord u;
  u.trial = trial;
  u.phase = phase;
  results::UnitSummary summary;
  summary.values["effective_throughput"] = throughput;
  u.metrics = results::toJson(summary);
  return u;
}

TEST(JudgeTrials, OnlyEndedTrialsFromSucceededUnits) {
  const results::References references =
      results::parseReferences(json({{"effective_throughput", {{"value", 100}, {"lower", 0.1}}}}),
                               {{"effective_throughput", "samples/s"}})
          .value();
  const std::vector<UnitRecord> units = {
      unit(0, UnitPhase::kSucceeded, 100), unit(0, UnitPhase::kSucceeded, 98),
      unit(1, UnitPhase::kSucceeded, 80),  unit(1, UnitPhase::kFailed, 0),
      unit(2, UnitPhase::kSucceeded, 99),  unit(2, UnitPhase::kRunning, 0),
      unit(3, UnitPhase::kFailed, 0),
  };
  const std::vector<TrialResult> judged =
      judgeTrials(units, [&](std::int64_t) { return references; }, {});
  ASSERT_EQ(judged.size(), 2u);
  EXPECT_EQ(judged[0].trial, 0);
  EXPECT_EQ(judged[0].verdict.verdict, results::Verdict::kPass);
  EXPECT_EQ(judged[0].metrics.metrics.at("effective_throughput").n, 2);
  EXPECT_EQ(judged[1].trial, 1);
  EXPECT_EQ(judged[1].verdict.verdict, results::Verdict::kRegressed);
  EXPECT_EQ(judged[1].metrics.metrics.at("effective_throughput").n, 1);
}

}  // namespace
}  // namespace hetbench::controller
