// The BenchmarkSchedule CRD (crds/benchmarkschedule.yaml) in kubesim, through the REST client:
// what the API server admits and defaults, what it rejects, and that the controller's
// parseScheduleSpec refuses what the schema cannot express.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/schedule/schedule_spec.h"
#include "support/kubesim_client.h"
#include "testing/harness.h"

namespace hetbench::schedule {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;

const kube::GroupVersionResource kSchedules{"hetbench.io", "v1alpha1", "benchmarkschedules", true};

json minimalSpec() {
  return {{"schedule", "0 2 * * *"},
          {"runTemplate",
           {{"spec",
             {{"benchmark", "resnet50"},
              {"system", "lab-a100"},
              {"workload", {{"image", "hetbench/train:cpu"}}}}}}}};
}

class ScheduleAdmission : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = testing_support::kubesimClient(h_, clock_);
    ASSERT_TRUE(client_);
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkschedule.yaml", kSchedules));
  }

  common::Result<json> create(const std::string& name, const json& spec) {
    return client_->create(kSchedules, "default",
                           {{"apiVersion", "hetbench.io/v1alpha1"},
                            {"kind", "BenchmarkSchedule"},
                            {"metadata", {{"name", name}}},
                            {"spec", spec}});
  }

  Harness h_;
  common::SystemClock clock_;
  std::unique_ptr<kube::KubeClient> client_;
};

// Verifies a minimal schedule is admitted with CronJob's defaults, and the stored spec parses.
TEST_F(ScheduleAdmission, DefaultsApplied) {
  common::Result<json> created = create("nightly", minimalSpec());
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  const json& spec = (*created)["spec"];
  EXPECT_EQ(spec["concurrencyPolicy"], "Allow");
  EXPECT_EQ(spec["suspend"], false);
  EXPECT_EQ(spec["successfulRunsHistoryLimit"], 3);
  EXPECT_EQ(spec["failedRunsHistoryLimit"], 1);
  EXPECT_EQ(spec["runTemplate"]["spec"], minimalSpec()["runTemplate"]["spec"]);
  common::Result<ScheduleSpec> parsed = parseScheduleSpec(spec);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
}

// Verifies what the schema rejects, each with the field it names.
TEST_F(ScheduleAdmission, SchemaRejections) {
  struct Case {
    std::string name;
    json patch;  // an RFC 7386 merge patch of minimalSpec(); null removes a field
    std::string field;
  };
  const std::vector<Case> cases = {
      {"no-schedule", {{"schedule", nullptr}}, "spec.schedule"},
      {"empty-schedule", {{"schedule", ""}}, "spec.schedule"},
      {"no-template", {{"runTemplate", nullptr}}, "spec.runTemplate"},
      {"no-run-spec", {{"runTemplate", {{"spec", nullptr}}}}, "spec.runTemplate.spec"},
      {"policy", {{"concurrencyPolicy", "Never"}}, "spec.concurrencyPolicy"},
      {"deadline", {{"startingDeadlineSeconds", -1}}, "spec.startingDeadlineSeconds"},
      {"history", {{"failedRunsHistoryLimit", -1}}, "spec.failedRunsHistoryLimit"},
      {"label",
       {{"runTemplate", {{"metadata", {{"labels", {{"n", 1}}}}}}}},
       "spec.runTemplate.metadata.labels.n"},
  };
  for (const Case& c : cases) {
    json spec = minimalSpec();
    spec.merge_patch(c.patch);
    common::Result<json> created = create(c.name, spec);
    ASSERT_FALSE(created.isOk()) << c.name;
    EXPECT_TRUE(created.status().isInvalid()) << c.name << ": " << created.status().toString();
    bool named = false;
    const common::Status status = created.status();  // by value: causes() refers into it
    for (const common::StatusCause& cause : status.causes())
      named = named || cause.field == c.field;
    EXPECT_TRUE(named) << c.name << ": " << created.status().toString();
    EXPECT_FALSE(parseScheduleSpec(spec).isOk()) << c.name << ": the parser must refuse it too";
  }
}

// Verifies that what only the controller can check is admitted by the schema and refused by
// parseScheduleSpec, naming the field.
TEST_F(ScheduleAdmission, ControllerChecksWhatTheSchemaCannot) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"schedule", "61 * * * *"}}, "spec.schedule"},
      {{{"timeZone", "Europe/Atlantis"}}, "spec.timeZone"},
      {{{"runTemplate", {{"spec", {{"repetitions", 0}}}}}}, "spec.runTemplate.spec.repetitions"},
  };
  int i = 0;
  for (const auto& [patch, field] : cases) {
    json spec = minimalSpec();
    spec.merge_patch(patch);
    common::Result<json> created = create("late-" + std::to_string(i++), spec);
    ASSERT_TRUE(created.isOk()) << field << ": " << created.status().toString();
    common::Result<ScheduleSpec> parsed = parseScheduleSpec((*created)["spec"]);
    ASSERT_FALSE(parsed.isOk()) << field;
    ASSERT_FALSE(parsed.status().causes().empty());
    EXPECT_EQ(parsed.status().causes().front().field, field);
  }
}

}  // namespace
}  // namespace hetbench::schedule
