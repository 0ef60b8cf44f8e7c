#include "hetbench/benchmark/spec.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "hetbench/benchmark/constants.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The smallest spec the API server admits, before defaulting.
json minimal() {
  return {{"benchmark", "resnet50"},
          {"system", "a100"},
          {"workload", {{"image", "hetbench/train:cpu"}}}};
}

// `minimal()` with an RFC 7386 merge patch applied (null removes a field).
json with(const json& patch) {
  json spec = minimal();
  spec.merge_patch(patch);
  return spec;
}

// A workload whose one container argument is `arg`.
json workloadWithArg(const std::string& arg) {
  return {{"image", "hetbench/train:cpu"}, {"args", {arg}}};
}

// `levels` arrays nested in each other, built without recursion.
json nestedArrays(int levels) {
  json root = json::array();
  json* inner = &root;
  for (int i = 1; i < levels; ++i) {
    inner->push_back(json::array());
    inner = &inner->back();
  }
  return root;
}

json matrixOfSize(const std::vector<std::size_t>& sizes) {
  json matrix = json::object();
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    json values = json::array();
    for (std::size_t v = 0; v < sizes[p]; ++v) values.push_back(static_cast<std::int64_t>(v));
    matrix["p" + std::to_string(p)] = values;
  }
  return matrix;
}

json manyReferences(std::size_t count) {
  json references = json::object();
  for (std::size_t i = 0; i < count; ++i) references["m" + std::to_string(i)] = {{"value", 1}};
  return references;
}

void expectSameSpec(const RunSpec& got, const RunSpec& want) {
  EXPECT_EQ(got.benchmark, want.benchmark);
  EXPECT_EQ(got.system, want.system);
  EXPECT_EQ(got.workload, want.workload);
  EXPECT_EQ(got.templ, want.templ);
  ASSERT_EQ(got.matrix.size(), want.matrix.size());
  for (std::size_t i = 0; i < got.matrix.size(); ++i) {
    EXPECT_EQ(got.matrix[i].name, want.matrix[i].name);
    EXPECT_EQ(got.matrix[i].values, want.matrix[i].values);
  }
  EXPECT_EQ(got.repetitions, want.repetitions);
  EXPECT_EQ(got.parallelism, want.parallelism);
  EXPECT_EQ(got.timeLimit, want.timeLimit);
  EXPECT_EQ(got.startTimeout, want.startTimeout);
  EXPECT_EQ(got.suspend, want.suspend);
  EXPECT_EQ(got.cleanup.onSuccess, want.cleanup.onSuccess);
  EXPECT_EQ(got.cleanup.onFailure, want.cleanup.onFailure);
  EXPECT_EQ(got.cleanup.retainFor, want.cleanup.retainFor);
  EXPECT_EQ(got.cleanup.maxRetained, want.cleanup.maxRetained);
  EXPECT_EQ(got.metrics, want.metrics);
  EXPECT_EQ(got.references, want.references);
  EXPECT_EQ(got.confirm, want.confirm);
  EXPECT_EQ(got.queueName, want.queueName);
  EXPECT_EQ(got.queueTimeout, want.queueTimeout);
}

RunSpec expected(const std::function<void(RunSpec&)>& edit) {
  RunSpec spec;
  spec.benchmark = Benchmark::kResnet50;
  spec.system = "a100";
  spec.workload = json{{"image", "hetbench/train:cpu"}};
  edit(spec);
  return spec;
}

// Verifies the CRD spellings.
TEST(Spec, ToString) {
  EXPECT_EQ(toString(Benchmark::kResnet50), "resnet50");
  EXPECT_EQ(toString(Benchmark::kCosmoflow), "cosmoflow");
  EXPECT_EQ(toString(Benchmark::kDeepcam), "deepcam");
  EXPECT_EQ(toString(Benchmark::kCustom), "custom");
  EXPECT_EQ(toString(WorkloadKind::kPod), "Pod");
  EXPECT_EQ(toString(WorkloadKind::kJob), "Job");
  EXPECT_EQ(toString(WorkloadKind::kIpuJob), "IPUJob");
}

