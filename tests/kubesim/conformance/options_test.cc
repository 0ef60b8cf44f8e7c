#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kConfigMap = "/api/v1/namespaces/default/configmaps/c";

// The 422 a verb's options answer when they do not validate.
json optionsInvalid(const std::string& kind, const json& cause) {
  return failureStatus(422, "Invalid",
                       kind + ".meta.k8s.io \"\" is invalid: " + cause["field"].get<std::string>() +
                           ": " + cause["message"].get<std::string>(),
                       {{"group", "meta.k8s.io"}, {"kind", kind}, {"causes", {cause}}});
}

// Verifies that dryRun=All writes answer as usual and store nothing.
TEST(Options, DryRunStoresNothing) {
  Harness h;
  Response created = h.post(std::string(kConfigMaps) + "?dryRun=All", configMap("c"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(bodyJson(created)["metadata"]["name"], "c");
  EXPECT_EQ(h.get(kConfigMap).status, 404);

  json stored = bodyJson(h.post(kConfigMaps, configMap("c", {{"a", "1"}})));
  Response patched = h.patch(std::string(kConfigMap) + "?dryRun=All",
                             "application/merge-patch+json", {{"data", {{"a", "2"}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(bodyJson(patched)["data"], json({{"a", "2"}}));
  EXPECT_EQ(bodyJson(h.get(kConfigMap)), stored);

  ASSERT_EQ(h.del(std::string(kConfigMap) + "?dryRun=All").status, 200);
  EXPECT_EQ(bodyJson(h.get(kConfigMap)), stored);
}

// Verifies that an unsupported dryRun value is a 422 on the verb's options kind.
TEST(Options, UnsupportedDryRun) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  const json cause = {
      {"reason", "FieldValueNotSupported"},
      {"message", "Unsupported value: []string{\"Some\"}: supported values: \"All\""},
      {"field", "dryRun"}};
  struct Case {
    Response response;
    std::string kind;
  };
  const std::vector<Case> cases = {
      {h.post(std::string(kConfigMaps) + "?dryRun=Some", configMap("d")), "CreateOptions"},
      {h.put(std::string(kConfigMap) + "?dryRun=Some", configMap("c")), "UpdateOptions"},
      {h.patch(std::string(kConfigMap) + "?dryRun=Some", "application/merge-patch+json",
               json::object()),
       "PatchOptions"},
      {h.del(std::string(kConfigMap) + "?dryRun=Some"), "DeleteOptions"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind);
    EXPECT_EQ(c.response.status, 422) << c.response.body;
    EXPECT_EQ(bodyJson(c.response), optionsInvalid(c.kind, cause));
  }
  EXPECT_EQ(h.get(kConfigMap).status, 200);
  EXPECT_EQ(h.get(std::string(kConfigMaps) + "/d").status, 404);
}

// Verifies that an unsupported fieldValidation value is a 422 listing the accepted values.
TEST(Options, UnsupportedFieldValidation) {
  Harness h;
  const json cause = {{"reason", "FieldValueNotSupported"},
                      {"message",
                       "Unsupported value: \"Loose\": supported values: \"\", \"Ignore\", "
                       "\"Strict\", \"Warn\""},
                      {"field", "fieldValidation"}};
  Response r = h.post(std::string(kConfigMaps) + "?fieldValidation=Loose", configMap("c"));
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(bodyJson(r), optionsInvalid("CreateOptions", cause));
}

// Verifies that reads ignore write options.
TEST(Options, ReadsIgnoreWriteOptions) {
  Harness h;
  EXPECT_EQ(h.get(std::string(kConfigMaps) + "?dryRun=Some&fieldValidation=Loose").status, 200);
}

}  // namespace
}  // namespace hetbench::kubesim::testing
