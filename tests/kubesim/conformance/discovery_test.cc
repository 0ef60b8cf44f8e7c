#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

json findResource(const json& list, const std::string& name) {
  for (const json& r : list.value("resources", json::array())) {
    if (r.value("name", "") == name) return r;
  }
  return nullptr;
}

// Verifies that /version reports the Kubernetes version kubectl checks.
TEST(Discovery, Version) {
  Harness h;
  Response r = h.get("/version");
  ASSERT_EQ(r.status, 200) << r.body;
  json v = bodyJson(r);
  EXPECT_EQ(v["major"], "1");
  EXPECT_EQ(v["minor"], "32");
  EXPECT_EQ(v["gitVersion"].get<std::string>().rfind("v1.32.", 0), 0u);
  EXPECT_EQ(v["platform"], "linux/amd64");
}

// Verifies that /api lists v1 with the address clients should use.
TEST(Discovery, LegacyApiVersions) {
  Harness h;
  Response r = h.get("/api");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r), (json{{"kind", "APIVersions"},
                               {"versions", {"v1"}},
                               {"serverAddressByClientCIDRs",
                                {{{"clientCIDR", "0.0.0.0/0"},
                                  {"serverAddress", "127.0.0.1:" + std::to_string(h.port())}}}}}));
}

// Verifies that /api/v1 describes core resources and their subresources.
TEST(Discovery, CoreResourceList) {
  Harness h;
  json list = bodyJson(h.get("/api/v1"));
  EXPECT_EQ(list["kind"], "APIResourceList");
  EXPECT_EQ(list["groupVersion"], "v1");
  json pods = findResource(list, "pods");
  EXPECT_EQ(pods["singularName"], "pod");
  EXPECT_EQ(pods["namespaced"], true);
  EXPECT_EQ(pods["kind"], "Pod");
  EXPECT_EQ(pods["shortNames"], json({"po"}));
  EXPECT_EQ(pods["verbs"], json({"create", "delete", "deletecollection", "get", "list", "patch",
                                 "update", "watch"}));
  EXPECT_EQ(findResource(list, "pods/log")["verbs"], json({"get"}));
  EXPECT_EQ(findResource(list, "pods/status")["verbs"], json({"get", "patch", "update"}));
  EXPECT_EQ(findResource(list, "pods/binding")["kind"], "Binding");
  EXPECT_EQ(findResource(list, "nodes")["namespaced"], false);
  EXPECT_EQ(findResource(list, "namespaces")["namespaced"], false);
  EXPECT_EQ(findResource(list, "namespaces")["verbs"],
            json({"create", "delete", "get", "list", "patch", "update", "watch"}));
  EXPECT_EQ(findResource(list, "jobs"), nullptr);
}

// Verifies that /apis lists the batch group with its preferred version.
TEST(Discovery, GroupList) {
  Harness h;
  json groups = bodyJson(h.get("/apis"));
  EXPECT_EQ(groups["kind"], "APIGroupList");
  json batch;
  for (const json& g : groups["groups"]) {
    if (g["name"] == "batch") batch = g;
    EXPECT_NE(g["name"], "") << "the core group is served by /api only";
  }
  EXPECT_EQ(batch, (json{{"name", "batch"},
                         {"versions", {{{"groupVersion", "batch/v1"}, {"version", "v1"}}}},
                         {"preferredVersion", {{"groupVersion", "batch/v1"}, {"version", "v1"}}}}));
}

// Verifies /apis/batch and /apis/batch/v1.
TEST(Discovery, BatchGroupAndVersion) {
  Harness h;
  json group = bodyJson(h.get("/apis/batch"));
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_EQ(group["name"], "batch");
  EXPECT_EQ(group["preferredVersion"]["groupVersion"], "batch/v1");
  json list = bodyJson(h.get("/apis/batch/v1"));
  EXPECT_EQ(list["kind"], "APIResourceList");
  EXPECT_EQ(list["groupVersion"], "batch/v1");
  json jobs = findResource(list, "jobs");
  EXPECT_EQ(jobs["kind"], "Job");
  EXPECT_EQ(jobs["namespaced"], true);
  EXPECT_EQ(findResource(list, "jobs/status")["verbs"], json({"get", "patch", "update"}));
}

// Verifies that an unknown resource under a served group-version is a 404 Status, as go-restful
// answers through the API server's service error handler.
TEST(Discovery, UnknownResourceIsNotFoundStatus) {
  Harness h;
  for (const char* path : {"/api/v1/foos", "/api/v1/namespaces/default/foos/x",
                           "/apis/batch/v1/namespaces/default/cronjobs"}) {
    SCOPED_TRACE(path);
    expectStatus(h.get(path), 404, "NotFound", "the server could not find the requested resource",
                 json::object());
  }
}

// Verifies that a path outside the API is Go's plain 404 page, not a Status.
TEST(Discovery, UnknownPathIsPlainNotFound) {
  Harness h;
  for (const char* path : {"/foo", "/apis/example.com/v1/widgets"}) {
    SCOPED_TRACE(path);
    Response r = h.get(path);
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
    EXPECT_EQ(r.body, "404 page not found\n");
  }
}

// Verifies that a method a resource path does not serve is 405 MethodNotAllowed.
TEST(Discovery, MethodNotAllowed) {
  Harness h;
  struct Case {
    const char* method;
    const char* path;
  };
  for (const Case& c : {Case{"PUT", "/api/v1/namespaces/default/configmaps"},
                        Case{"PATCH", "/api/v1/namespaces/default/configmaps"},
                        Case{"POST", "/api/v1/namespaces/default/configmaps/x"},
                        Case{"DELETE", "/api/v1/namespaces"}}) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    expectStatus(h.request(c.method, c.path, "{}"), 405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource", json::object());
  }
}

}  // namespace
}  // namespace hetbench::kubesim::testing
