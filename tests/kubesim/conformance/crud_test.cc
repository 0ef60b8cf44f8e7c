#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

const char* const kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* const kLabelRule =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char* const kDns1035Rule =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

json service(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"ports", {{{"port", 80}}}}}}};
}

json namespaceObject(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

// Verifies that create answers 201 with the server-set metadata, and get returns the same object.
TEST(Crud, CreateSetsServerMetadata) {
  Harness h;
  Response r = h.post(kConfigMaps, configMap("c1", {{"k", "v"}}));
  ASSERT_EQ(r.status, 201) << r.body;
  json created = bodyJson(r);
  EXPECT_EQ(created["kind"], "ConfigMap");
  EXPECT_EQ(created["apiVersion"], "v1");
  const json& meta = created["metadata"];
  EXPECT_EQ(meta["name"], "c1");
  EXPECT_EQ(meta["namespace"], "default");
  EXPECT_EQ(meta["uid"].get<std::string>().size(), 36u);
  EXPECT_TRUE(meta["creationTimestamp"].is_string());
  EXPECT_FALSE(meta["resourceVersion"].get<std::string>().empty());
  EXPECT_FALSE(meta.contains("generation")) << "configmaps have no generation";
  EXPECT_EQ(created["data"], json({{"k", "v"}}));
  Response got = h.get(std::string(kConfigMaps) + "/c1");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(bodyJson(got), created);
}

// Verifies that generateName gets a five-character random suffix.
TEST(Crud, GenerateName) {
  Harness h;
  json cm = configMap("");
  cm["metadata"].erase("name");
  cm["metadata"]["generateName"] = "gen-";
  Response r = h.post(kConfigMaps, cm);
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string name = bodyJson(r)["metadata"]["name"];
  EXPECT_EQ(name.size(), 9u);
  EXPECT_EQ(name.rfind("gen-", 0), 0u);
  EXPECT_EQ(bodyJson(r)["metadata"]["generateName"], "gen-");
}

// Verifies that a second create of the same name is 409 AlreadyExists.
TEST(Crud, AlreadyExists) {
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("dup")).status, 201);
  expectStatus(h.post(kConfigMaps, configMap("dup")), 409, "AlreadyExists",
               "configmaps \"dup\" already exists", {{"name", "dup"}, {"kind", "configmaps"}});
}

// Verifies the NotFound body of core and grouped resources: details.kind is the resource.
TEST(Crud, NotFound) {
  Harness h;
  expectStatus(h.get(std::string(kConfigMaps) + "/x"), 404, "NotFound",
               "configmaps \"x\" not found", {{"name", "x"}, {"kind", "configmaps"}});
  expectStatus(h.get("/apis/batch/v1/namespaces/default/jobs/j"), 404, "NotFound",
               "jobs.batch \"j\" not found", {{"name", "j"}, {"group", "batch"}, {"kind", "jobs"}});
  expectStatus(h.del(std::string(kConfigMaps) + "/x"), 404, "NotFound",
               "configmaps \"x\" not found", {{"name", "x"}, {"kind", "configmaps"}});
}

// Verifies that names are checked per resource: subdomain, label (namespaces), DNS-1035
// (services), each a 422 with one cause.
TEST(Crud, NameValidation) {
  struct Case {
    std::string path;
    json object;
    std::string kind;
    std::string name;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {kConfigMaps, configMap("Bad_Name"), "ConfigMap", "Bad_Name", kSubdomainRule},
      {"/api/v1/namespaces", namespaceObject("a.b"), "Namespace", "a.b", kLabelRule},
      {"/api/v1/namespaces/default/services", service("1abc"), "Service", "1abc", kDns1035Rule},
      {"/api/v1/namespaces/default/services", service("a.b"), "Service", "a.b", kDns1035Rule},
  };
  Harness h;
  ASSERT_EQ(h.post(kConfigMaps, configMap("a.b")).status, 201) << "dots are fine in subdomains";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string message = "Invalid value: \"" + c.name + "\": " + c.rule;
    expectStatus(h.post(c.path, c.object), 422, "Invalid",
                 c.kind + " \"" + c.name + "\" is invalid: metadata.name: " + message,
                 {{"name", c.name},
                  {"kind", c.kind},
                  {"causes", {cause("FieldValueInvalid", message, "metadata.name")}}});
  }
}

