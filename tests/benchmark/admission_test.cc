// The BenchmarkRun CRD (crds/benchmarkrun.yaml) in kubesim, through the REST client: what the
// API server admits and defaults, what it rejects with which cause, what it prunes, and that
// the controller's parseRunSpec agrees with it where both check.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/clock.h"
#include "hetbench/kube/rest_client.h"
#include "support/kubesim_client.h"
#include "testing/harness.h"

namespace hetbench::benchmark {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using namespace std::chrono_literals;

const kube::GroupVersionResource kRuns{std::string(kGroup), std::string(kVersion),
                                       std::string(kPlural), true};

json run(const std::string& name, const json& spec) {
  return {{"apiVersion", std::string(kApiVersion)},
          {"kind", std::string(kKind)},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

json minimalSpec() {
  return {{"benchmark", "resnet50"},
          {"system", "a100"},
          {"workload", {{"image", "hetbench/train:cpu"}}}};
}

// minimalSpec() with an RFC 7386 merge patch applied (null removes a field).
json specWith(const json& patch) {
  json spec = minimalSpec();
  spec.merge_patch(patch);
  return spec;
}

class Admission : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = testing_support::kubesimClient(h_, clock_);
    ASSERT_TRUE(client_);
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkrun.yaml", kRuns));
  }

  common::Result<json> create(const std::string& name, const json& spec) {
    return client_->create(kRuns, "default", run(name, spec));
  }

  Harness h_;
  common::SystemClock clock_;
  std::unique_ptr<kube::KubeClient> client_;
};

std::vector<std::string> causeFields(const common::Status& status) {
  std::vector<std::string> fields;
  for (const common::StatusCause& cause : status.causes()) fields.push_back(cause.field);
  return fields;
}

bool contains(const std::vector<std::string>& fields, const std::string& field) {
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

// Verifies that a minimal run is admitted with every default applied, and that the stored
// spec parses.
TEST_F(Admission, DefaultsApplied) {
  common::Result<json> created = create("minimal", minimalSpec());
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  const json& spec = (*created)["spec"];
  EXPECT_EQ(spec["repetitions"], 1);
  EXPECT_EQ(spec["parallelism"], 1);
  EXPECT_EQ(spec["timeLimit"], "2h");
  EXPECT_EQ(spec["startTimeout"], "10m");
  EXPECT_EQ(spec["suspend"], false);
  EXPECT_EQ(spec["cleanup"], json({{"onSuccess", "Delete"},
                                   {"onFailure", "Retain"},
                                   {"retainFor", "24h"},
                                   {"maxRetained", 10}}));
  EXPECT_EQ(spec["workload"]["kind"], "Pod");
  EXPECT_EQ(spec["workload"]["accelerator"], json({{"resource", "none"}}));
  EXPECT_EQ(spec["workload"]["nodes"], 1);
  EXPECT_FALSE(spec["workload"].contains("backoffLimit"));  // Job only: render defaults it

  common::Result<RunSpec> parsed = parseRunSpec(spec);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->repetitions, 1);
  EXPECT_EQ(parsed->timeLimit, 2h);
  EXPECT_EQ(parsed->startTimeout, 10min);
  EXPECT_EQ(parsed->cleanup.retainFor, 24h);
  EXPECT_EQ(parsed->cleanup.maxRetained, 10);
}

// Verifies that valid specs of every shape are admitted and that their stored form parses.
TEST_F(Admission, ValidSpecsAdmitted) {
  struct Case {
    std::string name;
    json spec;
  };
  const json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"labels", {{"app", "bench"}}}}},
                    {"spec",
                     {{"restartPolicy", "Never"},
                      {"containers", {{{"name", "c"}, {"image", "$(params.image)"}}}}}}};
  const std::vector<Case> cases = {
      {"everything",
       {{"benchmark", "deepcam"},
        {"system", "h100.lab_1"},
        {"workload",
         {{"kind", "Job"},
          {"image", "hetbench/train:gpu"},
          {"command", {"/bin/train"}},
          {"args", {"--gpus=$(params.gpus)"}},
          {"imagePullPolicy", "IfNotPresent"},
          {"accelerator",
           {{"resource", "nvidia.com/gpu"},
            {"count", "$(params.gpus)"},
            {"product", "NVIDIA-H100-80GB-HBM3"}}},
          {"nodes", 2},
          {"backoffLimit", "1"},
          {"nodeSelector", {{"zone", "a"}}},
          {"tolerations", {{{"key", "dedicated"}, {"operator", "Exists"}}}},
          {"affinity", {{"nodeAffinity", json::object()}}},
          {"resources", {{"requests", {{"cpu", 4}, {"memory", "16Gi"}}}}},
          {"env", {{{"name", "A"}, {"value", "1"}}}},
          {"volumes", {{{"name", "data"}, {"claimName", "imagenet"}, {"mountPath", "/data"}}}},
          {"training",
           {{"batchSize", "$(params.batch)"},
            {"epochs", 1},
            {"stepsPerEpoch", "100"},
            {"precision", "$(params.precision)"},
            {"data", "synthetic"}}}}},
        {"matrix", {{"gpus", {1, 2, 4}}, {"batch", {"128", 256}}, {"precision", {"fp32", "bf16"}}}},
        {"repetitions", 3},
        {"parallelism", 2},
        {"timeLimit", "1h30m"},
        {"startTimeout", "90s"},
        {"suspend", true},
        {"cleanup", {{"onSuccess", "Retain"}, {"retainFor", "1.5h"}, {"maxRetained", 0}}},
        {"metrics", {{{"name", "throughput"}, {"regex", "x"}}}},
        {"references", {{"throughput", 1200.5}}}}},
      {"template",
       specWith(
           {{"workload", nullptr}, {"template", pod}, {"matrix", {{"image", {"a:1", "b:2"}}}}})},
      {"ipujob", specWith({{"workload",
                            {{"kind", "IPUJob"},
                             {"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 4}}}}}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<json> created = create(c.name, c.spec);
    ASSERT_TRUE(created.isOk()) << created.status().toString();
    common::Result<RunSpec> parsed = parseRunSpec((*created)["spec"]);
    EXPECT_TRUE(parsed.isOk()) << parsed.status().toString();
  }
}

// Verifies the schema's rejections: 422 Invalid with a cause naming the field; where the
// controller checks the same field, parseRunSpec rejects the spec with a cause there too.
TEST_F(Admission, InvalidSpecsRejected) {
  struct Case {
    std::string name;
    json spec;
    std::string field;
    std::string reason;
    bool parserChecks;  // false: inside the workload, which render parses per trial
  };
  const std::vector<Case> cases = {
      {"repetitions-string", specWith({{"repetitions", "three"}}), "spec.repetitions",
       "FieldValueTypeInvalid", true},
      {"repetitions-zero", specWith({{"repetitions", 0}}), "spec.repetitions", "FieldValueInvalid",
       true},
      {"repetitions-101", specWith({{"repetitions", 101}}), "spec.repetitions", "FieldValueInvalid",
       true},
      {"parallelism-zero", specWith({{"parallelism", 0}}), "spec.parallelism", "FieldValueInvalid",
       true},
      {"unknown-benchmark", specWith({{"benchmark", "bert"}}), "spec.benchmark",
       "FieldValueNotSupported", true},
      {"missing-system", specWith({{"system", nullptr}}), "spec.system", "FieldValueRequired",
       true},
      {"system-not-label-value", specWith({{"system", "a100/x"}}), "spec.system",
       "FieldValueInvalid", true},
      {"empty-matrix-list", specWith({{"matrix", {{"gpus", json::array()}}}}), "spec.matrix.gpus",
       "FieldValueInvalid", true},
      {"matrix-value-boolean", specWith({{"matrix", {{"gpus", {true}}}}}), "spec.matrix.gpus[0]",
       "FieldValueTypeInvalid", true},
      {"bad-duration", specWith({{"timeLimit", "2 hours"}}), "spec.timeLimit", "FieldValueInvalid",
       true},
      {"bad-start-timeout", specWith({{"startTimeout", "1d"}}), "spec.startTimeout",
       "FieldValueInvalid", true},
      {"bad-retain-for", specWith({{"cleanup", {{"retainFor", "forever"}}}}),
       "spec.cleanup.retainFor", "FieldValueInvalid", true},
      {"unknown-cleanup-action", specWith({{"cleanup", {{"onSuccess", "Keep"}}}}),
       "spec.cleanup.onSuccess", "FieldValueNotSupported", true},
      {"negative-max-retained", specWith({{"cleanup", {{"maxRetained", -1}}}}),
       "spec.cleanup.maxRetained", "FieldValueInvalid", true},
      {"suspend-string", specWith({{"suspend", "yes"}}), "spec.suspend", "FieldValueTypeInvalid",
       true},
      {"workload-and-template-absent", specWith({{"workload", nullptr}}), "spec.workload",
       "FieldValueRequired", true},
      {"negative-accelerator-count",
       specWith({{"workload", {{"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", -1}}}}}}),
       "spec.workload.accelerator.count", "FieldValueInvalid", false},
      {"accelerator-count-word", specWith({{"workload", {{"accelerator", {{"count", "four"}}}}}}),
       "spec.workload.accelerator.count", "FieldValueInvalid", false},
      {"unknown-accelerator", specWith({{"workload", {{"accelerator", {{"resource", "tpu"}}}}}}),
       "spec.workload.accelerator.resource", "FieldValueNotSupported", false},
      {"unknown-workload-kind", specWith({{"workload", {{"kind", "Deployment"}}}}),
       "spec.workload.kind", "FieldValueNotSupported", false},
      {"empty-image", specWith({{"workload", {{"image", ""}}}}), "spec.workload.image",
       "FieldValueInvalid", false},
      {"zero-nodes", specWith({{"workload", {{"nodes", 0}}}}), "spec.workload.nodes",
       "FieldValueInvalid", false},
      {"unknown-precision", specWith({{"workload", {{"training", {{"precision", "fp8"}}}}}}),
       "spec.workload.training.precision", "FieldValueInvalid", false},
      {"volume-without-claim",
       specWith({{"workload", {{"volumes", {{{"name", "d"}, {"mountPath", "/d"}}}}}}}),
       "spec.workload.volumes[0].claimName", "FieldValueRequired", false},
      {"matrix-values-beyond-the-units",
       specWith({{"matrix", {{"gpus", json(std::vector<int>(1001, 1))}}}}), "spec.matrix.gpus",
       "FieldValueTooMany", false},
      {"too-many-metrics",
       specWith({{"metrics", json(std::vector<json>(33, {{"name", "m"}, {"pattern", "(x)"}}))}}),
       "spec.metrics", "FieldValueTooMany", false},
      {"service-account-name-too-long",
       specWith({{"workload", {{"serviceAccountName", std::string(254, 's')}}}}),
       "spec.workload.serviceAccountName", "FieldValueTooLong", false},
      {"volume-name-too-long",
       specWith(
           {{"workload",
             {{"volumes",
               {{{"name", std::string(64, 'v')}, {"claimName", "c"}, {"mountPath", "/d"}}}}}}}),
       "spec.workload.volumes[0].name", "FieldValueTooLong", false},
      {"template-without-kind",
       specWith({{"workload", nullptr}, {"template", {{"apiVersion", "v1"}}}}),
       "spec.template.kind", "FieldValueRequired", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<json> created = create(c.name, c.spec);
    ASSERT_FALSE(created.isOk()) << c.name << " was admitted";
    EXPECT_TRUE(created.status().isInvalid()) << created.status().toString();
    const std::vector<common::StatusCause> causes = created.status().causes();
    EXPECT_TRUE(std::any_of(causes.begin(), causes.end(), [&](const common::StatusCause& cause) {
      return cause.field == c.field && cause.reason == c.reason;
    })) << created.status().toString();
    if (c.parserChecks) {
      const common::Result<RunSpec> parsed = parseRunSpec(c.spec);
      ASSERT_FALSE(parsed.isOk()) << "parseRunSpec accepts what the API server rejects";
      EXPECT_TRUE(contains(causeFields(parsed.status()), c.field)) << parsed.status().toString();
    }
  }
}

// Verifies that exactly-one-of is enforced by the schema's oneOf, also when both are set.
TEST_F(Admission, WorkloadAndTemplateBothSet) {
  const json spec =
      specWith({{"template", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", json::object()}}}});
  common::Result<json> created = create("both", spec);
  ASSERT_FALSE(created.isOk());
  EXPECT_TRUE(created.status().isInvalid());
  EXPECT_NE(created.status().message().find("must validate one and only one schema (oneOf)"),
            std::string::npos)
      << created.status().toString();
  EXPECT_TRUE(contains(causeFields(parseRunSpec(spec).status()), "spec.template"));
}

// Verifies that unknown fields are pruned where the schema declares the fields, and kept where
// it preserves them (template, affinity, tolerations, metrics, references).
TEST_F(Admission, UnknownFieldsPruned) {
  json spec = specWith({{"colour", "red"},
                        {"cleanup", {{"extra", 1}}},
                        {"workload",
                         {{"colour", "blue"},
                          {"affinity", {{"custom", {{"x", 1}}}}},
                          {"tolerations", {{{"key", "k"}, {"custom", true}}}},
                          {"training", {{"learningRate", "0.1"}}}}},
                        {"metrics", {{{"name", "m"}, {"custom", 1}}}},
                        {"references", {{"custom", {{"a", 1}}}}}});
  common::Result<json> created = create("pruned", spec);
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  common::Result<json> stored = client_->get(kRuns, "default", "pruned");
  ASSERT_TRUE(stored.isOk()) << stored.status().toString();
  const json& s = (*stored)["spec"];
  EXPECT_FALSE(s.contains("colour"));
  EXPECT_FALSE(s["cleanup"].contains("extra"));
  EXPECT_FALSE(s["workload"].contains("colour"));
  EXPECT_FALSE(s["workload"]["training"].contains("learningRate"));
  EXPECT_EQ(s["workload"]["affinity"], json({{"custom", {{"x", 1}}}}));
  EXPECT_EQ(s["workload"]["tolerations"][0]["custom"], true);
  EXPECT_EQ(s["metrics"][0]["custom"], 1);
  EXPECT_EQ(s["references"]["custom"], json({{"a", 1}}));

  json templated = specWith({{"workload", nullptr},
                             {"template",
                              {{"apiVersion", "batch/v1"},
                               {"kind", "Job"},
                               {"spec", {{"anything", {{"goes", "$(params.x)"}}}}}}},
                             {"matrix", {{"x", {1}}}}});
  common::Result<json> withTemplate = create("templated", templated);
  ASSERT_TRUE(withTemplate.isOk()) << withTemplate.status().toString();
  EXPECT_EQ((*withTemplate)["spec"]["template"]["spec"], templated["template"]["spec"]);
}

// Verifies the status subresource: a status sent on create is dropped.
TEST_F(Admission, StatusIgnoredOnCreate) {
  json object = run("with-status", minimalSpec());
  object["status"] = {{"phase", "Succeeded"}};
  common::Result<json> created = client_->create(kRuns, "default", object);
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  EXPECT_FALSE(created->contains("status")) << created->dump();
}

// Verifies discovery (short name, category) and the printer columns kubectl shows: the wide ones
// (priority 1) last, the accelerator from its defaults, nothing for a condition not yet written.
TEST_F(Admission, DiscoveryAndPrinterColumns) {
  const json resources = kubesim::testing::bodyJson(h_.get("/apis/hetbench.io/v1alpha1"));
  ASSERT_FALSE(resources["resources"].empty()) << resources;
  EXPECT_EQ(resources["resources"][0]["shortNames"], json({"br"}));
  EXPECT_EQ(resources["resources"][0]["categories"], json({"hetbench"}));

  ASSERT_TRUE(create("shown", minimalSpec()).isOk());
  const kubesim::testing::Response r =
      h_.request("GET", "/apis/hetbench.io/v1alpha1/namespaces/default/benchmarkruns", "",
                 "application/json", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io\r\n");
  ASSERT_EQ(r.status, 200) << r.body;
  const json table = kubesim::testing::bodyJson(r);
  std::vector<std::string> columns;
  std::vector<int> priorities;
  for (const json& c : table["columnDefinitions"]) {
    columns.push_back(c["name"]);
    priorities.push_back(c["priority"]);
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Benchmark", "System", "Phase", "Trials",
                                               "Throughput", "Verdict", "Age", "Accelerator",
                                               "Product", "Failure", "Message"}));
  EXPECT_EQ(priorities, (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_EQ(table["rows"].size(), 1u);
  const json& cells = table["rows"][0]["cells"];
  EXPECT_EQ(cells[1], "resnet50");
  EXPECT_EQ(cells[2], "a100");
  EXPECT_EQ(cells[8], "none");
  EXPECT_TRUE(cells[9].is_null()) << cells;
  EXPECT_TRUE(cells[11].is_null()) << cells;
}

}  // namespace
}  // namespace hetbench::benchmark
