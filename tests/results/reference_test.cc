#include "hetbench/results/reference.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetbench/results/metric_spec.h"
#include "printers.h"

namespace hetbench::results {
namespace {

using nlohmann::json;

const MetricUnits kUnits = metricUnits({});

// Verifies every field, the defaults, units taken from the metric, and null entries.
TEST(ParseReferences, Accepts) {
  const json references = json::parse(R"({
    "effective_throughput": {"value": 1000, "lower": 0.05, "upper": 0.1},
    "io_seconds": {"value": 10.5, "upper": 0.2, "direction": "lower", "unit": "s"},
    "speed": {"value": 179.7, "unit": "images/s", "lower": 0, "upper": null, "note": "ignored"},
    "bare": {"value": 1},
    "unset": null
  })");
  const common::Result<References> got = parseReferences(references, kUnits);
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  const References want = {
      {"effective_throughput",
       {1000, 0.05, 0.1, "samples/s", Direction::kHigher, std::nullopt, ""}},
      {"io_seconds", {10.5, std::nullopt, 0.2, "s", Direction::kLower, std::nullopt, ""}},
      {"speed", {179.7, 0, std::nullopt, "images/s", Direction::kHigher, std::nullopt, ""}},
      {"bare", {1, std::nullopt, std::nullopt, "", Direction::kHigher, std::nullopt, ""}},
  };
  EXPECT_EQ(*got, want);
  EXPECT_TRUE(parseReferences(json(), kUnits)->empty());
  EXPECT_TRUE(parseReferences(json::object(), kUnits)->empty());
  // A pattern metric's unit comes from its spec.
  const MetricUnits units = metricUnits({{"speed", "(x)", "images/s", Reduce::kMean, 1, true}});
  EXPECT_EQ(parseReferences(json::parse(R"({"speed": {"value": 2}})"), units)->at("speed").unit,
            "images/s");
}

// Verifies every problem becomes a cause naming its field.
// Verifies fromHistory's defaults (5 runs, at least 3, the median; minRuns never above runs)
// and that a history reference has no value until the controller resolves it.
TEST(ParseReferences, FromHistory) {
  const json references = json::parse(R"({
    "effective_throughput": {"fromHistory": {}, "lower": 0.1},
    "compute_throughput": {"fromHistory": {"runs": 2}},
    "io_seconds": {"fromHistory": {"runs": 10, "minRuns": 1, "statistic": "mean"},
                   "direction": "lower"}
  })");
  const common::Result<References> got = parseReferences(references, kUnits);
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  const Reference& et = got->at("effective_throughput");
  EXPECT_EQ(et.value, 0);
  EXPECT_EQ(et.lower, 0.1);
  EXPECT_EQ(et.fromHistory, (HistoryBaseline{5, 3, HistoryBaseline::Statistic::kMedian}));
  EXPECT_EQ(got->at("compute_throughput").fromHistory,
            (HistoryBaseline{2, 2, HistoryBaseline::Statistic::kMedian}));
  EXPECT_EQ(got->at("io_seconds").fromHistory,
            (HistoryBaseline{10, 1, HistoryBaseline::Statistic::kMean}));
}

// Verifies the median (odd and even counts, unsorted input) and the mean of a baseline.
TEST(Baseline, Statistics) {
  EXPECT_EQ(baselineOf(HistoryBaseline::Statistic::kMedian, {3, 1, 2}), 2);
  EXPECT_EQ(baselineOf(HistoryBaseline::Statistic::kMedian, {4, 1, 3, 2}), 2.5);
  EXPECT_EQ(baselineOf(HistoryBaseline::Statistic::kMedian, {7}), 7);
  EXPECT_EQ(baselineOf(HistoryBaseline::Statistic::kMean, {1, 2, 6}), 3);
}

