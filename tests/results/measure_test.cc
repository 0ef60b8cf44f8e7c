#include "hetbench/results/measure.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::results {
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

/// Lines of named sources, fed to a UnitMeasurer as the controller feeds a unit's log files.
UnitMeasurement measure(const std::vector<std::pair<std::string, std::vector<std::string>>>& logs,
                        const std::vector<MetricSpec>& specs,
                        const std::vector<std::string>& required) {
  common::Result<UnitMeasurer> measurer = UnitMeasurer::make(specs);
  EXPECT_TRUE(measurer.isOk());
  for (const auto& [source, lines] : logs)
    for (const std::string& line : lines)
      measurer.value().consume(source, "2026-11-22T10:00:00.000000001Z " + line);
  return measurer.value().finish({}, required);
}

TEST(UnitMeasurer, TwoRanksAcrossPods) {
  const UnitMeasurement m =
      measure({{"pod-0/benchmark.log",
                {runStart(2), epochLine(0, 0, 100, 10, 5), epochLine(1, 0, 100, 10, 2)}},
               {"pod-1/benchmark.log", {epochLine(0, 1, 100, 12, 5), epochLine(1, 1, 100, 8, 4)}}},
              {}, {"effective_throughput"});
  ASSERT_TRUE(m.status.isOk()) << m.status.toString();
  EXPECT_TRUE(m.missing.empty());
  // Epoch 0 is the warm-up epoch; epoch 1: 200 samples in max(10, 8) s.
  EXPECT_DOUBLE_EQ(m.summary.values.at("effective_throughput"), 20.0);
  EXPECT_EQ(m.summary.epochs, 1);
}

TEST(UnitMeasurer, PatternsAndMissingMetrics) {
  const std::vector<MetricSpec> specs =
      parseMetricSpecs(
          json::array(
              {{{"name", "speed"}, {"pattern", "Processing Speed: ([0-9.]+)"}},
               {{"name", "io_time"}, {"pattern", "Total IO Time: ([0-9.]+)"}, {"unit", "s"}}}))
          .value();
  const UnitMeasurement m = measure(
      {{"pod/benchmark.log", {"Processing Speed: 179.7", "Processing Speed: 180.3", "done"}}},
      specs, requiredMetrics(specs));
  ASSERT_TRUE(m.status.isOk()) << m.status.toString();
  EXPECT_DOUBLE_EQ(m.summary.values.at("speed"), 180.0);
  EXPECT_EQ(m.missing, std::vector<std::string>{"io_time"});
}

TEST(UnitMeasurer, MalformedMetricsLineIsAnError) {
  const UnitMeasurement m = measure(
      {{"pod/benchmark.log", {runStart(1), ":::HETBENCH {\"v\":1,\"event\":\"epoch\"}"}}}, {}, {});
  EXPECT_TRUE(m.status.isInvalid());
  EXPECT_NE(m.status.message().find("pod/benchmark.log line 2"), std::string::npos)
      << m.status.message();
}

TEST(UnitMeasurer, NoMetricsAtAll) {
  const UnitMeasurement m =
      measure({{"pod/benchmark.log", {"hello"}}}, {}, {"effective_throughput"});
  ASSERT_TRUE(m.status.isOk());
  EXPECT_TRUE(m.summary.values.empty());
  EXPECT_EQ(m.missing, std::vector<std::string>{"effective_throughput"});
}

// Verifies that the metrics a verdict needs stay exact in the unit's summary, however many
// other metrics crowd its byte budget.
TEST(UnitMeasurer, JudgedMetricsStayExact) {
  std::vector<std::string> lines;
  // 31 metrics of 30-character names take about 1,200 bytes of the summary's 512.
  const std::string prefix = "a_rather_long_metric_name_";
  for (int i = 0; i < 31; ++i) lines.push_back(prefix + std::to_string(100 + i) + " = 1.23456789");
  lines.push_back("zz_referenced = 3.14159265358979");
  json specs = json::array();
  for (int i = 0; i < 31; ++i) {
    const std::string name = prefix + std::to_string(100 + i);
    specs.push_back({{"name", name}, {"pattern", name + " = ([0-9.]+)"}, {"required", false}});
  }
  specs.push_back({{"name", "zz_referenced"}, {"pattern", "zz_referenced = ([0-9.]+)"}});
  const UnitMeasurement m =
      measure({{"pod/c.log", lines}}, parseMetricSpecs(specs).value(), {"zz_referenced"});
  ASSERT_TRUE(m.status.isOk()) << m.status.toString();
  EXPECT_GT(m.summary.omitted, 0);
  EXPECT_EQ(m.summary.values.at("zz_referenced"), 3.14159265358979);
  EXPECT_EQ(m.summary.values.at(prefix + "100"), 1.2346);
}

}  // namespace
}  // namespace hetbench::results
