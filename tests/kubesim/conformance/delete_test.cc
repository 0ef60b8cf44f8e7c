#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kMerge = "application/merge-patch+json";

std::string cmPath(const std::string& name) { return std::string(kConfigMaps) + "/" + name; }

// A configmap owned by `owner` (blocking its foreground deletion).
json dependent(const std::string& name, const json& owner, const json& finalizers = nullptr) {
  json cm = configMap(name);
  cm["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                        {"kind", "ConfigMap"},
                                        {"name", owner["metadata"]["name"]},
                                        {"uid", owner["metadata"]["uid"]},
                                        {"blockOwnerDeletion", true}}};
  if (!finalizers.is_null()) cm["metadata"]["finalizers"] = finalizers;
  return cm;
}

// Verifies that deleting a configmap answers a Success Status naming it (the generic registry
// returns the object only for resources that ask for it, like pods).
TEST(Delete, ImmediateDeleteAnswersStatus) {
  Harness h;
  json cm = bodyJson(h.post(kConfigMaps, configMap("c")));
  Response r = h.del(cmPath("c"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(
      bodyJson(r),
      (json{{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", "Success"},
            {"details", {{"name", "c"}, {"kind", "configmaps"}, {"uid", cm["metadata"]["uid"]}}}}));
  EXPECT_EQ(h.get(cmPath("c")).status, 404);
}

// Verifies that deleting a pod at once returns the deleted pod.
TEST(Delete, PodDeleteReturnsObject) {
  Harness h;
  json pod = commandPod("p", "true");
  pod["spec"]["nodeSelector"] = {{"example.com/pool", "none"}};
  json created = bodyJson(h.post("/api/v1/namespaces/default/pods", pod));
  Response r = h.del("/api/v1/namespaces/default/pods/p", {{"gracePeriodSeconds", 0}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["kind"], "Pod");
  EXPECT_EQ(bodyJson(r)["metadata"]["uid"], created["metadata"]["uid"]);
  EXPECT_EQ(h.get("/api/v1/namespaces/default/pods/p").status, 404);
}

// Verifies that finalizers hold a deleted object, that no finalizer may be added then, and that
// removing the last one deletes it.
TEST(Delete, FinalizersHoldObject) {
  Harness h;
  json cm = configMap("c");
  cm["metadata"]["finalizers"] = {"example.com/a"};
  ASSERT_EQ(h.post(kConfigMaps, cm).status, 201);
  Response r = h.del(cmPath("c"));
  ASSERT_EQ(r.status, 200) << r.body;
  json deleting = bodyJson(r);
  EXPECT_EQ(deleting["kind"], "ConfigMap");
  EXPECT_TRUE(deleting["metadata"]["deletionTimestamp"].is_string()) << deleting;
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 0);
  EXPECT_EQ(bodyJson(h.get(cmPath("c"))), deleting);

  const std::string message =
      "Forbidden: no new finalizers can be added if the object is being deleted, found new "
      "finalizers []string{\"example.com/b\"}";
  expectStatus(h.patch(cmPath("c"), kMerge,
                       {{"metadata", {{"finalizers", {"example.com/a", "example.com/b"}}}}}),
               422, "Invalid", "ConfigMap \"c\" is invalid: metadata.finalizers: " + message,
               {{"name", "c"},
                {"kind", "ConfigMap"},
                {"causes", {cause("FieldValueForbidden", message, "metadata.finalizers")}}});

  ASSERT_EQ(h.patch(cmPath("c"), kMerge, {{"metadata", {{"finalizers", nullptr}}}}).status, 200);
  EXPECT_EQ(h.get(cmPath("c")).status, 404);
}

// Verifies that delete preconditions on uid and resourceVersion are 409 Conflict.
TEST(Delete, Preconditions) {
  Harness h;
  json cm = bodyJson(h.post(kConfigMaps, configMap("c")));
  const std::string uid = cm["metadata"]["uid"];
  const std::string rv = cm["metadata"]["resourceVersion"];
  expectStatus(h.del(cmPath("c"), {{"preconditions", {{"uid", "other"}}}}), 409, "Conflict",
               "Operation cannot be fulfilled on configmaps \"c\": Precondition failed: UID in "
               "precondition: other, UID in object meta: " +
                   uid,
               {{"name", "c"}, {"kind", "configmaps"}});
  expectStatus(h.del(cmPath("c"), {{"preconditions", {{"resourceVersion", "1"}}}}), 409, "Conflict",
               "Operation cannot be fulfilled on configmaps \"c\": Precondition failed: "
               "ResourceVersion in precondition: 1, ResourceVersion in object meta: " +
                   rv,
               {{"name", "c"}, {"kind", "configmaps"}});
  EXPECT_EQ(h.del(cmPath("c"), {{"preconditions", {{"uid", uid}, {"resourceVersion", rv}}}}).status,
            200);
}

// Verifies that Background propagation deletes the owner at once and the garbage collector
// then deletes its dependents.
TEST(Delete, BackgroundPropagation) {
  Harness h;
  json owner = bodyJson(h.post(kConfigMaps, configMap("owner")));
  ASSERT_EQ(h.post(kConfigMaps, dependent("dep", owner)).status, 201);
  ASSERT_EQ(h.del(cmPath("owner"), {{"propagationPolicy", "Background"}}).status, 200);
  EXPECT_EQ(h.get(cmPath("owner")).status, 404);
  EXPECT_TRUE(Harness::eventually([&] { return h.get(cmPath("dep")).status == 404; }));
}

// Verifies that Foreground propagation keeps the owner, with the foregroundDeletion finalizer,
// until its blocking dependents are gone.
TEST(Delete, ForegroundPropagation) {
  Harness h;
  json owner = bodyJson(h.post(kConfigMaps, configMap("owner")));
  ASSERT_EQ(h.post(kConfigMaps, dependent("dep", owner, {"example.com/hold"})).status, 201);
  Response r = h.del(cmPath("owner") + "?propagationPolicy=Foreground");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["metadata"]["finalizers"], json({"foregroundDeletion"}));
  EXPECT_TRUE(bodyJson(r)["metadata"].contains("deletionTimestamp"));
  ASSERT_TRUE(Harness::eventually(
      [&] { return bodyJson(h.get(cmPath("dep")))["metadata"].contains("deletionTimestamp"); }));
  EXPECT_EQ(h.get(cmPath("owner")).status, 200) << "a blocking dependent still exists";
  ASSERT_EQ(h.patch(cmPath("dep"), kMerge, {{"metadata", {{"finalizers", nullptr}}}}).status, 200);
  EXPECT_TRUE(Harness::eventually([&] { return h.get(cmPath("owner")).status == 404; }));
}

// Verifies that Orphan propagation deletes the owner and keeps dependents without the
// ownerReference.
TEST(Delete, OrphanPropagation) {
  Harness h;
  json owner = bodyJson(h.post(kConfigMaps, configMap("owner")));
  ASSERT_EQ(h.post(kConfigMaps, dependent("dep", owner)).status, 201);
  Response r = h.del(cmPath("owner"), {{"propagationPolicy", "Orphan"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Harness::eventually([&] { return h.get(cmPath("owner")).status == 404; }));
  json dep = bodyJson(h.get(cmPath("dep")));
  EXPECT_EQ(dep["metadata"]["name"], "dep");
  EXPECT_FALSE(dep["metadata"].contains("ownerReferences")) << dep;
}

// Verifies that an unknown propagation policy is 422.
TEST(Delete, UnknownPropagationPolicy) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("c")).status, 201);
  Response r = h.del(cmPath("c"), {{"propagationPolicy", "Sideways"}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(bodyJson(r)["reason"], "Invalid");
}

// Verifies that a batch/v1 Job deleted without a policy orphans its pods, as the REST API's
// default for jobs is Orphan.
TEST(Delete, JobDefaultPropagationIsOrphan) {
  Harness h;
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "j"}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers",
                     {{{"name", "main"}, {"image", "busybox"}, {"command", {"true"}}}}}}}}}}}};
  ASSERT_EQ(h.post("/apis/batch/v1/namespaces/default/jobs", job).status, 201);
  std::string podName;
  ASSERT_TRUE(Harness::eventually([&] {
    json pods = bodyJson(h.get("/api/v1/namespaces/default/pods?labelSelector=job-name=j"));
    if (pods["items"].empty()) return false;
    podName = pods["items"][0]["metadata"]["name"];
    return true;
  }));
  Response r = h.del("/apis/batch/v1/namespaces/default/jobs/j");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Harness::eventually(
      [&] { return h.get("/apis/batch/v1/namespaces/default/jobs/j").status == 404; }));
  json pod = bodyJson(h.get("/api/v1/namespaces/default/pods/" + podName));
  EXPECT_EQ(pod["metadata"]["name"], podName) << "the pod outlives its job";
  EXPECT_FALSE(pod["metadata"].contains("ownerReferences")) << pod;
}

