#include "schema/jsonpath.h"

#include <gtest/gtest.h>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

json sample() {
  return json::parse(R"({
    "metadata": {"name": "run-1", "labels": {"app.kubernetes.io/name": "bench"}},
    "spec": {"repetitions": 3, "gpus": ["a100", "h100", "mi250"]},
    "status": {"conditions": [
      {"type": "Ready", "status": "True", "count": 2, "final": true},
      {"type": "Failed", "status": "False", "count": 0, "final": false}
    ]}
  })");
}

// Verifies each supported form selects what kubectl's jsonpath selects.
TEST(JsonPathTest, EvaluatesSupportedForms) {
  struct Case {
    const char* path;
    std::vector<json> want;
  };
  const Case cases[] = {
      {".spec.repetitions", {3}},
      {"{.metadata.name}", {"run-1"}},
      {".metadata.labels['app.kubernetes.io/name']", {"bench"}},
      {".spec.gpus[0]", {"a100"}},
      {".spec.gpus[-1]", {"mi250"}},
      {".spec.gpus[*]", {"a100", "h100", "mi250"}},
      {".spec.gpus[7]", {}},
      {".spec.missing.deeper", {}},
      {".status.conditions[?(@.type==\"Ready\")].status", {"True"}},
      {".status.conditions[?(@.type != 'Ready')].type", {"Failed"}},
      {".status.conditions[?(@.count==2)].type", {"Ready"}},
      {".status.conditions[?(@.final==false)].type", {"Failed"}},
      {".status.conditions[?(@.count==\"2\")].type", {}},
  };
  const json object = sample();
  for (const auto& c : cases) {
    auto path = JsonPath::parse(c.path);
    ASSERT_TRUE(path.isOk()) << c.path << ": " << path.status().toString();
    EXPECT_EQ(path->evaluate(object), c.want) << c.path;
  }
}

// Verifies malformed expressions are Invalid with a message naming them.
TEST(JsonPathTest, RejectsMalformedExpressions) {
  for (const char* text : {"", ".spec[", ".spec[abc]", "..spec", ".a[?(@.b>1)]", "spec"}) {
    auto path = JsonPath::parse(text);
    ASSERT_FALSE(path.isOk()) << text;
    EXPECT_TRUE(path.status().isInvalid());
    EXPECT_NE(path.status().message().find('"' + std::string(text) + '"'), std::string::npos)
        << path.status().message();
  }
}

}  // namespace
}  // namespace hetbench::kubesim