// Verifies that a resolved history reference is judged with its basis in the message, and one
// without enough history is NoReference saying why.
TEST(JudgeTrial, HistoryReferences) {
  TrialMetrics trial;
  trial.repetitions = 1;
  trial.metrics["effective_throughput"] = {80, 0, 80, 80, 1};
  Reference resolved{100,
                     0.1,
                     std::nullopt,
                     "samples/s",
                     Direction::kHigher,
                     HistoryBaseline{},
                     "the median of the last 3 passing run(s)"};
  const TrialVerdict regressed = judgeTrial(trial, {{"effective_throughput", resolved}}, {});
  EXPECT_EQ(regressed.verdict, Verdict::kRegressed);
  ASSERT_EQ(regressed.checks.size(), 1u);
  EXPECT_EQ(regressed.checks[0].message,
            "effective_throughput 80 samples/s, against the median of the last 3 passing run(s), "
            "is 20% below the reference 100 (allowed \u221210%)");
  Reference early = resolved;
  early.value = 0;
  early.basis =
      "1 earlier passing run(s) of this configuration, fewer than the 3 that "
      "fromHistory.minRuns asks for";
  const TrialVerdict none = judgeTrial(trial, {{"effective_throughput", early}}, {});
  EXPECT_EQ(none.verdict, Verdict::kNoReference);
  EXPECT_EQ(none.checks[0].message,
            "effective_throughput 80 samples/s has no reference yet: " + early.basis);
}

TEST(ParseReferences, Rejects) {
  struct Case {
    std::string name;
    json references;
    std::vector<common::StatusCause> want;
  };
  const std::string et = "spec.references.effective_throughput";
  const auto ref = [](const json& fields) { return json{{"effective_throughput", fields}}; };
  const std::vector<Case> cases = {
      {"not an object",
       json::array(),
       {{"spec.references", "FieldValueTypeInvalid",
         "Invalid value: \"array\": spec.references in body must be of type object: \"array\""}}},
      {"a bad metric name",
       json{{"io-time", {{"value", 1}}}},
       {{"spec.references", "FieldValueInvalid",
         "Invalid value: \"io-time\": a metric name must start with a letter or '_', contain only "
         "letters, digits and '_', and have at most 63 characters"}}},
      {"a number instead of an object",
       ref(1000),
       {{et, "FieldValueTypeInvalid",
         "Invalid value: \"integer\": spec.references.effective_throughput in body must be of type "
         "object: \"integer\""}}},
      {"no value",
       ref({{"lower", 0.05}}),
       {{et + ".value", "FieldValueRequired", "Required value"}}},
      {"a value that is a string",
       ref({{"value", "1000"}}),
       {{et + ".value", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.references.effective_throughput.value in body must be of "
         "type number: \"string\""}}},
      {"fromHistory and a value",
       ref({{"value", 10}, {"fromHistory", json::object()}}),
       {{et + ".value", "FieldValueInvalid",
         "Invalid value: 10: must be absent when fromHistory gives the value"}}},
      {"fromHistory not an object",
       ref({{"fromHistory", 5}}),
       {{et + ".fromHistory", "FieldValueTypeInvalid",
         "Invalid value: \"integer\": spec.references.effective_throughput.fromHistory in body "
         "must be of type object: \"integer\""}}},
      {"fromHistory runs out of range",
       ref({{"fromHistory", {{"runs", 0}}}}),
       {{et + ".fromHistory.runs", "FieldValueInvalid",
         "Invalid value: 0: must be between 1 and 100"}}},
      {"fromHistory minRuns above runs",
       ref({{"fromHistory", {{"runs", 3}, {"minRuns", 4}}}}),
       {{et + ".fromHistory.minRuns", "FieldValueInvalid",
         "Invalid value: 4: must be between 1 and 3"}}},
      {"fromHistory with an unknown statistic",
       ref({{"fromHistory", {{"statistic", "mode"}}}}),
       {{et + ".fromHistory.statistic", "FieldValueNotSupported",
         "Unsupported value: \"mode\": supported values: \"median\", \"mean\""}}},
      {"a value of 0",
       ref({{"value", 0}}),
       {{et + ".value", "FieldValueInvalid", "Invalid value: 0: must be greater than 0"}}},
      {"a negative value",
       ref({{"value", -5.5}}),
       {{et + ".value", "FieldValueInvalid", "Invalid value: -5.5: must be greater than 0"}}},
      {"lower above 1",
       ref({{"value", 1}, {"lower", 1.5}}),
       {{et + ".lower", "FieldValueInvalid",
         "Invalid value: 1.5: must be between 0 and 1, a fraction of value (0.05 allows 5% below "
         "it)"}}},
      {"lower negative, as ReFrame writes it",
       ref({{"value", 1}, {"lower", -0.05}}),
       {{et + ".lower", "FieldValueInvalid",
         "Invalid value: -0.05: must be between 0 and 1, a fraction of value (0.05 allows 5% "
         "below it)"}}},
      {"lower as a percentage string",
       ref({{"value", 1}, {"lower", "5%"}}),
       {{et + ".lower", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.references.effective_throughput.lower in body must be of "
         "type number: \"string\""}}},
      {"upper negative",
       ref({{"value", 1}, {"upper", -0.1}}),
       {{et + ".upper", "FieldValueInvalid",
         "Invalid value: -0.1: must be greater than or equal to 0, a fraction of value (0.1 "
         "allows 10% above it)"}}},
      {"another unit than the metric's",
       ref({{"value", 1}, {"unit", "images/s"}}),
       {{et + ".unit", "FieldValueInvalid",
         "Invalid value: \"images/s\": must be \"samples/s\", the unit of effective_throughput"}}},
      {"a unit that is not a string",
       ref({{"value", 1}, {"unit", true}}),
       {{et + ".unit", "FieldValueTypeInvalid",
         "Invalid value: \"boolean\": spec.references.effective_throughput.unit in body must be of "
         "type string: \"boolean\""}}},
      {"an unknown direction",
       ref({{"value", 1}, {"direction", "up"}}),
       {{et + ".direction", "FieldValueNotSupported",
         "Unsupported value: \"up\": supported values: \"higher\", \"lower\""}}},
      {"several problems, in order",
       json{{"a", {{"value", 0}, {"lower", 2}}}, {"b", "x"}},
       {{"spec.references.a.value", "FieldValueInvalid",
         "Invalid value: 0: must be greater than 0"},
        {"spec.references.a.lower", "FieldValueInvalid",
         "Invalid value: 2: must be between 0 and 1, a fraction of value (0.05 allows 5% below "
         "it)"},
        {"spec.references.b", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.references.b in body must be of type object: "
         "\"string\""}}},
  };
  for (const Case& c : cases) {
    const common::Result<References> got = parseReferences(c.references, kUnits);
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_EQ(got.status().causes(), c.want) << c.name << ": " << got.status().toString();
  }
}