// Verifies that deletecollection with a label selector deletes only matching objects and
// returns them as a list.
TEST(Delete, DeleteCollectionWithSelector) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("a", nullptr, {{"env", "prod"}})).status, 201);
  ASSERT_EQ(h.post(kConfigMaps, configMap("b", nullptr, {{"env", "dev"}})).status, 201);
  ASSERT_EQ(h.post(kConfigMaps, configMap("c", nullptr, {{"env", "prod"}})).status, 201);
  Response r = h.del(std::string(kConfigMaps) + "?labelSelector=env%3Dprod");
  ASSERT_EQ(r.status, 200) << r.body;
  json list = bodyJson(r);
  EXPECT_EQ(list["kind"], "ConfigMapList");
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "a");
  EXPECT_EQ(list["items"][1]["metadata"]["name"], "c");
  EXPECT_EQ(h.get(cmPath("a")).status, 404);
  EXPECT_EQ(h.get(cmPath("b")).status, 200);
  EXPECT_EQ(h.get(cmPath("c")).status, 404);
}

// Verifies that deleting a namespace marks it Terminating, deletes its content, then the
// namespace itself.
TEST(Delete, NamespaceDeletion) {
  Harness h;
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gone"}}}};
  ASSERT_EQ(h.post("/api/v1/namespaces", ns).status, 201);
  ASSERT_EQ(h.post("/api/v1/namespaces/gone/configmaps", configMap("c")).status, 201);
  Response r = h.del("/api/v1/namespaces/gone");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["status"]["phase"], "Terminating");
  EXPECT_TRUE(bodyJson(r)["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(bodyJson(r)["spec"]["finalizers"], json({"kubernetes"}));
  EXPECT_TRUE(Harness::eventually([&] {
    return h.get("/api/v1/namespaces/gone/configmaps/c").status == 404 &&
           h.get("/api/v1/namespaces/gone").status == 404;
  }));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
