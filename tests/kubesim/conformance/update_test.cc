#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMap = "/api/v1/namespaces/default/configmaps/c";
constexpr const char* kJobs = "/apis/batch/v1/namespaces/default/jobs";

json suspendedJob(const std::string& name) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"suspend", true},
            {"parallelism", 1},
            {"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "main"}, {"image", "busybox"}, {"command", {"true"}}}}}}}}}}}};
}

std::string rvOf(const json& object) { return object["metadata"]["resourceVersion"]; }

// Verifies that an update naming a stale resourceVersion is 409 Conflict.
TEST(Update, StaleResourceVersionConflicts) {
  Harness h;
  json cm = bodyJson(h.post("/api/v1/namespaces/default/configmaps", configMap("c")));
  json first = cm;
  first["data"] = {{"a", "1"}};
  ASSERT_EQ(h.put(kConfigMap, first).status, 200);
  json second = cm;
  second["data"] = {{"a", "2"}};
  expectStatus(h.put(kConfigMap, second), 409, "Conflict",
               "Operation cannot be fulfilled on configmaps \"c\": the object has been modified; "
               "please apply your changes to the latest version and try again",
               {{"name", "c"}, {"kind", "configmaps"}});
}

// Verifies that an update without resourceVersion is unconditional and gets a new one.
TEST(Update, UnconditionalUpdate) {
  Harness h;
  json cm = bodyJson(h.post("/api/v1/namespaces/default/configmaps", configMap("c")));
  json next = configMap("c", {{"a", "1"}});
  Response r = h.put(kConfigMap, next);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["data"], json({{"a", "1"}}));
  EXPECT_EQ(bodyJson(r)["metadata"]["uid"], cm["metadata"]["uid"]);
  EXPECT_GT(std::stoull(rvOf(bodyJson(r))), std::stoull(rvOf(cm)));
}

// Verifies that a PUT whose body names another object is 400.
TEST(Update, NameMismatch) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces/default/configmaps", configMap("c")).status, 201);
  expectStatus(h.put(kConfigMap, configMap("other")), 400, "BadRequest",
               "the name of the object (other) does not match the name on the URL (c)");
}

// Verifies that a PUT of something absent is 404 (configmaps do not create on update).
TEST(Update, MissingObjectIsNotFound) {
  Harness h;
  expectStatus(h.put(kConfigMap, configMap("c")), 404, "NotFound", "configmaps \"c\" not found",
               {{"name", "c"}, {"kind", "configmaps"}});
}

// Verifies that an update changing nothing keeps the resourceVersion.
TEST(Update, NoOpKeepsResourceVersion) {
  Harness h;
  json cm = bodyJson(h.post("/api/v1/namespaces/default/configmaps", configMap("c", {{"a", "1"}})));
  Response r = h.put(kConfigMap, cm);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(rvOf(bodyJson(r)), rvOf(cm));
  EXPECT_EQ(bodyJson(r), cm);
}

// Verifies that server-owned metadata (uid, creationTimestamp) cannot be changed by an update.
TEST(Update, ServerMetadataKept) {
  Harness h;
  json cm = bodyJson(h.post("/api/v1/namespaces/default/configmaps", configMap("c")));
  json next = cm;
  next["metadata"]["uid"] = cm["metadata"]["uid"];
  next["metadata"]["creationTimestamp"] = "2000-01-01T00:00:00Z";
  next["data"] = {{"x", "y"}};
  json updated = bodyJson(h.put(kConfigMap, next));
  EXPECT_EQ(updated["metadata"]["creationTimestamp"], cm["metadata"]["creationTimestamp"]);
  EXPECT_EQ(updated["data"], json({{"x", "y"}}));
}

// Verifies that a Job's generation starts at 1 and grows on spec changes only.
TEST(Update, JobGenerationOnSpecChangeOnly) {
  Harness h;
  const std::string path = std::string(kJobs) + "/j";
  Response created = h.post(kJobs, suspendedJob("j"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(bodyJson(created)["metadata"]["generation"], 1);

  json labels = {{"metadata", {{"labels", {{"team", "a"}}}}}};
  Response relabeled = h.patch(path, "application/merge-patch+json", labels);
  ASSERT_EQ(relabeled.status, 200) << relabeled.body;
  EXPECT_EQ(bodyJson(relabeled)["metadata"]["generation"], 1);

  json status = {{"status", {{"active", 0}}}};
  Response statusPatched = h.patch(path + "/status", "application/merge-patch+json", status);
  ASSERT_EQ(statusPatched.status, 200) << statusPatched.body;
  EXPECT_EQ(bodyJson(statusPatched)["metadata"]["generation"], 1);

  json spec = {{"spec", {{"parallelism", 2}}}};
  Response respecced = h.patch(path, "application/merge-patch+json", spec);
  ASSERT_EQ(respecced.status, 200) << respecced.body;
  EXPECT_EQ(bodyJson(respecced)["metadata"]["generation"], 2);
  EXPECT_EQ(bodyJson(respecced)["spec"]["parallelism"], 2);
}

// Verifies that a PUT of the main resource ignores status, and one of /status ignores spec.
TEST(Update, StatusSubresourceSplitsSpecAndStatus) {
  Harness h;
  const std::string path = "/api/v1/namespaces/default/services/s";
  json svc = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "s"}}},
              {"spec", {{"ports", {{{"port", 80}}}}}}};
  json created = bodyJson(h.post("/api/v1/namespaces/default/services", svc));
  ASSERT_EQ(created["status"], json({{"loadBalancer", json::object()}})) << created;

  json ingress = {{"loadBalancer", {{"ingress", {{{"ip", "192.0.2.1"}}}}}}};
  json viaMain = created;
  viaMain["status"] = ingress;
  viaMain["spec"]["ports"][0]["port"] = 81;
  json afterMain = bodyJson(h.put(path, viaMain));
  EXPECT_EQ(afterMain["status"], created["status"]);
  EXPECT_EQ(afterMain["spec"]["ports"][0]["port"], 81);

  json viaStatus = afterMain;
  viaStatus["status"] = ingress;
  viaStatus["spec"]["ports"][0]["port"] = 82;
  Response r = h.put(path + "/status", viaStatus);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["status"], ingress);
  EXPECT_EQ(bodyJson(r)["spec"]["ports"][0]["port"], 81);
  EXPECT_EQ(bodyJson(h.get(path))["status"], ingress);
}

// Verifies that the status subresource of a resource without one is 404.
TEST(Update, NoStatusSubresourceOnConfigMaps) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces/default/configmaps", configMap("c")).status, 201);
  expectStatus(h.put(std::string(kConfigMap) + "/status", configMap("c")), 404, "NotFound",
               "the server could not find the requested resource", json::object());
}

}  // namespace
}  // namespace hetbench::kubesim::testing
