#include "apimachinery/patch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// Verifies JSON merge patch against the examples of RFC 7386 appendix A.
TEST(MergePatchTest, Rfc7386AppendixExamples) {
  struct Case {
    const char* target;
    const char* patch;
    const char* want;
  };
  const std::vector<Case> cases = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)", R"(null)"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(applyMergePatch(json::parse(c.target), json::parse(c.patch)), json::parse(c.want))
        << c.target << " + " << c.patch;
  }
}

// Verifies each JSON patch operation, escaped pointers ("~0", "~1"), "-" append, negative
// indices, and the library's lenient replace of a missing key.
TEST(JsonPatchTest, AppliesOperations) {
  const json target = json::parse(R"({
    "metadata": {"name": "p", "labels": {"a/b": "1", "m~n": "2"}},
    "list": [1, 2, 3]
  })");
  struct Case {
    const char* patch;
    const char* want;  // the changed part of the document, merged over target for brevity
  };
  const std::vector<Case> cases = {
      {R"([{"op":"add","path":"/metadata/labels/new","value":"x"}])",
       R"({"metadata":{"labels":{"new":"x"}}})"},
      {R"([{"op":"add","path":"/metadata/labels/a~1b","value":"9"}])",
       R"({"metadata":{"labels":{"a/b":"9"}}})"},
      {R"([{"op":"replace","path":"/metadata/labels/m~0n","value":"8"}])",
       R"({"metadata":{"labels":{"m~n":"8"}}})"},
      {R"([{"op":"remove","path":"/metadata/labels/a~1b"}])",
       R"({"metadata":{"labels":{"a/b":null}}})"},
      {R"([{"op":"add","path":"/list/-","value":4}])", R"({"list":[1,2,3,4]})"},
      {R"([{"op":"add","path":"/list/0","value":0}])", R"({"list":[0,1,2,3]})"},
      {R"([{"op":"add","path":"/list/3","value":4}])", R"({"list":[1,2,3,4]})"},
      {R"([{"op":"add","path":"/list/-1","value":4}])", R"({"list":[1,2,3,4]})"},
      {R"([{"op":"remove","path":"/list/-1"}])", R"({"list":[1,2]})"},
      {R"([{"op":"remove","path":"/list/1"}])", R"({"list":[1,3]})"},
      {R"([{"op":"replace","path":"/list/1","value":"two"}])", R"({"list":[1,"two",3]})"},
      {R"([{"op":"replace","path":"/metadata/missing","value":"v"}])",
       R"({"metadata":{"missing":"v"}})"},
      {R"([{"op":"move","from":"/metadata/name","path":"/metadata/labels/name"}])",
       R"({"metadata":{"name":null,"labels":{"name":"p"}}})"},
      {R"([{"op":"copy","from":"/list","path":"/copy"}])", R"({"copy":[1,2,3]})"},
      {R"([{"op":"test","path":"/metadata/name","value":"p"},
           {"op":"add","path":"/ok","value":true}])",
       R"({"ok":true})"},
      {R"([{"op":"test","path":"/metadata/absent","value":null}])", R"({})"},
      {R"([{"op":"add","path":"/metadata/labels","value":{"k":"v"}}])",
       R"({"metadata":{"labels":{"a/b":null,"m~n":null,"k":"v"}}})"},
      {R"(null)", R"({})"},
  };
  for (const auto& c : cases) {
    auto result = applyJsonPatch(target, json::parse(c.patch));
    ASSERT_TRUE(result.isOk()) << c.patch << ": " << result.status().toString();
    EXPECT_EQ(*result, applyMergePatch(target, json::parse(c.want))) << c.patch;
  }
}

