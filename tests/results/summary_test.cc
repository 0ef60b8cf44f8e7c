#include "hetbench/results/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace hetbench::results {
namespace {

using nlohmann::json;

// Verifies rounding to kSummaryDigits significant digits, the JSON form and reading it back.
TEST(Summary, RoundsAndRoundTrips) {
  RepetitionMetrics repetition;
  repetition.values = {{"effective_throughput", 912.43217},
                       {"compute_fraction", 0.794123456},
                       {"wall_seconds", 123.456789},
                       {"speed", 17692.1234},
                       {"tiny", 0.000123456},
                       {"zero", 0}};
  repetition.epochsMeasured = 3;
  repetition.epochsExcluded = 1;
  const UnitSummary summary = summarize(repetition);
  const MetricValues want = {{"effective_throughput", 912.43},
                             {"compute_fraction", 0.79412},
                             {"wall_seconds", 123.46},
                             {"speed", 17692},
                             {"tiny", 0.00012346},
                             {"zero", 0}};
  EXPECT_EQ(summary.values, want);
  EXPECT_EQ(summary.epochs, 3);
  EXPECT_EQ(summary.omitted, 0);
  EXPECT_EQ(toJson(summary).dump(),
            R"({"epochs":3,"values":{"compute_fraction":0.79412,"effective_throughput":912.43,)"
            R"("speed":17692.0,"tiny":0.00012346,"wall_seconds":123.46,"zero":0.0}})");
  EXPECT_EQ(unitSummaryFromJson(toJson(summary)), summary);

  repetition.invalid = "rank 0, GPU 0 (X): Xid 79 during the measured epochs";
  const UnitSummary invalid = summarize(repetition);
  EXPECT_EQ(invalid.invalid, repetition.invalid);
  EXPECT_EQ(toJson(invalid)["invalid"], repetition.invalid);
  EXPECT_EQ(unitSummaryFromJson(toJson(invalid)), invalid);

  EXPECT_EQ(toJson(UnitSummary{}).dump(), R"({"values":{}})");
  EXPECT_EQ(toJson(summarize(RepetitionMetrics{{{"speed", 179.7}}, 0, 0})).dump(),
            R"({"values":{"speed":179.7}})");
}

// Verifies that a summary keeps to its byte budget, built-in metrics first, and counts what it
// leaves out; and that a run of 1000 units, even with the longest names, stays far below
// etcd's limit of 1.5 MB per object.
TEST(Summary, Bounded) {
  RepetitionMetrics repetition;
  for (const BuiltinMetric& metric : kBuiltinMetrics) {
    repetition.values[std::string(metric.name)] = 123456.789;
  }
  for (int i = 0; i < 32; ++i) {
    repetition.values[std::string(61, 'm') + std::to_string(10 + i)] = 1.0 / 3;
  }
  repetition.values["not_finite"] = std::numeric_limits<double>::infinity();
  repetition.epochsMeasured = 100;
  const UnitSummary summary = summarize(repetition);
  for (const BuiltinMetric& metric : kBuiltinMetrics) {
    EXPECT_EQ(summary.values.count(std::string(metric.name)), 1u) << metric.name;
  }
  EXPECT_EQ(summary.values.count("not_finite"), 0u);
  EXPECT_GT(summary.omitted, 0);
  EXPECT_EQ(static_cast<std::size_t>(summary.omitted) + summary.values.size(),
            repetition.values.size());
  const json j = toJson(summary);
  EXPECT_LE(j["values"].dump().size(), kMaxSummaryValueBytes);
  EXPECT_EQ(j["omitted"], summary.omitted);

  std::size_t run = 0;
  for (int unit = 0; unit < 1000; ++unit) run += toJson(summarize(repetition)).dump().size();
  EXPECT_LT(run, 600u * 1024);
}

// Verifies that whatever a user wrote into status by hand reads as empty, never throws.
TEST(Summary, FromHostileJson) {
  EXPECT_EQ(unitSummaryFromJson(json()), UnitSummary{});
  EXPECT_EQ(unitSummaryFromJson(json::array({1, 2})), UnitSummary{});
  EXPECT_EQ(unitSummaryFromJson(json{{"values", "x"}, {"epochs", "3"}, {"omitted", 1.5}}),
            UnitSummary{});
  const UnitSummary got = unitSummaryFromJson(
      json{{"values", {{"a", 1}, {"b", "2"}, {"c", nullptr}, {"d", {1}}}}, {"epochs", 2}});
  EXPECT_EQ(got.values, (MetricValues{{"a", 1}}));
  EXPECT_EQ(got.epochs, 2);
}

}  // namespace
}  // namespace hetbench::results