// Verifies accepted specs: defaults for what is absent (or null), every field read, the
// matrix sorted by name with integers as text, the workload kept as JSON.
TEST(ParseRunSpec, Accepts) {
  struct Case {
    std::string name;
    json input;
    RunSpec want;
  };
  const json full = {
      {"benchmark", "cosmoflow"},
      {"system", "h100_lab-1.b"},
      {"workload",
       {{"kind", "Job"},
        {"image", "hetbench/train:gpu"},
        {"args", {"--gpus=$(params.gpus)", "--precision=$(params.precision)", "$$(params.x)"}},
        {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "$(params.gpus)"}}}}},
      {"matrix", {{"precision", {"fp32", "bf16"}}, {"gpus", {1, 2, 4}}}},
      {"repetitions", 3},
      {"parallelism", 2},
      {"timeLimit", "1h30m"},
      {"startTimeout", "90s"},
      {"suspend", true},
      {"cleanup",
       {{"onSuccess", "Retain"}, {"onFailure", "Delete"}, {"retainFor", "1h"}, {"maxRetained", 0}}},
      {"metrics", {{{"name", "throughput"}}}},
      {"references", {{"a100", 1200}}},
      {"somethingNew", "ignored"},
  };
  const json templ = {{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", {{"name", "x"}}},
                      {"spec", {{"containers", {{{"name", "c"}, {"image", "$(params.image)"}}}}}}};
  const std::vector<Case> cases = {
      {"minimal, defaults", minimal(), expected([](RunSpec&) {})},
      {"every field", full, expected([&](RunSpec& s) {
         s.benchmark = Benchmark::kCosmoflow;
         s.system = "h100_lab-1.b";
         s.workload = full["workload"];
         s.matrix = {{"gpus", {"1", "2", "4"}}, {"precision", {"fp32", "bf16"}}};
         s.repetitions = 3;
         s.parallelism = 2;
         s.timeLimit = 90min;
         s.startTimeout = 90s;
         s.suspend = true;
         s.cleanup = {CleanupAction::kRetain, CleanupAction::kDelete, 1h, 0};
         s.metrics = full["metrics"];
         s.references = full["references"];
       })},
      {"template instead of workload",
       with({{"workload", nullptr}, {"template", templ}, {"matrix", {{"image", {"a", "b"}}}}}),
       expected([&](RunSpec& s) {
         s.workload.reset();
         s.templ = templ;
         s.matrix = {{"image", {"a", "b"}}};
       })},
      {"confirm with its defaults", with({{"confirm", json::object()}}),
       expected([](RunSpec& s) { s.confirm = Confirm{}; })},
      {"confirm", with({{"confirm", {{"reruns", 5}, {"otherNode", false}}}}),
       expected([](RunSpec& s) {
         s.confirm = Confirm{5, false};
       })},
      {"queue", with({{"queueName", "gpu-queue"}, {"queueTimeout", "30m"}}),
       expected([](RunSpec& s) {
         s.queueName = "gpu-queue";
         s.queueTimeout = std::chrono::minutes(30);
       })},
      {"no queue, whatever the operator's default", with({{"queueName", ""}}),
       expected([](RunSpec& s) { s.queueName = ""; })},
      {"nulls are absent",
       [] {
         json spec = minimal();
         for (const char* key : {"template", "matrix", "repetitions", "parallelism", "timeLimit",
                                 "startTimeout", "suspend", "cleanup", "metrics", "references",
                                 "confirm", "queueName", "queueTimeout"}) {
           spec[key] = nullptr;
         }
         return spec;
       }(),
       expected([](RunSpec&) {})},
      {"a null matrix parameter is absent",
       [] {
         json spec = minimal();
         spec["matrix"] = {{"a", {1}}, {"b", nullptr}};
         return spec;
       }(),
       expected([](RunSpec& s) {
         s.matrix = {{"a", {"1"}}};
       })},
      {"workload nested 100 levels", with({{"workload", {{"deep", nestedArrays(99)}}}}),
       expected([](RunSpec& s) {
         s.workload = json{{"image", "hetbench/train:cpu"}, {"deep", nestedArrays(99)}};
       })},
      {"integral floats are integers",
       with({{"repetitions", 2.0}, {"matrix", {{"n", {4.0, -1.0}}}}}), expected([](RunSpec& s) {
         s.repetitions = 2;
         s.matrix = {{"n", {"4", "-1"}}};
       })},
      {"parameter names", with({{"matrix", {{"_x", {"a"}}, {"B2_c", {"b"}}}}}),
       expected([](RunSpec& s) {
         s.matrix = {{"B2_c", {"b"}}, {"_x", {"a"}}};
       })},
      {"escaped reference needs no parameter",
       with({{"workload", workloadWithArg("$$(params.x)")}}),
       expected([](RunSpec& s) { s.workload = workloadWithArg("$$(params.x)"); })},
      {"exactly kMaxUnits units", with({{"matrix", matrixOfSize({10, 10})}, {"repetitions", 10}}),
       expected([](RunSpec& s) {
         std::vector<std::string> ten;
         for (int i = 0; i < 10; ++i) ten.push_back(std::to_string(i));
         s.matrix = {{"p0", ten}, {"p1", ten}};
         s.repetitions = 10;
       })},
      {"values as strings and integers mixed", with({{"matrix", {{"v", {"1", 2, "x"}}}}}),
       expected([](RunSpec& s) {
         s.matrix = {{"v", {"1", "2", "x"}}};
       })},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<RunSpec> got = parseRunSpec(c.input);
    ASSERT_TRUE(got.isOk()) << got.status().toString();
    expectSameSpec(*got, c.want);
  }
}