// Verifies that an object without name or generateName is 422 Required.
TEST(Crud, NameRequired) {
  Harness h;
  json cm = configMap("");
  cm["metadata"].erase("name");
  expectStatus(h.post(kConfigMaps, cm), 422, "Invalid",
               "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName "
               "is required",
               {{"kind", "ConfigMap"},
                {"causes",
                 {cause("FieldValueRequired", "Required value: name or generateName is required",
                        "metadata.name")}}});
}

// Verifies that invalid label keys and values are 422 with the label rules in the causes.
TEST(Crud, InvalidLabels) {
  Harness h;
  const std::string valueMessage =
      "Invalid value: \"bad value\": a valid label must be an empty string or consist of "
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  expectStatus(h.post(kConfigMaps, configMap("l", nullptr, {{"app", "bad value"}})), 422, "Invalid",
               "ConfigMap \"l\" is invalid: metadata.labels: " + valueMessage,
               {{"name", "l"},
                {"kind", "ConfigMap"},
                {"causes", {cause("FieldValueInvalid", valueMessage, "metadata.labels")}}});
  const std::string keyMessage =
      "Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
      "'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  expectStatus(h.post(kConfigMaps, configMap("l", nullptr, {{"-app", "x"}})), 422, "Invalid",
               "ConfigMap \"l\" is invalid: metadata.labels: " + keyMessage,
               {{"name", "l"},
                {"kind", "ConfigMap"},
                {"causes", {cause("FieldValueInvalid", keyMessage, "metadata.labels")}}});
}

// Verifies that a create naming a resourceVersion is refused by storage with 400.
TEST(Crud, ResourceVersionOnCreate) {
  Harness h;
  json cm = configMap("c");
  cm["metadata"]["resourceVersion"] = "5";
  expectStatus(h.post(kConfigMaps, cm), 400, "BadRequest",
               "resourceVersion can not be set for Create requests");
  EXPECT_EQ(h.get(std::string(kConfigMaps) + "/c").status, 404);
}

// Verifies that a body naming another namespace than the URL is 400 BadRequest.
TEST(Crud, NamespaceMismatch) {
  Harness h;
  json cm = configMap("m");
  cm["metadata"]["namespace"] = "kube-system";
  expectStatus(h.post(kConfigMaps, cm), 400, "BadRequest",
               "the namespace of the provided object does not match the namespace sent on the "
               "request");
}

// Verifies that a body kind other than the URL's resource is 400.
TEST(Crud, KindMismatch) {
  Harness h;
  json cm = configMap("k");
  cm["kind"] = "Secret";
  Response r = h.post(kConfigMaps, cm);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(bodyJson(r)["reason"], "BadRequest");
}

// Verifies that creating into a missing namespace is 404 for the namespace, checked before the
// object is validated (namespace lifecycle admission runs first).
TEST(Crud, NamespaceNotFound) {
  Harness h;
  for (const char* name : {"ok", "Bad_Name"}) {
    SCOPED_TRACE(name);
    expectStatus(h.post("/api/v1/namespaces/nope/configmaps", configMap(name)), 404, "NotFound",
                 "namespaces \"nope\" not found", {{"name", "nope"}, {"kind", "namespaces"}});
  }
}

