// Bad workloads, templates and runs: Invalid with causes in the API server's words, and
// hostile JSON that never throws.
#include <gtest/gtest.h>

#include "hetbench/benchmark/render.h"
#include "render_fixtures.h"

namespace hetbench::benchmark {
namespace {

using namespace hetbench::benchmark::testing;
using nlohmann::json;

// Verifies that a bad workload is Invalid with a cause naming the field in the API server's words.
TEST(ParseWorkload, RejectsBadWorkloads) {
  const std::string type = " in body must be of type ";
  const std::vector<ErrorCase> cases = {
      {"not an object", "pod", "spec.workload",
       "Invalid value: \"string\": spec.workload" + type + "object: \"string\""},
      {"no image", json::object(), "spec.workload.image", "Required value"},
      {"empty image", {{"image", ""}}, "spec.workload.image", "Required value"},
      {"image of the wrong type",
       {{"image", 5}},
       "spec.workload.image",
       "Invalid value: \"integer\": spec.workload.image" + type + "string: \"integer\""},
      {"unknown kind",
       {{"image", "i"}, {"kind", "Deployment"}},
       "spec.workload.kind",
       "Unsupported value: \"Deployment\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
      {"kind of the wrong type",
       {{"image", "i"}, {"kind", true}},
       "spec.workload.kind",
       "Invalid value: \"boolean\": spec.workload.kind" + type + "string: \"boolean\""},
      {"negative count",
       {{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", -1}}}},
       "spec.workload.accelerator.count",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"negative count as a string",
       {{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "-1"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"-1\": must be an integer or a string of decimal digits"},
      {"count of words",
       {{"image", "i"}, {"accelerator", {{"resource", "amd.com/gpu"}, {"count", "two"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"two\": must be an integer or a string of decimal digits"},
      {"fractional count",
       {{"image", "i"}, {"accelerator", {{"resource", "amd.com/gpu"}, {"count", 1.5}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"number\": spec.workload.accelerator.count" + type +
           "integer or string: \"number\""},
      {"count beyond int64",
       {{"image", "i"},
        {"accelerator", {{"resource", "amd.com/gpu"}, {"count", "99999999999999999999"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"99999999999999999999\": must be no more than 9223372036854775807"},
      {"unsigned count beyond int64",
       {{"image", "i"},
        {"accelerator", {{"resource", "amd.com/gpu"}, {"count", 18446744073709551615ULL}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 1.8446744073709552e+19: must be no more than 9223372036854775807"},
      {"count without a resource",
       {{"image", "i"}, {"accelerator", {{"count", 2}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 2: must be 0 when accelerator.resource is none"},
      {"count with resource none",
       {{"image", "i"}, {"accelerator", {{"resource", "none"}, {"count", "1"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 1: must be 0 when accelerator.resource is none"},
      {"unknown resource",
       {{"image", "i"}, {"accelerator", {{"resource", "intel.com/gpu"}}}},
       "spec.workload.accelerator.resource",
       "Unsupported value: \"intel.com/gpu\": supported values: \"nvidia.com/gpu\", "
       "\"amd.com/gpu\", \"graphcore.ai/ipu\", \"none\""},
      {"product for IPUs",
       {{"image", "i"},
        {"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 1}, {"product", "M2000"}}}},
       "spec.workload.accelerator.product",
       "Forbidden: only nvidia.com/gpu and amd.com/gpu nodes carry a product label"},
      {"accelerator of the wrong type",
       {{"image", "i"}, {"accelerator", "gpu"}},
       "spec.workload.accelerator",
       "Invalid value: \"string\": spec.workload.accelerator" + type + "object: \"string\""},
      {"two nodes in a Pod",
       {{"image", "i"}, {"nodes", 2}},
       "spec.workload.nodes",
       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"},
      {"two nodes as a string in a Pod",
       {{"image", "i"}, {"kind", "Pod"}, {"nodes", "2"}},
       "spec.workload.nodes",
       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"},
      {"zero nodes",
       {{"image", "i"}, {"kind", "Job"}, {"nodes", 0}},
       "spec.workload.nodes",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"IPUJob on GPUs",
       {{"image", "i"},
        {"kind", "IPUJob"},
        {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 1}}}},
       "spec.workload.accelerator.resource",
       "Invalid value: \"nvidia.com/gpu\": kind IPUJob needs graphcore.ai/ipu"},
      {"IPUJob without an accelerator",
       {{"image", "i"}, {"kind", "IPUJob"}},
       "spec.workload.accelerator.resource",
       "Invalid value: \"none\": kind IPUJob needs graphcore.ai/ipu"},
      {"IPUJob without IPUs",
       {{"image", "i"}, {"kind", "IPUJob"}, {"accelerator", {{"resource", "graphcore.ai/ipu"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 0: must be greater than or equal to 1 for kind IPUJob"},
      {"backoffLimit on a Pod",
       {{"image", "i"}, {"backoffLimit", 1}},
       "spec.workload.backoffLimit",
       "Forbidden: only kind Job retries failed pods"},
      {"negative backoffLimit",
       {{"image", "i"}, {"kind", "Job"}, {"backoffLimit", -1}},
       "spec.workload.backoffLimit",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"command not a list",
       {{"image", "i"}, {"command", "python train.py"}},
       "spec.workload.command",
       "Invalid value: \"string\": spec.workload.command" + type + "array: \"string\""},
      {"args with a number",
       {{"image", "i"}, {"args", {"--epochs", 2}}},
       "spec.workload.args[1]",
       "Invalid value: \"integer\": spec.workload.args[1]" + type + "string: \"integer\""},
      {"unknown pull policy",
       {{"image", "i"}, {"imagePullPolicy", "Sometimes"}},
       "spec.workload.imagePullPolicy",
       "Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", "
       "\"Never\""},
      {"node selector value",
       {{"image", "i"}, {"nodeSelector", {{"zone", 1}}}},
       "spec.workload.nodeSelector[zone]",
       "Invalid value: \"integer\": spec.workload.nodeSelector[zone]" + type +
           "string: \"integer\""},
      {"toleration not an object",
       {{"image", "i"}, {"tolerations", {"gpu"}}},
       "spec.workload.tolerations[0]",
       "Invalid value: \"string\": spec.workload.tolerations[0]" + type + "object: \"string\""},
      {"affinity not an object",
       {{"image", "i"}, {"affinity", json::array()}},
       "spec.workload.affinity",
       "Invalid value: \"array\": spec.workload.affinity" + type + "object: \"array\""},
      {"resource quantity of the wrong type",
       {{"image", "i"}, {"resources", {{"limits", {{"cpu", true}}}}}},
       "spec.workload.resources.limits[cpu]",
       "Invalid value: \"boolean\": spec.workload.resources.limits[cpu]" + type +
           "integer or string: \"boolean\""},
      {"env without a name",
       {{"image", "i"}, {"env", {{{"value", "1"}}}}},
       "spec.workload.env[0].name",
       "Required value"},
      {"env value not a string",
       {{"image", "i"}, {"env", {{{"name", "A"}, {"value", 1}}}}},
       "spec.workload.env[0].value",
       "Invalid value: \"integer\": spec.workload.env[0].value" + type + "string: \"integer\""},
      {"volume without a claim",
       {{"image", "i"}, {"volumes", {{{"name", "data"}, {"mountPath", "/data"}}}}},
       "spec.workload.volumes[0].claimName",
       "Required value"},
      {"volumes of one name",
       {{"image", "i"},
        {"volumes",
         {{{"name", "data"}, {"claimName", "a"}, {"mountPath", "/a"}},
          {{"name", "data"}, {"claimName", "b"}, {"mountPath", "/b"}}}}},
       "spec.workload.volumes[1].name",
       "Duplicate value: \"data\""},
      {"readOnly not a boolean",
       {{"image", "i"},
        {"volumes",
         {{{"name", "d"}, {"claimName", "a"}, {"mountPath", "/a"}, {"readOnly", "yes"}}}}},
       "spec.workload.volumes[0].readOnly",
       "Invalid value: \"string\": spec.workload.volumes[0].readOnly" + type +
           "boolean: \"string\""},
      {"zero batch size",
       {{"image", "i"}, {"training", {{"batchSize", 0}}}},
       "spec.workload.training.batchSize",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"unknown precision",
       {{"image", "i"}, {"training", {{"precision", "fp8"}}}},
       "spec.workload.training.precision",
       "Unsupported value: \"fp8\": supported values: \"fp32\", \"bf16\", \"fp16\""},
      {"data not a string",
       {{"image", "i"}, {"training", {{"data", 1}}}},
       "spec.workload.training.data",
       "Invalid value: \"integer\": spec.workload.training.data" + type + "string: \"integer\""},
      {"control characters shown escaped",
       {{"image", "i"}, {"kind", "Po\nd\x01"}},
       "spec.workload.kind",
       "Unsupported value: \"Po\\nd\\x01\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
      {"security context not an object",
       {{"image", "i"}, {"securityContext", "privileged"}},
       "spec.workload.securityContext",
       "Invalid value: \"string\": spec.workload.securityContext" + type + "object: \"string\""},
      {"pod security context not an object",
       {{"image", "i"}, {"podSecurityContext", json::array()}},
       "spec.workload.podSecurityContext",
       "Invalid value: \"array\": spec.workload.podSecurityContext" + type + "object: \"array\""},
      {"token of the wrong type",
       {{"image", "i"}, {"automountServiceAccountToken", "yes"}},
       "spec.workload.automountServiceAccountToken",
       "Invalid value: \"string\": spec.workload.automountServiceAccountToken" + type +
           "boolean: \"string\""},
      {"empty service account",
       {{"image", "i"}, {"serviceAccountName", ""}},
       "spec.workload.serviceAccountName",
       "Required value"},
  };
  for (const ErrorCase& c : cases) {
    common::Result<Workload> got = parseWorkload(c.input, "spec.workload");
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_EQ(got.status().message(), "spec.workload is invalid") << c.name;
    EXPECT_TRUE(hasCause(got.status(), c.field, c.message))
        << c.name << ": " << got.status().toString();
  }
}

// Verifies that every problem of a workload is reported at once, in the order of the fields.
TEST(ParseWorkload, ReportsEveryProblem) {
  common::Result<Workload> got = parseWorkload(
      {{"nodes", 0}, {"training", {{"epochs", 0}, {"precision", "fp8"}}}}, "spec.workload");
  ASSERT_FALSE(got.isOk());
  std::vector<std::string> fields;
  const common::Status status = got.status();
  for (const common::StatusCause& c : status.causes()) fields.push_back(c.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"spec.workload.image", "spec.workload.nodes",
                                              "spec.workload.training.epochs",
                                              "spec.workload.training.precision"}));
}

// Verifies that a full workload parses into its fields, integers given as digit strings.
TEST(ParseWorkload, ReadsEveryField) {
  common::Result<Workload> got = parseWorkload(json::parse(R"({
    "kind": "Job", "image": "i", "command": ["a"], "args": ["b"], "imagePullPolicy": "Always",
    "accelerator": {"resource": "amd.com/gpu", "count": "3", "product": "p"},
    "nodes": "2", "backoffLimit": 1, "nodeSelector": {"k": "v"}, "tolerations": [{}],
    "affinity": {"a": 1}, "resources": {"limits": {"cpu": 2}, "claims": [1]},
    "env": [{"name": "E", "value": "v"}],
    "volumes": [{"name": "d", "claimName": "c", "mountPath": "/m", "readOnly": false}],
    "training": {"batchSize": "32", "epochs": 3, "stepsPerEpoch": "10", "precision": "fp32",
                 "data": "/m/imagenet"},
    "podSecurityContext": {"runAsUser": 1000}, "securityContext": {"privileged": false},
    "serviceAccountName": "bench", "automountServiceAccountToken": true,
    "unknownField": true
  })"),
                                               "spec.workload");
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  const Workload& w = *got;
  EXPECT_EQ(w.kind, WorkloadKind::kJob);
  EXPECT_EQ(w.image, "i");
  EXPECT_EQ(w.command, std::vector<std::string>{"a"});
  EXPECT_EQ(w.args, std::vector<std::string>{"b"});
  EXPECT_EQ(w.imagePullPolicy, "Always");
  EXPECT_EQ(w.accelerator.resource, "amd.com/gpu");
  EXPECT_EQ(w.accelerator.count, 3);
  EXPECT_EQ(w.accelerator.product, "p");
  EXPECT_EQ(w.nodes, 2);
  EXPECT_EQ(w.backoffLimit, 1);
  EXPECT_EQ(w.nodeSelector, json({{"k", "v"}}));
  EXPECT_EQ(w.tolerations, json::array({json::object()}));
  EXPECT_EQ(w.affinity, json({{"a", 1}}));
  EXPECT_EQ(w.resources, json({{"limits", {{"cpu", 2}}}}));
  EXPECT_EQ(w.env, json::array({{{"name", "E"}, {"value", "v"}}}));
  ASSERT_EQ(w.volumes.size(), 1U);
  EXPECT_EQ(w.volumes[0].claimName, "c");
  EXPECT_EQ(w.volumes[0].mountPath, "/m");
  EXPECT_FALSE(w.volumes[0].readOnly);
  EXPECT_EQ(w.training.batchSize, 32);
  EXPECT_EQ(w.training.epochs, 3);
  EXPECT_EQ(w.training.stepsPerEpoch, 10);
  EXPECT_EQ(w.training.precision, "fp32");
  EXPECT_EQ(w.training.data, "/m/imagenet");
  EXPECT_EQ(w.podSecurityContext, json({{"runAsUser", 1000}}));
  EXPECT_EQ(w.securityContext, json({{"privileged", false}}));
  EXPECT_EQ(w.serviceAccountName, "bench");
  EXPECT_TRUE(w.automountServiceAccountToken);
}

// Verifies that a template of an unsupported kind, or one that could never end, is Invalid.
TEST(RenderUnit, RejectsBadTemplates) {
  const std::vector<ErrorCase> cases = {
      {"Deployment",
       {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"spec", json::object()}},
       "spec.template.kind",
       "Unsupported value: \"Deployment\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
      {"no kind",
       {{"apiVersion", "v1"}, {"spec", json::object()}},
       "spec.template.kind",
       "Required value"},
      {"wrong group for the kind",
       {{"apiVersion", "batch/v2"}, {"kind", "Job"}},
       "spec.template.apiVersion",
       "Unsupported value: \"batch/v2\": supported values: \"batch/v1\""},
      {"no apiVersion", {{"kind", "Pod"}}, "spec.template.apiVersion", "Required value"},
      {"not an object", json::array(), "spec.template",
       "Invalid value: \"array\": spec.template in body must be of type object: \"array\""},
      {"Pod restarting forever",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", {{"restartPolicy", "Always"}}}},
       "spec.template.spec.restartPolicy",
       "Unsupported value: \"Always\": supported values: \"Never\", \"OnFailure\""},
      {"Pod without spec",
       {{"apiVersion", "v1"}, {"kind", "Pod"}},
       "spec.template.spec",
       "Required value"},
      {"Job without a pod template",
       {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"spec", json::object()}},
       "spec.template.spec.template",
       "Required value"},
      {"Job with parallelism 0",
       {{"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"spec", {{"parallelism", 0}, {"template", {{"spec", json::object()}}}}}},
       "spec.template.spec.parallelism",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"Job with pod template labels that are not strings",
       {{"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"spec", {{"template", {{"metadata", {{"labels", {{"a", 1}}}}}}}}}},
       "spec.template.spec.template.metadata.labels[a]",
       "Invalid value: \"integer\": spec.template.spec.template.metadata.labels[a] in body must "
       "be of type string: \"integer\""},
      {"IPUJob without jobInstances",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"workers", {{"template", json::object()}}}}}},
       "spec.template.spec.jobInstances",
       "Required value"},
      {"IPUJob with jobInstances as a string",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"jobInstances", "2"}, {"workers", {{"template", json::object()}}}}}},
       "spec.template.spec.jobInstances",
       "Invalid value: \"string\": spec.template.spec.jobInstances in body must be of type "
       "integer: \"string\""},
      {"IPUJob without workers",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"jobInstances", 1}}}},
       "spec.template.spec.workers",
       "Required value"},
      {"labels that are not strings",
       {{"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"labels", {{"a", 1}}}}},
        {"spec", json::object()}},
       "spec.template.metadata.labels[a]",
       "Invalid value: \"integer\": spec.template.metadata.labels[a] in body must be of type "
       "string: \"integer\""},
  };
  for (const ErrorCase& c : cases) {
    common::Result<RenderedUnit> got = renderUnit(kRun, templateSpec(c.input), unitOf(0, 0));
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_TRUE(hasCause(got.status(), c.field, c.message))
        << c.name << ": " << got.status().toString();
  }
}

// Verifies the run-level reasons a unit cannot be rendered.
TEST(RenderUnit, RejectsBadRuns) {
  const json workload = {{"image", "i"}};
  common::Result<RenderedUnit> longName =
      renderUnit({"lab", std::string(64, 'a'), kUid}, workloadSpec(workload), unitOf(0, 0));
  ASSERT_FALSE(longName.isOk());
  EXPECT_TRUE(hasCause(longName.status(), "metadata.name",
                       "Invalid value: \"" + std::string(64, 'a') +
                           "\": must be no more than 63 characters, as it is the value of label "
                           "hetbench.io/run"));

  RunSpec neither = workloadSpec(workload);
  neither.workload.reset();
  common::Result<RenderedUnit> none = renderUnit(kRun, neither, unitOf(0, 0));
  ASSERT_FALSE(none.isOk());
  EXPECT_TRUE(hasCause(none.status(), "spec.workload",
                       "Required value: exactly one of workload and template"));

  RunSpec both = workloadSpec(workload);
  both.templ = json::object();
  EXPECT_TRUE(renderUnit(kRun, both, unitOf(0, 0)).status().isInvalid());

  common::Result<RenderedUnit> badWorkload =
      renderUnit(kRun, workloadSpec({{"image", "i"}, {"nodes", 2}}), unitOf(0, 0));
  EXPECT_TRUE(hasCause(badWorkload.status(), "spec.workload.nodes",
                       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"));

  common::Result<RenderedUnit> unknownParam =
      renderUnit(kRun, workloadSpec({{"image", "$(params.missing)"}}), unitOf(0, 0));
  EXPECT_TRUE(unknownParam.status().isInvalid());
}

// Verifies that values of every JSON type in every field give answers, never exceptions.
TEST(RenderUnit, SurvivesHostileJson) {
  const std::vector<json> values = {nullptr,
                                    true,
                                    -1,
                                    1.5,
                                    "x",
                                    "",
                                    json::array(),
                                    json::object(),
                                    json::array({1, "a", nullptr, json::object()}),
                                    json({{"a", json::array()}}),
                                    18446744073709551615ULL,
                                    std::string("\xff\xfe", 2)};
  const std::vector<std::string> workloadKeys = {
      "kind",        "image",     "command",      "args",         "imagePullPolicy",
      "accelerator", "nodes",     "backoffLimit", "nodeSelector", "tolerations",
      "affinity",    "resources", "env",          "volumes",      "training"};
  for (const json& v : values) {
    EXPECT_NO_THROW((void)parseWorkload(v, "spec.workload"))
        << v.dump(-1, ' ', false, json::error_handler_t::replace);
    for (const std::string& key : workloadKeys) {
      for (const json& base :
           {json({{"image", "i"}, {"kind", "Job"}}),
            json({{"image", "i"}, {"accelerator", {{"resource", "graphcore.ai/ipu"}}}})}) {
        json w = base;
        w[key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(w), unitOf(0, 0))) << key;
        for (const char* inner :
             {"resource", "count", "product", "name", "value", "valueFrom", "claimName",
              "mountPath", "readOnly", "batchSize", "precision", "data", "requests", "limits"}) {
          json nested = base;
          nested[key] = {{inner, v}};
          EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(nested), unitOf(0, 0)))
              << key << "." << inner;
          nested[key] = json::array({{{inner, v}}});
          EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(nested), unitOf(0, 0)))
              << key << "[0]." << inner;
        }
      }
    }
    for (const char* kind : {"Pod", "Job", "IPUJob"}) {
      const json templ = {{"apiVersion", kind == std::string("Pod")   ? "v1"
                                         : kind == std::string("Job") ? "batch/v1"
                                                                      : "graphcore.ai/v1alpha1"},
                          {"kind", kind}};
      for (const char* key : {"apiVersion", "kind", "metadata", "spec"}) {
        json t = templ;
        t[key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
      for (const char* key : {"labels", "annotations"}) {
        json t = templ;
        t["metadata"][key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
      for (const char* key :
           {"restartPolicy", "template", "parallelism", "completions", "jobInstances", "workers"}) {
        json t = templ;
        t["spec"][key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
        t["spec"][key] = {{"metadata", v}, {"template", v}};
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
        t["spec"][key] = {{"metadata", {{"labels", v}}}, {"template", {{"metadata", v}}}};
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
    }
  }
}

}  // namespace
}  // namespace hetbench::benchmark