TrialMetrics trialOf(std::int64_t repetitions, const std::map<std::string, MetricStats>& metrics) {
  return {repetitions, metrics};
}

MetricStats mean(double value, std::int64_t n = 1) { return {value, 0, value, value, n}; }

Reference band(double value, std::optional<double> lower, std::optional<double> upper,
               const std::string& unit = "samples/s", Direction direction = Direction::kHigher) {
  return {value, lower, upper, unit, direction, std::nullopt, ""};
}

// Verifies Student's t quantiles: the tables' values, and the expansion beyond them.
TEST(StudentT95, Quantiles) {
  EXPECT_DOUBLE_EQ(studentT95(1), 6.3138);
  EXPECT_DOUBLE_EQ(studentT95(0), 6.3138);
  EXPECT_DOUBLE_EQ(studentT95(2), 2.9200);
  EXPECT_DOUBLE_EQ(studentT95(30), 1.6973);
  EXPECT_NEAR(studentT95(31), 1.6955, 1e-4);
  EXPECT_NEAR(studentT95(60), 1.6706, 1e-4);
  EXPECT_NEAR(studentT95(120), 1.6577, 1e-4);
  EXPECT_NEAR(studentT95(100000), 1.6449, 1e-4);
}

// Verifies every verdict, the band's semantics (inclusive bounds, open sides, direction) and
// the messages with their numbers.
TEST(JudgeTrial, Table) {
  struct Case {
    std::string name;
    TrialMetrics trial;
    References references;
    std::vector<std::string> required;
    TrialVerdict want;
  };
  const std::string et = "effective_throughput";
  const References fivePercent = {{et, band(1000, 0.05, 0.1)}};
  const std::vector<Case> cases = {
      {"regressed below the band",
       trialOf(1, {{et, mean(912.4)}}),
       fivePercent,
       {},
       {Verdict::kRegressed,
        {{et, Verdict::kRegressed,
          "effective_throughput 912.4 samples/s is 8.8% below the reference 1000 (allowed "
          "\u22125%)"}}}},
      {"within the band, below",
       trialOf(1, {{et, mean(960)}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 960 samples/s is 4% below the reference 1000 (allowed "
          "\u22125%)"}}}},
      {"on the lower bound",
       trialOf(1, {{et, mean(950)}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 950 samples/s is 5% below the reference 1000 (allowed "
          "\u22125%)"}}}},
      {"equal to the reference",
       trialOf(1, {{et, mean(1000)}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass, "effective_throughput 1000 samples/s equals the reference 1000"}}}},
      {"within the band, above",
       trialOf(1, {{et, mean(1050)}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 1050 samples/s is 5% above the reference 1000 (allowed +10%)"}}}},
      {"an improvement beyond the band",
       trialOf(1, {{et, mean(1200)}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 1200 samples/s is 20% above the reference 1000 (allowed +10%): "
          "an improvement beyond the band; update the reference if it holds"}}}},
      {"no lower bound",
       trialOf(1, {{et, mean(500)}}),
       {{et, band(1000, std::nullopt, 0.1)}},
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 500 samples/s is 50% below the reference 1000 (no lower "
          "bound)"}}}},
      {"no upper bound",
       trialOf(1, {{et, mean(2000)}}),
       {{et, band(1000, 0.05, std::nullopt)}},
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 2000 samples/s is 100% above the reference 1000 (no upper "
          "bound)"}}}},
      {"lower is better: above the band regresses",
       trialOf(1, {{"io_seconds", mean(12.3)}}),
       {{"io_seconds", band(10, 0.1, 0.2, "s", Direction::kLower)}},
       {},
       {Verdict::kRegressed,
        {{"io_seconds", Verdict::kRegressed,
          "io_seconds 12.3 s is 23% above the reference 10 (allowed +20%)"}}}},
      {"lower is better: below the band improves",
       trialOf(1, {{"io_seconds", mean(5)}}),
       {{"io_seconds", band(10, 0.1, 0.2, "s", Direction::kLower)}},
       {},
       {Verdict::kPass,
        {{"io_seconds", Verdict::kPass,
          "io_seconds 5 s is 50% below the reference 10 (allowed \u221210%): an improvement "
          "beyond the band; update the reference if it holds"}}}},
      {"a ratio without a unit, over three repetitions",
       trialOf(3, {{"compute_fraction", mean(0.7, 3)}}),
       {{"compute_fraction", band(0.8, 0.1, std::nullopt, "")}},
       {},
       {Verdict::kRegressed,
        {{"compute_fraction", Verdict::kRegressed,
          "compute_fraction 0.7 (mean of 3) is 12.5% below the reference 0.8 (allowed "
          "\u221210%)"}}}},
      {"three repetitions shown within the band (95% bound 962.3)",
       trialOf(3, {{et, {980, 10, 970, 990, 3}}}),
       fivePercent,
       {},
       {Verdict::kPass,
        {{et, Verdict::kPass,
          "effective_throughput 980 samples/s (mean of 3) is 2% below the reference 1000 "
          "(allowed \u22125%)"}}}},
      {"three repetitions within the band, too spread to show it",
       trialOf(3, {{et, {980, 30, 950, 1010, 3}}}),
       fivePercent,
       {},
       {Verdict::kInconclusive,
        {{et, Verdict::kInconclusive,
          "effective_throughput 980 samples/s (mean of 3) is 2% below the reference 1000 "
          "(allowed \u22125%): within the band, but the 95% confidence bound of the mean, "
          "929.42, is beyond 950; more repetitions would tell"}}}},
      {"above the reference, still too spread on the worse side",
       trialOf(2, {{et, {1010, 40, 980, 1040, 2}}}),
       fivePercent,
       {},
       {Verdict::kInconclusive,
        {{et, Verdict::kInconclusive,
          "effective_throughput 1010 samples/s (mean of 2) is 1% above the reference 1000 "
          "(allowed +10%): within the band, but the 95% confidence bound of the mean, 831.42, is "
          "beyond 950; more repetitions would tell"}}}},
      {"lower is better: the bound on the upper side",
       trialOf(4, {{"io_seconds", {10.5, 2, 8.5, 12.5, 4}}}),
       {{"io_seconds", band(10, 0.1, 0.2, "s", Direction::kLower)}},
       {},
       {Verdict::kInconclusive,
        {{"io_seconds", Verdict::kInconclusive,
          "io_seconds 10.5 s (mean of 4) is 5% above the reference 10 (allowed +20%): within "
          "the band, but the 95% confidence bound of the mean, 12.853, is beyond 12; more "
          "repetitions would tell"}}}},
      {"a referenced metric missing from the log",
       trialOf(1, {{"speed", mean(1)}}),
       fivePercent,
       {},
       {Verdict::kMetricMissing,
        {{et, Verdict::kMetricMissing, "effective_throughput is missing from the log"}}}},
      {"a referenced metric missing from some repetitions",
       trialOf(3, {{et, mean(1000, 2)}}),
       fivePercent,
       {},
       {Verdict::kMetricMissing,
        {{et, Verdict::kMetricMissing,
          "effective_throughput is missing from 1 of 3 repetitions"}}}},
      {"a trial without repetitions",
       trialOf(0, {}),
       fivePercent,
       {},
       {Verdict::kMetricMissing,
        {{et, Verdict::kMetricMissing, "effective_throughput is missing from the log"}}}},
      {"a required metric present, without a reference",
       trialOf(1, {{"speed", mean(1)}}),
       {},
       {"speed"},
       {Verdict::kNoReference, {}}},
      {"a required metric missing",
       trialOf(2, {{"speed", mean(1, 2)}}),
       {},
       {"speed", "io"},
       {Verdict::kMetricMissing, {{"io", Verdict::kMetricMissing, "io is missing from the log"}}}},
      {"nothing referenced or required", trialOf(1, {{et, mean(1)}}), {}, {}, {}},
      {"the most severe check decides",
       trialOf(1, {{et, mean(900)}, {"io_seconds", mean(10)}}),
       {{et, band(1000, 0.05, 0.1)},
        {"io_seconds", band(10, 0.1, 0.1, "s", Direction::kLower)},
        {"speed", band(5, 0.1, 0.1, "")}},
       {"io_seconds"},
       {Verdict::kMetricMissing,
        {{et, Verdict::kRegressed,
          "effective_throughput 900 samples/s is 10% below the reference 1000 (allowed "
          "\u22125%)"},
         {"io_seconds", Verdict::kPass, "io_seconds 10 s equals the reference 10"},
         {"speed", Verdict::kMetricMissing, "speed is missing from the log"}}}},
  };
  for (const Case& c : cases) {
    const TrialVerdict got = judgeTrial(c.trial, c.references, c.required);
    EXPECT_EQ(got.verdict, c.want.verdict) << c.name << ": " << toString(got.verdict);
    EXPECT_EQ(got.checks, c.want.checks) << c.name;
  }
}

// Verifies the order of severity across trials and the spellings.
TEST(RunVerdict, MostSevere) {
  EXPECT_EQ(runVerdict({}), Verdict::kNoReference);
  EXPECT_EQ(runVerdict({Verdict::kNoReference, Verdict::kNoReference}), Verdict::kNoReference);
  EXPECT_EQ(runVerdict({Verdict::kNoReference, Verdict::kPass}), Verdict::kPass);
  EXPECT_EQ(runVerdict({Verdict::kPass, Verdict::kRegressed, Verdict::kNoReference}),
            Verdict::kRegressed);
  EXPECT_EQ(runVerdict({Verdict::kRegressed, Verdict::kMetricMissing, Verdict::kPass}),
            Verdict::kMetricMissing);
  EXPECT_EQ(toString(Verdict::kNoReference), "NoReference");
  EXPECT_EQ(toString(Verdict::kPass), "Pass");
  EXPECT_EQ(toString(Verdict::kRegressed), "Regressed");
  EXPECT_EQ(toString(Verdict::kMetricMissing), "MetricMissing");
  EXPECT_EQ(toString(Direction::kHigher), "higher");
  EXPECT_EQ(toString(Direction::kLower), "lower");
}

}  // namespace
}  // namespace hetbench::results