// Verifies that failing operations are Invalid with the API server's generic 422 message and the
// library's detail in the cause, and that a malformed document is rejected with its decoder's
// wording.
TEST(JsonPatchTest, ReportsFailures) {
  const json target = json::parse(R"({"metadata":{"name":"p"},"list":[1,2]})");
  struct Case {
    const char* patch;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {R"([{"op":"test","path":"/metadata/name","value":"q"}])",
       "testing value /metadata/name failed: test failed"},
      {R"([{"op":"test","path":"/metadata/missing","value":"q"}])",
       "testing value /metadata/missing failed: test failed"},
      {R"([{"op":"remove","path":"/metadata/missing"}])",
       "error in remove for path: '/metadata/missing': Unable to remove nonexistent key: missing: "
       "missing value"},
      {R"([{"op":"remove","path":"/nope/deeper"}])",
       "remove operation does not apply: doc is missing path: \"/nope/deeper\": missing value"},
      {R"([{"op":"add","path":"/nope/deeper","value":1}])",
       "add operation does not apply: doc is missing path: \"/nope/deeper\": missing value"},
      {R"([{"op":"add","path":"/list/5","value":1}])",
       "error in add for path: '/list/5': Unable to access invalid index: 5: invalid index "
       "referenced"},
      {R"([{"op":"add","path":"/list/x","value":1}])",
       "error in add for path: '/list/x': value was not a proper array index: 'x': strconv.Atoi: "
       "parsing \"x\": invalid syntax"},
      {R"([{"op":"remove","path":"/list/2"}])",
       "error in remove for path: '/list/2': Unable to access invalid index: 2: invalid index "
       "referenced"},
      {R"([{"op":"replace","path":"/list/7","value":1}])",
       "replace operation does not apply: doc is missing key: /list/7: missing value"},
      {R"([{"op":"replace","path":"/a/b","value":1}])",
       "replace operation does not apply: doc is missing path: /a/b: missing value"},
      {R"([{"op":"move","from":"/metadata/missing","path":"/x"}])",
       "error in move for path: 'missing': Unable to remove nonexistent key: missing: missing "
       "value"},
      {R"([{"op":"copy","from":"/list/9","path":"/x"}])",
       "error in copy for from: '/list/9': Unable to access invalid index: 9: invalid index "
       "referenced"},
      {R"([{"op":"add","value":1}])", "add operation failed to decode path: missing value"},
      {R"([{"op":"replace","path":5,"value":1}])",
       "replace operation failed to decode path: json: cannot unmarshal number into Go value of "
       "type string"},
      {R"([{"op":"move","path":"/x"}])",
       "move operation failed to decode from: operation, missing from field: missing value"},
      {R"([{"op":"frobnicate","path":"/x"}])", "Unexpected kind: frobnicate"},
      {R"([{"path":"/x"}])", "Unexpected kind: unknown"},
      {R"([{"op":"add","path":"","value":1}])",
       "add operation does not apply: doc is missing path: \"\": missing value"},
      {R"([{"op":"add","path":"/ok","value":1},{"op":"test","path":"/ok","value":2}])",
       "testing value /ok failed: test failed"},
  };
  for (const auto& c : cases) {
    auto result = applyJsonPatch(target, json::parse(c.patch));
    ASSERT_FALSE(result.isOk()) << c.patch;
    const auto status = result.status();
    EXPECT_TRUE(status.isInvalid());
    EXPECT_EQ(status.message(), "the server rejected our request due to an error in our request");
    ASSERT_EQ(status.causes().size(), 1u) << c.patch;
    EXPECT_EQ(status.causes()[0].reason, "UnexpectedServerResponse");
    EXPECT_EQ(status.causes()[0].message, c.detail) << c.patch;
  }

  const std::vector<std::pair<const char*, std::string>> malformed = {
      {R"({"op":"add"})", "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
      {R"("x")", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"},
      {R"([1])", "json: cannot unmarshal number into Go value of type jsonpatch.Operation"},
      {R"([true])", "json: cannot unmarshal bool into Go value of type jsonpatch.Operation"},
  };
  for (const auto& [patch, message] : malformed) {
    auto result = applyJsonPatch(target, json::parse(patch));
    ASSERT_FALSE(result.isOk()) << patch;
    EXPECT_TRUE(result.status().isInvalid());
    EXPECT_EQ(result.status().message(), message);
  }
}

// Verifies the library's object comparison in "test": the document's keys must match, extra keys
// in the patch value are not checked, and numbers compare by their JSON text.
TEST(JsonPatchTest, TestOperationComparesLikeTheLibrary) {
  const json target = json::parse(R"({"o":{"a":1},"n":1,"l":[1,{"x":"y"}]})");
  struct Case {
    const char* value;
    const char* path;
    bool passes;
  };
  const std::vector<Case> cases = {
      {R"({"a":1})", "/o", true},
      {R"({"a":1,"b":2})", "/o", true},
      {R"({})", "/o", false},
      {R"({"a":2})", "/o", false},
      {R"(1)", "/n", true},
      {R"(1.0)", "/n", false},
      {R"([1,{"x":"y"}])", "/l", true},
      {R"([1])", "/l", false},
      {R"("y")", "/l/1/x", true},
      {R"(null)", "/o/absent", true},
  };
  for (const auto& c : cases) {
    json patch = json::array({{{"op", "test"}, {"path", c.path}, {"value", json::parse(c.value)}}});
    EXPECT_EQ(applyJsonPatch(target, patch).isOk(), c.passes) << c.path << " " << c.value;
  }
}

}  // namespace
}  // namespace hetbench::kubesim
