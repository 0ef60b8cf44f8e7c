#include "hetbench/schedule/schedule_spec.h"

#include <gtest/gtest.h>

namespace hetbench::schedule {
namespace {

using nlohmann::json;

json valid() {
  return {{"schedule", "0 2 * * *"},
          {"runTemplate",
           {{"metadata", {{"labels", {{"team", "hpc"}}}}},
            {"spec",
             {{"benchmark", "resnet50"},
              {"system", "lab-a100"},
              {"workload", {{"image", "hetbench/train:cpu"}}}}}}}};
}

TEST(ScheduleSpecTest, DefaultsAsCronJob) {
  common::Result<ScheduleSpec> parsed = parseScheduleSpec(valid());
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  const ScheduleSpec& s = parsed.value();
  EXPECT_EQ(s.schedule, "0 2 * * *");
  EXPECT_EQ(s.cron, parseCron("0 2 * * *").value());
  EXPECT_EQ(s.timeZone.name(), "UTC");
  EXPECT_EQ(s.concurrencyPolicy, ConcurrencyPolicy::kAllow);
  EXPECT_FALSE(s.startingDeadline);
  EXPECT_FALSE(s.suspend);
  EXPECT_EQ(s.successfulRunsHistoryLimit, 3);
  EXPECT_EQ(s.failedRunsHistoryLimit, 1);
  EXPECT_EQ(s.runLabels, json({{"team", "hpc"}}));
  EXPECT_EQ(s.runAnnotations, json::object());
  EXPECT_EQ(s.runSpec, valid()["runTemplate"]["spec"]);
}

TEST(ScheduleSpecTest, EveryFieldRead) {
  json spec = valid();
  spec["timeZone"] = "Europe/London";
  spec["concurrencyPolicy"] = "Replace";
  spec["startingDeadlineSeconds"] = 600;
  spec["suspend"] = true;
  spec["successfulRunsHistoryLimit"] = 10;
  spec["failedRunsHistoryLimit"] = 0;
  spec["runTemplate"]["metadata"]["annotations"] = {{"note", "weekly"}};
  common::Result<ScheduleSpec> parsed = parseScheduleSpec(spec);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->timeZone.name(), "Europe/London");
  EXPECT_EQ(parsed->concurrencyPolicy, ConcurrencyPolicy::kReplace);
  EXPECT_EQ(parsed->startingDeadline, std::chrono::seconds(600));
  EXPECT_TRUE(parsed->suspend);
  EXPECT_EQ(parsed->successfulRunsHistoryLimit, 10);
  EXPECT_EQ(parsed->failedRunsHistoryLimit, 0);
  EXPECT_EQ(parsed->runAnnotations, json({{"note", "weekly"}}));
}

TEST(ScheduleSpecTest, Rejections) {
  struct Row {
    const char* name;
    std::function<void(json&)> change;
    const char* message;
  };
  const Row rows[] = {
      {"no schedule", [](json& s) { s.erase("schedule"); }, "spec.schedule: Required value"},
      {"bad cron", [](json& s) { s["schedule"] = "61 * * * *"; },
       "spec.schedule: Invalid value: \"61 * * * *\": minute: 61 is above the maximum 59"},
      {"TZ in the schedule", [](json& s) { s["schedule"] = "TZ=UTC 0 * * * *"; },
       "spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in the "
       "schedule; use the timeZone field instead"},
      {"schedule not a string", [](json& s) { s["schedule"] = 5; },
       "spec.schedule: Invalid value: \"integer\": spec.schedule in body must be of type string: "
       "\"integer\""},
      {"unknown zone", [](json& s) { s["timeZone"] = "Europe/Atlantis"; },
       "spec.timeZone: Invalid value: \"Europe/Atlantis\": unknown time zone \"Europe/Atlantis\""},
      {"policy", [](json& s) { s["concurrencyPolicy"] = "Never"; },
       "spec.concurrencyPolicy: Unsupported value: \"Never\": supported values: \"Allow\", "
       "\"Forbid\", \"Replace\""},
      {"negative deadline", [](json& s) { s["startingDeadlineSeconds"] = -1; },
       "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"},
      {"negative history", [](json& s) { s["failedRunsHistoryLimit"] = -2; },
       "spec.failedRunsHistoryLimit: Invalid value: -2: must be greater than or equal to 0"},
      {"no template", [](json& s) { s.erase("runTemplate"); }, "spec.runTemplate: Required value"},
      {"no run spec", [](json& s) { s["runTemplate"].erase("spec"); },
       "spec.runTemplate.spec: Required value"},
      {"bad run spec", [](json& s) { s["runTemplate"]["spec"]["repetitions"] = 0; },
       "spec.runTemplate.spec.repetitions: Invalid value: 0: must be greater than or equal to 1"},
      {"label not a string", [](json& s) { s["runTemplate"]["metadata"]["labels"]["n"] = 1; },
       "spec.runTemplate.metadata.labels.n: Invalid value: \"integer\": "
       "spec.runTemplate.metadata.labels.n in body must be of type string: \"integer\""},
  };
  for (const Row& row : rows) {
    json spec = valid();
    row.change(spec);
    common::Result<ScheduleSpec> parsed = parseScheduleSpec(spec);
    ASSERT_FALSE(parsed.isOk()) << row.name;
    EXPECT_TRUE(parsed.status().isInvalid()) << row.name;
    EXPECT_EQ(parsed.status().message(), row.message) << row.name;
  }
  // Every problem at once, in the order of the spec.
  json bad = valid();
  bad["schedule"] = "* * *";
  bad["suspend"] = "yes";
  common::Result<ScheduleSpec> parsed = parseScheduleSpec(bad);
  ASSERT_FALSE(parsed.isOk());
  EXPECT_EQ(parsed.status().causes().size(), 2u);
  EXPECT_FALSE(parseScheduleSpec(json::array()).isOk());
  EXPECT_FALSE(parseScheduleSpec(nullptr).isOk());
}

// Verifies that the run template is validated as the run controller validates each run, so that
// a template no run could pass (here a pattern RE2 cannot compile) is refused once, here.
TEST(ScheduleSpecTest, RunTemplateValidatedAsARun) {
  json spec = valid();
  spec["runTemplate"]["spec"]["metrics"] =
      json::array({{{"name", "speed"}, {"pattern", "speed ([0-9."}}});
  common::Result<ScheduleSpec> parsed = parseScheduleSpec(spec);
  ASSERT_FALSE(parsed.isOk());
  ASSERT_FALSE(parsed.status().causes().empty());
  EXPECT_EQ(parsed.status().causes()[0].field, "spec.runTemplate.spec.metrics[0].pattern");

  json badReference = valid();
  badReference["runTemplate"]["spec"]["references"] = {{"effective_throughput", {{"lower", 0.1}}}};
  EXPECT_FALSE(parseScheduleSpec(badReference).isOk());
}

}  // namespace
}  // namespace hetbench::schedule
