#include "hetbench/results/metric_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::results {
namespace {

using nlohmann::json;

// Verifies defaults, every field, null fields and unknown fields.
TEST(ParseMetricSpecs, Accepts) {
  const json metrics = json::parse(R"json([
    {"name": "speed", "pattern": "Processing Speed: ([0-9.]+)"},
    {"name": "io", "pattern": "(IO) Time: ([0-9.]+)", "unit": "s", "reduce": "sum", "group": 2,
     "required": false, "description": "ignored"},
    {"name": "effective_throughput", "pattern": "throughput: ([0-9.]+)", "unit": null,
     "reduce": null, "group": 1.0},
    {"name": "_whole", "pattern": "[0-9]+", "group": 0, "unit": ""}
  ])json");
  const common::Result<std::vector<MetricSpec>> specs = parseMetricSpecs(metrics);
  ASSERT_TRUE(specs.isOk()) << specs.status().toString();
  const std::vector<MetricSpec> want = {
      {"speed", "Processing Speed: ([0-9.]+)", "", Reduce::kMean, 1, true},
      {"io", "(IO) Time: ([0-9.]+)", "s", Reduce::kSum, 2, false},
      {"effective_throughput", "throughput: ([0-9.]+)", "samples/s", Reduce::kMean, 1, true},
      {"_whole", "[0-9]+", "", Reduce::kMean, 0, true},
  };
  EXPECT_EQ(*specs, want);
  EXPECT_TRUE(validateMetricSpecs(metrics).isOk());
  EXPECT_TRUE(parseMetricSpecs(json()).isOk());
  EXPECT_TRUE(parseMetricSpecs(json::array())->empty());

  EXPECT_EQ(requiredMetrics(*specs),
            (std::vector<std::string>{"speed", "effective_throughput", "_whole"}));
  const MetricUnits units = metricUnits(*specs);
  EXPECT_EQ(units.at("io"), "s");
  EXPECT_EQ(units.at("speed"), "");
  EXPECT_EQ(units.at("samples_per_wh"), "samples/Wh");
  EXPECT_EQ(units.at("compute_fraction"), "");
}

struct RejectCase {
  std::string name;
  json metrics;
  std::vector<common::StatusCause> want;
};