// Verifies every rejection: Invalid, with exactly the expected causes (field, reason and the
// API server's wording) in the order of the spec.
TEST(ParseRunSpec, Rejects) {
  struct Case {
    std::string name;
    json input;
    std::vector<common::StatusCause> want;
  };
  const std::string deep(100, 'x');
  const std::vector<Case> cases = {
      {"no spec", nullptr, {{"spec", "FieldValueRequired", "Required value"}}},
      {"spec not an object",
       json::array(),
       {{"spec", "FieldValueTypeInvalid",
         R"(Invalid value: "array": spec in body must be of type object: "array")"}}},
      {"spec a string",
       "x",
       {{"spec", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec in body must be of type object: "string")"}}},
      {"benchmark missing",
       with({{"benchmark", nullptr}}),
       {{"spec.benchmark", "FieldValueRequired", "Required value"}}},
      {"benchmark unknown",
       with({{"benchmark", "bert"}}),
       {{"spec.benchmark", "FieldValueNotSupported",
         R"(Unsupported value: "bert": supported values: "resnet50", "cosmoflow", "deepcam", )"
         R"("custom")"}}},
      {"benchmark not a string",
       with({{"benchmark", 3}}),
       {{"spec.benchmark", "FieldValueTypeInvalid",
         R"(Invalid value: "integer": spec.benchmark in body must be of type string: "integer")"}}},
      {"system missing",
       with({{"system", nullptr}}),
       {{"spec.system", "FieldValueRequired", "Required value"}}},
      {"system empty",
       with({{"system", ""}}),
       {{"spec.system", "FieldValueRequired", "Required value"}}},
      {"system too long",
       with({{"system", std::string(64, 'a')}}),
       {{"spec.system", "FieldValueTooLong", "Too long: may not be more than 63 bytes"}}},
      {"system not a label value",
       with({{"system", "-a100"}}),
       {{"spec.system", "FieldValueInvalid",
         R"(Invalid value: "-a100": must consist of alphanumeric characters, '-', '_' or '.', )"
         "and must start and end with an alphanumeric character"}}},
      {"system with a space",
       with({{"system", "a 100"}}),
       {{"spec.system", "FieldValueInvalid",
         R"(Invalid value: "a 100": must consist of alphanumeric characters, '-', '_' or '.', )"
         "and must start and end with an alphanumeric character"}}},
      {"system not a string",
       with({{"system", {{"name", "a100"}}}}),
       {{"spec.system", "FieldValueTypeInvalid",
         R"(Invalid value: "object": spec.system in body must be of type string: "object")"}}},
      {"neither workload nor template",
       with({{"workload", nullptr}}),
       {{"spec.workload", "FieldValueRequired",
         "Required value: exactly one of workload and template is required"}}},
      {"both workload and template",
       with({{"template", {{"apiVersion", "v1"}, {"kind", "Pod"}}}}),
       {{"spec.template", "FieldValueForbidden",
         "Forbidden: may not be set together with workload"}}},
      {"workload not an object",
       with({{"workload", "pod.yaml"}}),
       {{"spec.workload", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.workload in body must be of type object: "string")"}}},
      {"template not an object",
       with({{"workload", nullptr}, {"template", json::array()}}),
       {{"spec.template", "FieldValueTypeInvalid",
         R"(Invalid value: "array": spec.template in body must be of type object: "array")"}}},
      {"workload nested too deep",
       with({{"workload", {{"image", "i"}, {"deep", nestedArrays(100)}}}}),
       {{"spec.workload", "FieldValueForbidden",
         "Forbidden: must not nest more than 100 levels deep"}}},
      {"template nested too deep",
       with({{"workload", nullptr}, {"template", {{"deep", nestedArrays(100)}}}}),
       {{"spec.template", "FieldValueForbidden",
         "Forbidden: must not nest more than 100 levels deep"}}},
      {"matrix not an object",
       with({{"matrix", {1, 2}}}),
       {{"spec.matrix", "FieldValueTypeInvalid",
         R"(Invalid value: "array": spec.matrix in body must be of type object: "array")"}}},
      {"matrix list empty",
       with({{"matrix", {{"gpus", json::array()}}}}),
       {{"spec.matrix.gpus", "FieldValueRequired",
         "Required value: must list at least one value"}}},
      {"matrix list not a list",
       with({{"matrix", {{"gpus", 4}}}}),
       {{"spec.matrix.gpus", "FieldValueTypeInvalid",
         R"(Invalid value: "integer": spec.matrix.gpus in body must be of type array: "integer")"}}},
      {"matrix duplicate integers",
       with({{"matrix", {{"gpus", {4, 8, 4}}}}}),
       {{"spec.matrix.gpus[2]", "FieldValueDuplicate", "Duplicate value: 4"}}},
      {"matrix duplicate string and integer",
       with({{"matrix", {{"gpus", {4, "4"}}}}}),
       {{"spec.matrix.gpus[1]", "FieldValueDuplicate", R"(Duplicate value: "4")"}}},
      {"matrix value of a wrong type",
       with({{"matrix", {{"v", {true, 1.5, nullptr, json::object(), "ok"}}}}}),
       {{"spec.matrix.v[0]", "FieldValueTypeInvalid",
         R"(Invalid value: "boolean": spec.matrix.v[0] in body must be of type integer or string: "boolean")"},
        {"spec.matrix.v[1]", "FieldValueTypeInvalid",
         R"(Invalid value: "number": spec.matrix.v[1] in body must be of type integer or string: "number")"},
        {"spec.matrix.v[2]", "FieldValueTypeInvalid",
         R"(Invalid value: "null": spec.matrix.v[2] in body must be of type integer or string: "null")"},
        {"spec.matrix.v[3]", "FieldValueTypeInvalid",
         R"(Invalid value: "object": spec.matrix.v[3] in body must be of type integer or string: "object")"}}},
      {"parameter name with a dash, referenced",
       with({{"matrix", {{"gpu-count", {1}}}},
             {"workload", workloadWithArg("$(params.gpu-count)")}}),
       {{"spec.matrix", "FieldValueInvalid",
         R"(Invalid value: "gpu-count": a parameter name must start with a letter or '_' and )"
         "contain only letters, digits and '_'"}}},
      {"parameter name starting with a digit",
       with({{"matrix", {{"1gpu", {1}}}}}),
       {{"spec.matrix", "FieldValueInvalid",
         R"(Invalid value: "1gpu": a parameter name must start with a letter or '_' and )"
         "contain only letters, digits and '_'"}}},
      {"empty parameter name",
       with({{"matrix", {{"", {1}}}}}),
       {{"spec.matrix", "FieldValueInvalid",
         R"(Invalid value: "": a parameter name must start with a letter or '_' and )"
         "contain only letters, digits and '_'"}}},
      {"reference to no parameter in the workload",
       with({{"matrix", {{"gpus", {1}}}}, {"workload", workloadWithArg("--gpus=$(params.gpu)")}}),
       {{"spec.workload.args[0]", "FieldValueInvalid",
         R"~(Invalid value: "--gpus=$(params.gpu)": unknown parameter "gpu")~"}}},
      {"reference without a matrix",
       with({{"workload", workloadWithArg("$(params.gpus)")}}),
       {{"spec.workload.args[0]", "FieldValueInvalid",
         R"~(Invalid value: "$(params.gpus)": unknown parameter "gpus")~"}}},
      {"reference to no parameter in the template",
       with({{"workload", nullptr},
             {"template", {{"apiVersion", "v1"}, {"metadata", {{"name", "$(params.n)"}}}}}}),
       {{"spec.template.metadata.name", "FieldValueInvalid",
         R"~(Invalid value: "$(params.n)": unknown parameter "n")~"}}},
      {"repetitions zero",
       with({{"repetitions", 0}}),
       {{"spec.repetitions", "FieldValueInvalid",
         "Invalid value: 0: must be greater than or equal to 1"}}},
      {"repetitions above 100",
       with({{"repetitions", 101}}),
       {{"spec.repetitions", "FieldValueInvalid",
         "Invalid value: 101: must be less than or equal to 100"}}},
      {"repetitions a string",
       with({{"repetitions", "three"}}),
       {{"spec.repetitions", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.repetitions in body must be of type integer: "string")"}}},
      {"repetitions with a fraction",
       with({{"repetitions", 1.5}}),
       {{"spec.repetitions", "FieldValueTypeInvalid",
         R"(Invalid value: "number": spec.repetitions in body must be of type integer: "number")"}}},
      {"repetitions beyond uint64",
       with({{"repetitions", 1e300}}),
       {{"spec.repetitions", "FieldValueInvalid",
         "Invalid value: 1e+300: must be less than or equal to 100"}}},
      {"repetitions beyond int64",
       with({{"repetitions", 18446744073709551615ULL}}),
       {{"spec.repetitions", "FieldValueInvalid",
         "Invalid value: 1.8446744073709552e+19: must be less than or equal to 100"}}},
      {"repetitions very negative",
       with({{"repetitions", -1e300}}),
       {{"spec.repetitions", "FieldValueInvalid",
         "Invalid value: -1e+300: must be greater than or equal to 1"}}},
      {"parallelism zero",
       with({{"parallelism", 0}}),
       {{"spec.parallelism", "FieldValueInvalid",
         "Invalid value: 0: must be greater than or equal to 1"}}},
      {"parallelism a string",
       with({{"parallelism", "2"}}),
       {{"spec.parallelism", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.parallelism in body must be of type integer: "string")"}}},
      {"timeLimit without a unit",
       with({{"timeLimit", "2"}}),
       {{"spec.timeLimit", "FieldValueInvalid",
         R"(Invalid value: "2": invalid duration "2": missing unit (one of ns, us, ms, s, m, h))"}}},
      {"timeLimit in days",
       with({{"timeLimit", "1d"}}),
       {{"spec.timeLimit", "FieldValueInvalid",
         R"(Invalid value: "1d": invalid duration "1d": unknown unit "d" (use one of ns, us, )"
         "ms, s, m, h)"}}},
      {"timeLimit zero",
       with({{"timeLimit", "0s"}}),
       {{"spec.timeLimit", "FieldValueInvalid",
         R"(Invalid value: "0s": must be greater than zero)"}}},
      {"timeLimit negative",
       with({{"timeLimit", "-1h"}}),
       {{"spec.timeLimit", "FieldValueInvalid",
         R"(Invalid value: "-1h": invalid duration "-1h": negative durations are not allowed)"}}},
      {"timeLimit a number",
       with({{"timeLimit", 7200}}),
       {{"spec.timeLimit", "FieldValueTypeInvalid",
         R"(Invalid value: "integer": spec.timeLimit in body must be of type string: "integer")"}}},
      {"startTimeout empty",
       with({{"startTimeout", ""}}),
       {{"spec.startTimeout", "FieldValueInvalid",
         R"(Invalid value: "": invalid duration "": empty string, expected a number with a unit )"
         R"(such as "90s")"}}},
      {"suspend a string",
       with({{"suspend", "yes"}}),
       {{"spec.suspend", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.suspend in body must be of type boolean: "string")"}}},
      {"cleanup a string",
       with({{"cleanup", "Delete"}}),
       {{"spec.cleanup", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.cleanup in body must be of type object: "string")"}}},
      {"cleanup actions unknown",
       with({{"cleanup", {{"onSuccess", "Keep"}, {"onFailure", 1}}}}),
       {{"spec.cleanup.onSuccess", "FieldValueNotSupported",
         R"(Unsupported value: "Keep": supported values: "Delete", "Retain")"},
        {"spec.cleanup.onFailure", "FieldValueTypeInvalid",
         R"(Invalid value: "integer": spec.cleanup.onFailure in body must be of type string: "integer")"}}},
      {"cleanup retainFor and maxRetained",
       with({{"cleanup", {{"retainFor", "0s"}, {"maxRetained", -1}}}}),
       {{"spec.cleanup.retainFor", "FieldValueInvalid",
         R"(Invalid value: "0s": must be greater than zero)"},
        {"spec.cleanup.maxRetained", "FieldValueInvalid",
         "Invalid value: -1: must be greater than or equal to 0"}}},
      {"confirm reruns out of range and otherNode not a boolean",
       with({{"confirm", {{"reruns", 11}, {"otherNode", "yes"}}}}),
       {{"spec.confirm.reruns", "FieldValueInvalid",
         "Invalid value: 11: must be less than or equal to 10"},
        {"spec.confirm.otherNode", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.confirm.otherNode in body must be of type boolean: "string")"}}},
      {"queue name and timeout",
       with({{"queueName", "GPU_queue"}, {"queueTimeout", "0s"}}),
       {{"spec.queueName", "FieldValueInvalid",
         R"(Invalid value: "GPU_queue": a LocalQueue's name: at most 63 lower case alphanumeric )"
         R"(characters, '-' or '.', starting and ending with an alphanumeric character)"},
        {"spec.queueTimeout", "FieldValueInvalid",
         R"(Invalid value: "0s": must be greater than zero)"}}},
      {"confirm with a template",
       with({{"workload", nullptr},
             {"template",
              {{"apiVersion", "v1"},
               {"kind", "Pod"},
               {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}}},
             {"confirm", json::object()}}),
       {{"spec.confirm", "FieldValueForbidden",
         "Forbidden: reruns are placed through spec.workload's affinity; a template's placement "
         "is its own"}}},
      {"metrics not an array",
       with({{"metrics", json::object()}}),
       {{"spec.metrics", "FieldValueTypeInvalid",
         R"(Invalid value: "object": spec.metrics in body must be of type array: "object")"}}},
      {"metrics item not an object",
       with({{"metrics", {json::object(), "throughput"}}}),
       {{"spec.metrics[1]", "FieldValueTypeInvalid",
         R"(Invalid value: "string": spec.metrics[1] in body must be of type object: "string")"}}},
      {"metrics nested too deep",
       with({{"metrics", {{{"deep", nestedArrays(99)}}}}}),
       {{"spec.metrics", "FieldValueForbidden",
         "Forbidden: must not nest more than 100 levels deep"}}},
      {"references not an object",
       with({{"references", json::array()}}),
       {{"spec.references", "FieldValueTypeInvalid",
         R"(Invalid value: "array": spec.references in body must be of type object: "array")"}}},
      {"too many units",
       with({{"matrix", matrixOfSize({40, 30})}}),
       {{"spec.matrix", "FieldValueTooMany",
         "Too many: 1200: must have at most 1000 units (trials × repetitions)"}}},
      {"too many units with repetitions",
       with({{"matrix", matrixOfSize({10, 10})}, {"repetitions", 11}}),
       {{"spec.matrix", "FieldValueTooMany",
         "Too many: 1100: must have at most 1000 units (trials × repetitions)"}}},
      {"too many units to count",
       with({{"matrix", matrixOfSize(std::vector<std::size_t>(16, 16))}}),
       {{"spec.matrix", "FieldValueTooMany",
         "Too many: must have at most 1000 units (trials × repetitions)"}}},
      {"too many parameters",
       with({{"matrix", matrixOfSize(std::vector<std::size_t>(17, 1))}}),
       {{"spec.matrix", "FieldValueTooMany", "Too many: 17: must have at most 16 items"}}},
      {"parameter name too long",
       with({{"matrix", {{std::string(64, 'a'), {1}}}}}),
       {{"spec.matrix." + std::string(64, 'a'), "FieldValueTooLong",
         "Too long: may not be more than 63 bytes"}}},
      {"a trial's parameters too long for the status",
       with(
           {{"matrix", {{"a", {std::string(600, 'x'), "short"}}, {"b", {std::string(600, 'y')}}}}}),
       {{"spec.matrix", "FieldValueTooLong",
         "Too long: the largest trial's parameters take 1216 bytes as JSON, and may take at "
         "most 1024 (the status repeats them for every repetition and result)"}}},
      {"too many references",
       with({{"references", manyReferences(65)}}),
       {{"spec.references", "FieldValueTooMany", "Too many: 65: must have at most 64 items"}}},
      {"several problems in spec order",
       with({{"benchmark", "bert"}, {"repetitions", 0}, {"suspend", 1}}),
       {{"spec.benchmark", "FieldValueNotSupported",
         R"(Unsupported value: "bert": supported values: "resnet50", "cosmoflow", "deepcam", )"
         R"("custom")"},
        {"spec.repetitions", "FieldValueInvalid",
         "Invalid value: 0: must be greater than or equal to 1"},
        {"spec.suspend", "FieldValueTypeInvalid",
         R"(Invalid value: "integer": spec.suspend in body must be of type boolean: "integer")"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    common::Result<RunSpec> got = parseRunSpec(c.input);
    ASSERT_FALSE(got.isOk());
    EXPECT_TRUE(got.status().isInvalid()) << got.status().toString();
    EXPECT_EQ(got.status().causes(), c.want) << got.status().toString();
  }
}

// Verifies the message names every cause, as the API server's does.
TEST(ParseRunSpec, ErrorMessage) {
  EXPECT_EQ(parseRunSpec(with({{"repetitions", 0}})).status().message(),
            "spec.repetitions: Invalid value: 0: must be greater than or equal to 1");
  EXPECT_EQ(parseRunSpec(with({{"system", nullptr}, {"suspend", "no"}})).status().message(),
            "[spec.system: Required value, spec.suspend: Invalid value: \"string\": spec.suspend "
            "in body must be of type boolean: \"string\"]");
}

// Verifies that a long value is shown whole and a non-UTF-8 one escaped as Go's %q escapes it,
// never thrown on.
TEST(ParseRunSpec, HostileStrings) {
  common::Result<RunSpec> got = parseRunSpec(with({{"benchmark", std::string(1000, 'b')}}));
  ASSERT_EQ(got.status().causes().size(), 1u);
  EXPECT_EQ(got.status().causes()[0].message,
            "Unsupported value: \"" + std::string(1000, 'b') +
                "\": supported values: \"resnet50\", \"cosmoflow\", \"deepcam\", \"custom\"");
  got = parseRunSpec(with({{"system", "\xff\xfe\n"}}));
  ASSERT_EQ(got.status().causes().size(), 1u);
  EXPECT_EQ(got.status().causes()[0].message,
            R"(Invalid value: "\xff\xfe\n": must consist of alphanumeric )"
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character");
}

// Generates a JSON value of a random type, sometimes nested, from a seeded engine.
json randomValue(std::mt19937& rng, int depth) {
  switch (std::uniform_int_distribution<int>(0, depth > 3 ? 7 : 9)(rng)) {
    case 0:
      return nullptr;
    case 1:
      return std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    case 2:
      return std::uniform_int_distribution<std::int64_t>(-5, 200)(rng);
    case 3:
      return std::numeric_limits<std::uint64_t>::max();
    case 4:
      return std::uniform_real_distribution<double>(-1e19, 1e19)(rng);
    case 5:
      return "$(params.p0)";
    case 6:
      return "1h";
    case 7:
      return std::string("\xC3\x28 resnet50");
    case 8: {
      json a = json::array();
      for (int i = std::uniform_int_distribution<int>(0, 3)(rng); i > 0; --i) {
        a.push_back(randomValue(rng, depth + 1));
      }
      return a;
    }
    default: {
      json o = json::object();
      for (const char* key : {"p0", "kind", "onSuccess", "retainFor", "image"}) {
        if (std::uniform_int_distribution<int>(0, 2)(rng) == 0)
          o[key] = randomValue(rng, depth + 1);
      }
      return o;
    }
  }
}

// Verifies that hostile JSON (every field of a random type, huge numbers, invalid UTF-8, deep
// nesting) never throws or crashes: the result is a spec or Invalid.
TEST(ParseRunSpec, HostileJsonNeverThrows) {
  std::mt19937 rng(20261122);
  const char* fields[] = {"benchmark",   "system",      "workload",   "template",     "matrix",
                          "repetitions", "parallelism", "timeLimit",  "startTimeout", "suspend",
                          "cleanup",     "metrics",     "references", "unknown"};
  for (int i = 0; i < 3000; ++i) {
    json spec = json::object();
    for (const char* field : fields) {
      if (std::uniform_int_distribution<int>(0, 3)(rng) > 0) spec[field] = randomValue(rng, 0);
    }
    common::Result<RunSpec> got = RunSpec{};
    ASSERT_NO_THROW(got = parseRunSpec(spec))
        << spec.dump(-1, ' ', false, json::error_handler_t::replace);
    if (!got.isOk()) {
      EXPECT_TRUE(got.status().isInvalid());
      EXPECT_FALSE(got.status().causes().empty());
    }
  }
  for (const json& top : {json(1.5), json(true), nestedArrays(100000)}) {
    EXPECT_TRUE(parseRunSpec(top).status().isInvalid());
  }
  json deep = minimal();
  deep["workload"]["x"] = nestedArrays(100000);
  deep["metrics"] = nestedArrays(100000);
  deep["references"]["x"] = nestedArrays(100000);
  EXPECT_EQ(parseRunSpec(deep).status().causes().size(), 3u);
}

}  // namespace
}  // namespace hetbench::benchmark