// Verifies that creating into a terminating namespace is 403 Forbidden with the
// NamespaceTerminating cause.
TEST(Crud, CreateInTerminatingNamespace) {
  Harness h;
  ASSERT_EQ(h.post("/api/v1/namespaces", namespaceObject("doomed")).status, 201);
  ASSERT_EQ(h.post("/api/v1/namespaces/doomed/configmaps", configMap("keep")).status, 201);
  json hold = {{"metadata", {{"finalizers", {"example.com/hold"}}}}};
  ASSERT_EQ(
      h.patch("/api/v1/namespaces/doomed/configmaps/keep", "application/merge-patch+json", hold)
          .status,
      200);
  ASSERT_EQ(h.del("/api/v1/namespaces/doomed").status, 200);
  expectStatus(h.post("/api/v1/namespaces/doomed/configmaps", configMap("late")), 403, "Forbidden",
               "configmaps \"late\" is forbidden: unable to create new content in namespace doomed "
               "because it is being terminated",
               {{"name", "late"},
                {"kind", "configmaps"},
                {"causes",
                 {cause("NamespaceTerminating", "namespace doomed is being terminated",
                        "metadata.namespace")}}});
  json generated = configMap("");
  generated["metadata"] = {{"generateName", "late-"}};
  expectStatus(h.post("/api/v1/namespaces/doomed/configmaps", generated), 403, "Forbidden",
               "configmaps is forbidden: unable to create new content in namespace doomed "
               "because it is being terminated",
               {{"kind", "configmaps"},
                {"causes",
                 {cause("NamespaceTerminating", "namespace doomed is being terminated",
                        "metadata.namespace")}}});
}

// Verifies the API's defaults of a Deployment and a ReplicaSet as a real server stores them
// (SetDefaults_Deployment, SetDefaults_ReplicaSet, and a pod template's SetDefaults_PodSpec and
// SetDefaults_Container, without what only Pods get), applied on update too.
TEST(Crud, AppsDefaults) {
  Harness h;
  const json podTemplate = {{"metadata", {{"labels", {{"app", "web"}}}}},
                            {"spec",
                             {{"nodeSelector", {{"kubesim.test/nowhere", "true"}}},
                              {"containers",
                               {{{"name", "main"},
                                 {"image", "busybox:1.36"},
                                 {"resources", {{"limits", {{"cpu", "1"}}}}}}}}}}};
  const json deployment = {{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", {{"name", "web"}}},
                           {"spec",
                            {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                             {"strategy", json::object()},
                             {"template", podTemplate}}}};
  Response r = h.post("/apis/apps/v1/namespaces/default/deployments", deployment);
  ASSERT_EQ(r.status, 201) << r.body;
  json spec = bodyJson(r)["spec"];
  EXPECT_EQ(spec["replicas"], 1);
  EXPECT_EQ(spec["revisionHistoryLimit"], 10);
  EXPECT_EQ(spec["progressDeadlineSeconds"], 600);
  EXPECT_EQ(spec["strategy"],
            json({{"type", "RollingUpdate"},
                  {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}));
  EXPECT_EQ(spec["template"]["spec"], json({{"nodeSelector", {{"kubesim.test/nowhere", "true"}}},
                                            {"containers",
                                             {{{"name", "main"},
                                               {"image", "busybox:1.36"},
                                               {"imagePullPolicy", "IfNotPresent"},
                                               {"resources", {{"limits", {{"cpu", "1"}}}}},
                                               {"terminationMessagePath", "/dev/termination-log"},
                                               {"terminationMessagePolicy", "File"}}}},
                                            {"restartPolicy", "Always"},
                                            {"terminationGracePeriodSeconds", 30},
                                            {"dnsPolicy", "ClusterFirst"},
                                            {"securityContext", json::object()},
                                            {"schedulerName", "default-scheduler"}}));

  json recreate = bodyJson(h.get("/apis/apps/v1/namespaces/default/deployments/web"));
  // Unconditional: the Deployment controller writes the status meanwhile.
  recreate["metadata"].erase("resourceVersion");
  recreate["spec"]["strategy"] = {{"type", "Recreate"}};
  recreate["spec"].erase("revisionHistoryLimit");
  Response updated = h.put("/apis/apps/v1/namespaces/default/deployments/web", recreate);
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(bodyJson(updated)["spec"]["strategy"], json({{"type", "Recreate"}}));
  EXPECT_EQ(bodyJson(updated)["spec"]["revisionHistoryLimit"], 10);

  const json replicaSet = {
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata", {{"name", "front"}}},
      {"spec", {{"selector", {{"matchLabels", {{"app", "web"}}}}}, {"template", podTemplate}}}};
  Response rs = h.post("/apis/apps/v1/namespaces/default/replicasets", replicaSet);
  ASSERT_EQ(rs.status, 201) << rs.body;
  EXPECT_EQ(bodyJson(rs)["spec"]["replicas"], 1);
  EXPECT_EQ(bodyJson(rs)["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
