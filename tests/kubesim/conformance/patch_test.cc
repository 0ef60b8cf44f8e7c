#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kConfigMap = "/api/v1/namespaces/default/configmaps/c";
constexpr const char* kMerge = "application/merge-patch+json";
constexpr const char* kJsonPatch = "application/json-patch+json";
constexpr const char* kStrategic = "application/strategic-merge-patch+json";

// A pod no node can take, so that it stays Pending and only the test writes its spec.
json parkedPod(const std::string& name) {
  json pod = commandPod(name, "true");
  pod["spec"]["nodeSelector"] = {{"example.com/pool", "none"}};
  pod["spec"]["containers"].push_back(
      {{"name", "side"}, {"image", "busybox"}, {"command", {"sleep", "1"}}});
  return pod;
}

// Verifies that a merge patch sets, replaces and (with null) removes keys.
TEST(Patch, MergePatch) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c", {{"a", "1"}, {"b", "2"}})).status, 201);
  Response r = h.patch(kConfigMap, kMerge, {{"data", {{"a", "9"}, {"b", nullptr}, {"c", "3"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["data"], json({{"a", "9"}, {"c", "3"}}));
}

// Verifies that a JSON patch applies its operations in order.
TEST(Patch, JsonPatch) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c", {{"a", "1"}})).status, 201);
  json ops = {{{"op", "test"}, {"path", "/data/a"}, {"value", "1"}},
              {{"op", "replace"}, {"path", "/data/a"}, {"value", "2"}},
              {{"op", "add"}, {"path", "/metadata/labels"}, {"value", {{"x", "y"}}}}};
  Response r = h.patch(kConfigMap, kJsonPatch, ops);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["data"], json({{"a", "2"}}));
  EXPECT_EQ(bodyJson(r)["metadata"]["labels"], json({{"x", "y"}}));
}

// Verifies that a JSON patch whose test operation fails is 422, as the API server wraps the
// patch library's error in a generic "Invalid" response whose one cause carries it (kubectl
// prints the cause).
TEST(Patch, JsonPatchFailedTestIsInvalid) {
  Harness h;
  json cm = bodyJson(h.post(kConfigMaps, configMap("c", {{"a", "1"}})));
  json ops = {{{"op", "test"}, {"path", "/data/a"}, {"value", "2"}},
              {{"op", "replace"}, {"path", "/data/a"}, {"value", "3"}}};
  expectStatus(h.patch(kConfigMap, kJsonPatch, ops), 422, "Invalid",
               "the server rejected our request due to an error in our request",
               {{"causes",
                 {{{"reason", "UnexpectedServerResponse"},
                   {"message", "testing value /data/a failed: test failed"}}}}});
  EXPECT_EQ(bodyJson(h.get(kConfigMap)), cm) << "a failed patch changes nothing";
}

// Verifies that a JSON patch document that does not decode is 400, not 422.
TEST(Patch, MalformedJsonPatchIsBadRequest) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  expectStatus(h.patch(kConfigMap, kJsonPatch, {{"op", "add"}}), 400, "BadRequest",
               "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
}

// Verifies that a strategic merge patch merges a pod's containers by name, where a merge patch
// would replace the list.
TEST(Patch, StrategicMergeOnPodContainers) {
  Harness h;
  Response created = h.post("/api/v1/namespaces/default/pods", parkedPod("p"));
  ASSERT_EQ(created.status, 201) << created.body;
  json patch = {{"metadata", {{"labels", {{"tier", "x"}}}}},
                {"spec", {{"containers", {{{"name", "side"}, {"image", "busybox:2"}}}}}}};
  Response r = h.patch("/api/v1/namespaces/default/pods/p", kStrategic, patch);
  ASSERT_EQ(r.status, 200) << r.body;
  json containers = bodyJson(r)["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u) << containers;
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "busybox");
  EXPECT_EQ(containers[1]["image"], "busybox:2");
  EXPECT_EQ(containers[1]["command"], json({"sleep", "1"}));
  EXPECT_EQ(bodyJson(r)["metadata"]["labels"], json({{"tier", "x"}}));
}

// Verifies that a strategic merge patch on a configmap merges its data map.
TEST(Patch, StrategicMergeOnConfigMap) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c", {{"a", "1"}})).status, 201);
  Response r = h.patch(kConfigMap, kStrategic, {{"data", {{"b", "2"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["data"], json({{"a", "1"}, {"b", "2"}}));
}

// Verifies that an unknown patch content type is 415 UnsupportedMediaType.
TEST(Patch, UnknownContentTypeIsUnsupported) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  for (const char* type : {"application/json", "text/plain"}) {
    SCOPED_TRACE(type);
    Response r = h.patch(kConfigMap, type, {{"data", {{"a", "1"}}}});
    EXPECT_EQ(r.status, 415) << r.body;
    json status = bodyJson(r);
    EXPECT_EQ(status["reason"], "UnsupportedMediaType");
    EXPECT_EQ(status["code"], 415);
    EXPECT_FALSE(status.contains("details"));
    // The real server lists application/apply-patch+yaml too (server-side apply, which kubesim
    // does not serve); the types both accept come first.
    EXPECT_EQ(status["message"].get<std::string>().rfind(
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json-patch+json, application/merge-patch+json, "
                  "application/strategic-merge-patch+json",
                  0),
              0u)
        << status;
  }
}

// Verifies that a patch naming a stale resourceVersion is 409 Conflict.
TEST(Patch, StaleResourceVersionConflicts) {
  Harness h;
  json cm = bodyJson(h.post(kConfigMaps, configMap("c")));
  ASSERT_EQ(h.patch(kConfigMap, kMerge, {{"data", {{"a", "1"}}}}).status, 200);
  json stale = {{"metadata", {{"resourceVersion", cm["metadata"]["resourceVersion"]}}},
                {"data", {{"a", "2"}}}};
  expectStatus(h.patch(kConfigMap, kMerge, stale), 409, "Conflict",
               "Operation cannot be fulfilled on configmaps \"c\": the object has been modified; "
               "please apply your changes to the latest version and try again",
               {{"name", "c"}, {"kind", "configmaps"}});
}

// Verifies that a patch of a missing object is 404.
TEST(Patch, MissingObjectIsNotFound) {
  Harness h;
  expectStatus(h.patch(kConfigMap, kMerge, {{"data", {{"a", "1"}}}}), 404, "NotFound",
               "configmaps \"c\" not found", {{"name", "c"}, {"kind", "configmaps"}});
}

// Verifies that a patch leaving the object invalid is 422 with the validation causes.
TEST(Patch, PatchToInvalidObject) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  const std::string message =
      "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric "
      "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
      "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  expectStatus(h.patch(kConfigMap, kMerge, {{"metadata", {{"labels", {{"k", "a b"}}}}}}), 422,
               "Invalid", "ConfigMap \"c\" is invalid: metadata.labels: " + message,
               {{"name", "c"},
                {"kind", "ConfigMap"},
                {"causes", {cause("FieldValueInvalid", message, "metadata.labels")}}});
}

}  // namespace
}  // namespace hetbench::kubesim::testing
