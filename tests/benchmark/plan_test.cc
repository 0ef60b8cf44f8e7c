#include "hetbench/benchmark/plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

// Verifies the cartesian product: parameters in name order whatever the input order, the
// last varying fastest; an empty matrix is one point without parameters.
TEST(PlanTrials, ProductInNameOrder) {
  struct Case {
    std::string name;
    std::vector<MatrixParameter> matrix;
    std::vector<Params> want;
  };
  const std::vector<Case> cases = {
      {"empty matrix", {}, {Params{}}},
      {"one parameter", {{"gpus", {"1", "2"}}}, {{{"gpus", "1"}}, {{"gpus", "2"}}}},
      {"two parameters, given out of order",
       {{"gpus", {"1", "2"}}, {"batch", {"32", "64", "128"}}},
       {{{"batch", "32"}, {"gpus", "1"}},
        {{"batch", "32"}, {"gpus", "2"}},
        {{"batch", "64"}, {"gpus", "1"}},
        {{"batch", "64"}, {"gpus", "2"}},
        {{"batch", "128"}, {"gpus", "1"}},
        {{"batch", "128"}, {"gpus", "2"}}}},
      {"values keep their listed order", {{"p", {"b", "a"}}}, {{{"p", "b"}}, {{"p", "a"}}}},
      {"a parameter without values empties the product", {{"a", {"1"}}, {"b", {}}}, {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(planTrials(c.matrix), c.want) << c.name;
  }
}

// Verifies that units are trial-major with the repetitions of a trial consecutive.
TEST(PlanUnits, RepetitionsConsecutive) {
  RunSpec spec;
  spec.matrix = {{"gpus", {"1", "2"}}};
  spec.repetitions = 3;
  const std::vector<Unit> want = {
      {0, 0, {{"gpus", "1"}}}, {0, 1, {{"gpus", "1"}}}, {0, 2, {{"gpus", "1"}}},
      {1, 0, {{"gpus", "2"}}}, {1, 1, {{"gpus", "2"}}}, {1, 2, {{"gpus", "2"}}},
  };
  EXPECT_EQ(planUnits(spec), want);
}

// Verifies that a run without a matrix has one trial repeated.
TEST(PlanUnits, EmptyMatrix) {
  RunSpec spec;
  spec.repetitions = 2;
  EXPECT_EQ(planUnits(spec), (std::vector<Unit>{{0, 0, {}}, {0, 1, {}}}));
}

// Verifies substitution in strings: whole and partial references, several per string, the
// `$$(` escape, and text that is not a reference left as it is.
TEST(SubstituteParams, Strings) {
  struct Case {
    std::string name;
    std::string input;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no reference", "plain text", "plain text"},
      {"only a reference", "$(params.gpus)", "4"},
      {"inside text", "--gpus=$(params.gpus)", "--gpus=4"},
      {"several", "$(params.gpus)x$(params.batch) $(params.gpus)", "4x256 4"},
      {"adjacent", "$(params.gpus)$(params.batch)", "4256"},
      {"escape", "$$(params.gpus)", "$(params.gpus)"},
      {"escape then reference", "$$($(params.gpus))", "$(4)"},
      {"escape of other text", "echo $$(date)", "echo $(date)"},
      {"other dollar text", "echo $HOME $$ $(hostname)", "echo $HOME $$ $(hostname)"},
      {"not params", "$(notparams.gpus) $(params_gpus) $(PARAMS.gpus)",
       "$(notparams.gpus) $(params_gpus) $(PARAMS.gpus)"},
      {"unterminated", "x $(params.gpus", "x $(params.gpus"},
      {"unterminated after a reference", "$(params.gpus) $(params.", "4 $(params."},
      {"trailing dollar", "cost$", "cost$"},
      {"value is not scanned again", "$(params.ref)", "$(params.gpus)"},
  };
  const Params params = {{"gpus", "4"}, {"batch", "256"}, {"ref", "$(params.gpus)"}};
  for (const Case& c : cases) {
    common::Result<json> got = substituteParams(c.input, params, "spec.workload.image");
    ASSERT_TRUE(got.isOk()) << c.name << ": " << got.status().toString();
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

// Verifies substitution in nested arrays and objects: every string value, no key, no
// non-string value.
TEST(SubstituteParams, NestedValues) {
  const json input = {
      {"args", {"--batch", "$(params.batch)", {{"deep", {"$(params.gpus)"}}}}},
      {"$(params.gpus)", "key untouched"},
      {"env", {{{"name", "GPUS"}, {"value", "$(params.gpus)"}}}},
      {"count", 4},
      {"flag", true},
      {"none", nullptr},
  };
  const json want = {
      {"args", {"--batch", "256", {{"deep", {"4"}}}}},
      {"$(params.gpus)", "key untouched"},
      {"env", {{{"name", "GPUS"}, {"value", "4"}}}},
      {"count", 4},
      {"flag", true},
      {"none", nullptr},
  };
  common::Result<json> got = substituteParams(input, {{"gpus", "4"}, {"batch", "256"}}, "spec");
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  EXPECT_EQ(*got, want);
}

// Verifies that a reference to an unknown parameter is Invalid, one cause per string naming
// the field's path and the first unknown parameter.
TEST(SubstituteParams, UnknownParameter) {
  struct Case {
    std::string name;
    json input;
    std::vector<common::StatusCause> want;
  };
  const std::vector<Case> cases = {
      {"in an array",
       json{{"args", {"a", "b", "--gpus=$(params.gpu)"}}},
       {{"spec.workload.args[2]", "FieldValueInvalid",
         R"~(Invalid value: "--gpus=$(params.gpu)": unknown parameter "gpu")~"}}},
      {"the string itself",
       "$(params.x)",
       {{"spec.workload", "FieldValueInvalid",
         R"~(Invalid value: "$(params.x)": unknown parameter "x")~"}}},
      {"first of two unknown in one string",
       json{{"a", "$(params.b) $(params.c)"}},
       {{"spec.workload.a", "FieldValueInvalid",
         R"~(Invalid value: "$(params.b) $(params.c)": unknown parameter "b")~"}}},
      {"one cause per string",
       json{{"a", "$(params.x)"}, {"b", {{"c", "$(params.gpus) $(params.y)"}}}},
       {{"spec.workload.a", "FieldValueInvalid",
         R"~(Invalid value: "$(params.x)": unknown parameter "x")~"},
        {"spec.workload.b.c", "FieldValueInvalid",
         R"~(Invalid value: "$(params.gpus) $(params.y)": unknown parameter "y")~"}}},
      {"an empty name",
       "$(params.)",
       {{"spec.workload", "FieldValueInvalid",
         R"~(Invalid value: "$(params.)": unknown parameter "")~"}}},
      {"a name with other characters",
       "$(params.gpu-count)",
       {{"spec.workload", "FieldValueInvalid",
         R"~(Invalid value: "$(params.gpu-count)": unknown parameter "gpu-count")~"}}},
  };
  for (const Case& c : cases) {
    common::Result<json> got = substituteParams(c.input, {{"gpus", "4"}}, "spec.workload");
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_EQ(got.status().causes(), c.want) << c.name;
  }
}

// Verifies the status message lists the causes as the API server does.
TEST(SubstituteParams, ErrorMessage) {
  common::Result<json> one = substituteParams("$(params.x)", {}, "spec.template");
  EXPECT_EQ(one.status().message(),
            R"~(spec.template: Invalid value: "$(params.x)": unknown parameter "x")~");
  common::Result<json> two = substituteParams(json{"$(params.x)", "$(params.y)"}, {}, "p");
  EXPECT_EQ(two.status().message(),
            R"~([p[0]: Invalid value: "$(params.x)": unknown parameter "x", )~"
            R"~(p[1]: Invalid value: "$(params.y)": unknown parameter "y"])~");
}

// Verifies that a long value is shown whole, as the API server shows it, and that substitution
// of a long string full of unterminated references stays linear (finishes at once).
TEST(SubstituteParams, LongStrings) {
  const std::string value = "$(params.missing) " + std::string(200, 'a');
  common::Result<json> got = substituteParams(value, {}, "f");
  ASSERT_EQ(got.status().causes().size(), 1u);
  EXPECT_EQ(got.status().causes()[0].message,
            "Invalid value: \"" + value + "\": unknown parameter \"missing\"");

  std::string hostile;
  for (int i = 0; i < 200000; ++i) hostile += "$(params.";
  common::Result<json> kept = substituteParams(hostile, {}, "f");
  ASSERT_TRUE(kept.isOk());
  EXPECT_EQ(*kept, hostile);
}

}  // namespace
}  // namespace hetbench::benchmark