// Verifies every problem becomes a cause naming its field, worded as the API server words it.
TEST(ParseMetricSpecs, Rejects) {
  const json ok = {{"name", "m"}, {"pattern", "x([0-9]+)"}};
  const auto with = [&](const json& patch) {
    json entry = ok;
    entry.merge_patch(patch);
    return json::array({entry});
  };
  json tooMany = json::array();
  for (int i = 0; i < 33; ++i)
    tooMany.push_back({{"name", "m" + std::to_string(i)}, {"pattern", "(1)"}});
  const std::vector<RejectCase> cases = {
      {"not an array",
       json::object(),
       {{"spec.metrics", "FieldValueTypeInvalid",
         "Invalid value: \"object\": spec.metrics in body must be of type array: \"object\""}}},
      {"an entry that is not an object",
       json::array({ok, "speed"}),
       {{"spec.metrics[1]", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.metrics[1] in body must be of type object: \"string\""}}},
      {"too many",
       tooMany,
       {{"spec.metrics", "FieldValueTooMany", "Too many: 33: must have at most 32 items"}}},
      {"no name",
       with({{"name", nullptr}}),
       {{"spec.metrics[0].name", "FieldValueRequired", "Required value"}}},
      {"a name that is not a string",
       with({{"name", 3}}),
       {{"spec.metrics[0].name", "FieldValueTypeInvalid",
         "Invalid value: \"integer\": spec.metrics[0].name in body must be of type string: "
         "\"integer\""}}},
      {"a name with a dash",
       with({{"name", "io-time"}}),
       {{"spec.metrics[0].name", "FieldValueInvalid",
         "Invalid value: \"io-time\": a metric name must start with a letter or '_', contain only "
         "letters, digits and '_', and have at most 63 characters"}}},
      {"a name of 64 characters",
       with({{"name", std::string(64, 'a')}}),
       {{"spec.metrics[0].name", "FieldValueInvalid",
         "Invalid value: \"" + std::string(64, 'a') +
             "\": a metric name must start with a letter or '_', contain only letters, digits "
             "and '_', and have at most 63 characters"}}},
      {"a duplicate name",
       json::array({ok, ok}),
       {{"spec.metrics[1].name", "FieldValueDuplicate", "Duplicate value: \"m\""}}},
      {"no pattern",
       with({{"pattern", nullptr}}),
       {{"spec.metrics[0].pattern", "FieldValueRequired", "Required value"}}},
      {"an empty pattern",
       with({{"pattern", ""}}),
       {{"spec.metrics[0].pattern", "FieldValueRequired", "Required value"}}},
      {"a pattern that is not a string",
       with({{"pattern", json::array()}}),
       {{"spec.metrics[0].pattern", "FieldValueTypeInvalid",
         "Invalid value: \"array\": spec.metrics[0].pattern in body must be of type string: "
         "\"array\""}}},
      {"a pattern too long",
       with({{"pattern", "(" + std::string(1024, 'a') + ")"}}),
       {{"spec.metrics[0].pattern", "FieldValueTooLong",
         "Too long: may not be more than 1024 bytes"}}},
      {"a pattern that does not compile",
       with({{"pattern", "Speed: ([0-9.]+"}}),
       {{"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"Speed: ([0-9.]+\": does not compile: \"missing ): Speed: ([0-9.]+\""}}},
      {"a back-reference RE2 refuses",
       with({{"pattern", R"((a)\1)"}}),
       {{"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"(a)\\\\1\": does not compile: \"invalid escape sequence: \\\\1\""}}},
      {"a look-ahead RE2 refuses",
       with({{"pattern", R"(([0-9]+)(?= samples))"}}),
       {{"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"([0-9]+)(?= samples)\": does not compile: \"invalid perl operator: "
         "(?=\""}}},
      {"no capture group",
       with({{"pattern", "Speed: [0-9.]+"}}),
       {{"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"Speed: [0-9.]+\": has 0 capture groups, so no group 1"}}},
      {"a group beyond the pattern's",
       with({{"pattern", "(a)(b)"}, {"group", 3}}),
       {{"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"(a)(b)\": has 2 capture groups, so no group 3"}}},
      {"a negative group",
       with({{"group", -1}}),
       {{"spec.metrics[0].group", "FieldValueInvalid",
         "Invalid value: -1: must be greater than or equal to 0"}}},
      {"a group that is not an integer",
       with({{"group", "1"}}),
       {{"spec.metrics[0].group", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.metrics[0].group in body must be of type integer: "
         "\"string\""}}},
      {"a fractional group",
       with({{"group", 1.5}}),
       {{"spec.metrics[0].group", "FieldValueTypeInvalid",
         "Invalid value: \"number\": spec.metrics[0].group in body must be of type integer: "
         "\"number\""}}},
      {"an unknown reduction",
       with({{"reduce", "median"}}),
       {{"spec.metrics[0].reduce", "FieldValueNotSupported",
         "Unsupported value: \"median\": supported values: \"first\", \"last\", \"min\", \"max\", "
         "\"mean\", \"sum\""}}},
      {"a reduction that is not a string",
       with({{"reduce", 1}}),
       {{"spec.metrics[0].reduce", "FieldValueTypeInvalid",
         "Invalid value: \"integer\": spec.metrics[0].reduce in body must be of type string: "
         "\"integer\""}}},
      {"required that is not a boolean",
       with({{"required", "yes"}}),
       {{"spec.metrics[0].required", "FieldValueTypeInvalid",
         "Invalid value: \"string\": spec.metrics[0].required in body must be of type boolean: "
         "\"string\""}}},
      {"a unit that is not a string",
       with({{"unit", 1}}),
       {{"spec.metrics[0].unit", "FieldValueTypeInvalid",
         "Invalid value: \"integer\": spec.metrics[0].unit in body must be of type string: "
         "\"integer\""}}},
      {"a unit too long",
       with({{"unit", std::string(33, 'u')}}),
       {{"spec.metrics[0].unit", "FieldValueTooLong", "Too long: may not be more than 32 bytes"}}},
      {"another unit for a built-in metric",
       with({{"name", "effective_throughput"}, {"unit", "images/s"}}),
       {{"spec.metrics[0].unit", "FieldValueInvalid",
         "Invalid value: \"images/s\": must be \"samples/s\", the unit of the built-in metric "
         "effective_throughput"}}},
      {"several problems at once",
       json::array({{{"name", "a b"}, {"pattern", "("}}, {{"name", "c"}}}),
       {{"spec.metrics[0].name", "FieldValueInvalid",
         "Invalid value: \"a b\": a metric name must start with a letter or '_', contain only "
         "letters, digits and '_', and have at most 63 characters"},
        {"spec.metrics[0].pattern", "FieldValueInvalid",
         "Invalid value: \"(\": does not compile: \"missing ): (\""},
        {"spec.metrics[1].pattern", "FieldValueRequired", "Required value"}}},
  };
  for (const RejectCase& c : cases) {
    const common::Result<std::vector<MetricSpec>> specs = parseMetricSpecs(c.metrics);
    ASSERT_FALSE(specs.isOk()) << c.name;
    const common::Status status = specs.status();
    EXPECT_TRUE(status.isInvalid()) << c.name;
    EXPECT_EQ(status.causes(), c.want) << c.name << ": " << status.toString();
    EXPECT_EQ(validateMetricSpecs(c.metrics), status) << c.name;
  }
}

// Verifies the message of a spec with one problem, as a condition would show it.
TEST(ParseMetricSpecs, Message) {
  const common::Status status =
      validateMetricSpecs(json::parse(R"([{"name": "speed", "pattern": "(a+"}])"));
  EXPECT_EQ(
      status.message(),
      "spec.metrics[0].pattern: Invalid value: \"(a+\": does not compile: \"missing ): (a+\"");
}

// Verifies the metric name rule and the spellings of reductions.
TEST(Metrics, NamesAndSpellings) {
  EXPECT_TRUE(isMetricName("effective_throughput"));
  EXPECT_TRUE(isMetricName("_x9"));
  EXPECT_TRUE(isMetricName(std::string(63, 'a')));
  EXPECT_FALSE(isMetricName(std::string(64, 'a')));
  EXPECT_FALSE(isMetricName(""));
  EXPECT_FALSE(isMetricName("9lives"));
  EXPECT_FALSE(isMetricName("a.b"));
  EXPECT_FALSE(isMetricName("naïve"));
  EXPECT_EQ(builtinMetric("io_seconds")->unit, "s");
  EXPECT_EQ(builtinMetric("speed"), nullptr);
  EXPECT_EQ(toString(Reduce::kFirst), "first");
  EXPECT_EQ(toString(Reduce::kSum), "sum");
}

}  // namespace
}  // namespace hetbench::results
