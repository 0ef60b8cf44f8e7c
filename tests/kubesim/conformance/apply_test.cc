#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kApply = "application/apply-patch+yaml";
constexpr const char* kMerge = "application/merge-patch+json";
constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kConfigMap = "/api/v1/namespaces/default/configmaps/c";
constexpr const char* kDeployment = "/apis/apps/v1/namespaces/default/deployments/d";
constexpr const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr const char* kGadget = "/apis/example.com/v1/namespaces/default/gadgets/g";

const char* kDeploymentYaml = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  labels: {app: d}
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      nodeSelector: {example.com/pool: none}
      containers:
      - name: c
        image: busybox
        command: [sleep, "60"]
)";

Response applyAs(Harness& h, const std::string& target, const std::string& manager,
                 const std::string& body, const std::string& extra = "") {
  return h.request("PATCH", target + "?fieldManager=" + manager + extra, body, kApply);
}

json entryOf(const json& object, const std::string& manager) {
  for (const json& e : object["metadata"].value("managedFields", json::array())) {
    if (e["manager"] == manager) return e;
  }
  return nullptr;
}

// Verifies that an apply creates the object (201) with an Apply entry in managedFields, and
// that the same apply again is a 200 that changes nothing, not even the resourceVersion.
TEST(Apply, CreatesAndReappliesWithoutChange) {
  Harness h;
  Response r = applyAs(h, kDeployment, "tool", kDeploymentYaml);
  ASSERT_EQ(r.status, 201) << r.body;
  json created = bodyJson(r);
  EXPECT_EQ(created["spec"]["replicas"], 2);
  json entry = entryOf(created, "tool");
  ASSERT_TRUE(entry.is_object()) << created.dump();
  EXPECT_EQ(entry["operation"], "Apply");
  EXPECT_EQ(entry["apiVersion"], "apps/v1");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  EXPECT_TRUE(entry["time"].is_string());
  EXPECT_EQ(entry["fieldsV1"]["f:spec"]["f:replicas"], json::object());
  EXPECT_EQ(entry["fieldsV1"]["f:spec"]["f:selector"], json::object()) << "LabelSelector is atomic";
  EXPECT_EQ(entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
                 ["k:{\"name\":\"c\"}"]["."],
            json::object());
  EXPECT_FALSE(entry["fieldsV1"]["f:metadata"].contains("f:name"));
  EXPECT_EQ(bodyJson(h.get(kDeployment))["metadata"]["managedFields"],
            created["metadata"]["managedFields"]);

  ASSERT_EQ(applyAs(h, kDeployment, "tool", kDeploymentYaml).status, 200);

  // A ConfigMap, which no controller writes, shows that the same apply changes nothing.
  const std::string cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n";
  Response first = applyAs(h, kConfigMap, "tool", cm);
  ASSERT_EQ(first.status, 201) << first.body;
  Response again = applyAs(h, kConfigMap, "tool", cm);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(bodyJson(again), bodyJson(first));
}

// Verifies the PatchOptions rules: apply needs fieldManager, force belongs to apply only, and
// the configuration must be of the request's version and name.
TEST(Apply, OptionsAndBodyAreChecked) {
  Harness h;
  expectStatus(h.request("PATCH", kDeployment, kDeploymentYaml, kApply), 422, "Invalid",
               "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is "
               "required for apply patch",
               {{"group", "meta.k8s.io"},
                {"kind", "PatchOptions"},
                {"causes",
                 {cause("FieldValueRequired", "Required value: is required for apply patch",
                        "fieldManager")}}});
  ASSERT_EQ(h.post(kConfigMaps, configMap("c", {{"a", "1"}})).status, 201);
  expectStatus(
      h.request("PATCH", std::string(kConfigMap) + "?force=true", R"({"data":{}})", kMerge), 422,
      "Invalid",
      "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be "
      "specified for non-apply patch",
      {{"group", "meta.k8s.io"},
       {"kind", "PatchOptions"},
       {"causes",
        {cause("FieldValueForbidden", "Forbidden: may not be specified for non-apply patch",
               "force")}}});
  expectStatus(applyAs(h, kConfigMap, "tool", "apiVersion: v2\nkind: ConfigMap\n"), 400,
               "BadRequest",
               "Incorrect version specified in apply patch. Specified patch version: v2, "
               "expected: v1");
  expectStatus(
      applyAs(h, kConfigMap, "tool", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n"),
      400, "BadRequest", "the name of the object (other) does not match the name on the URL (c)");
}

// Verifies the 409 of an apply that changes a field another manager updated, its causes, and
// that force takes the field.
TEST(Apply, ConflictWithUpdaterAndForce) {
  Harness h;
  ASSERT_EQ(applyAs(h, kDeployment, "tool", kDeploymentYaml).status, 201);
  Response scaled = h.request("PATCH", std::string(kDeployment) + "?fieldManager=scaler",
                              R"({"spec":{"replicas":5}})", kMerge);
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  json scaler = entryOf(bodyJson(scaled), "scaler");
  ASSERT_TRUE(scaler.is_object()) << scaled.body;
  EXPECT_EQ(scaler["operation"], "Update");
  EXPECT_EQ(scaler["fieldsV1"], json::parse(R"({"f:spec":{"f:replicas":{}}})"));
  EXPECT_FALSE(entryOf(bodyJson(scaled), "tool")["fieldsV1"]["f:spec"].contains("f:replicas"));

  std::string three = kDeploymentYaml;
  three.replace(three.find("replicas: 2"), 11, "replicas: 3");
  expectStatus(applyAs(h, kDeployment, "tool", three), 409, "Conflict",
               "Apply failed with 1 conflict: conflict with \"scaler\" using apps/v1: "
               ".spec.replicas",
               {{"causes",
                 {{{"reason", "FieldManagerConflict"},
                   {"message", "conflict with \"scaler\" using apps/v1"},
                   {"field", ".spec.replicas"}}}}});
  EXPECT_EQ(bodyJson(h.get(kDeployment))["spec"]["replicas"], 5);

  Response forced = applyAs(h, kDeployment, "tool", three, "&force=true");
  ASSERT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(bodyJson(forced)["spec"]["replicas"], 3);
  EXPECT_TRUE(entryOf(bodyJson(forced), "scaler").is_null()) << "the scaler lost its only field";
  EXPECT_EQ(entryOf(bodyJson(forced), "tool")["fieldsV1"]["f:spec"]["f:replicas"], json::object());
}

// Verifies that what a manager applied before and omits now is removed, except what another
// manager also owns.
TEST(Apply, RemovesFieldsNoLongerApplied) {
  Harness h;
  const std::string both =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
      "data: {a: '1', b: '2', shared: s}\n";
  ASSERT_EQ(applyAs(h, kConfigMap, "tool", both).status, 201);
  ASSERT_EQ(applyAs(h, kConfigMap, "other",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {shared: s}\n")
                .status,
            200);
  Response r = applyAs(h, kConfigMap, "tool",
                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["data"], json({{"a", "1"}, {"shared", "s"}}));
}

// Verifies that creates, updates and patches record Update entries under their fieldManager, or
// the User-Agent's first part, and that a list of one empty entry clears managedFields.
TEST(Apply, UpdatesRecordManagedFields) {
  Harness h;
  json cm = configMap("c", {{"a", "1"}});
  Response created = h.request("POST", kConfigMaps, cm.dump(), "application/json",
                               "User-Agent: kubectl/v1.32.0 (linux/amd64) kubernetes/abc\r\n");
  ASSERT_EQ(created.status, 201) << created.body;
  json entry = entryOf(bodyJson(created), "kubectl");
  ASSERT_TRUE(entry.is_object()) << created.body;
  EXPECT_EQ(entry["operation"], "Update");
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["fieldsV1"], json::parse(R"({"f:data":{".":{},"f:a":{}}})"));

  json current = bodyJson(created);
  current["data"]["a"] = "2";
  current["metadata"].erase("managedFields");
  Response updated = h.request("PUT", std::string(kConfigMap) + "?fieldManager=editor",
                               current.dump(), "application/json");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(entryOf(bodyJson(updated), "editor")["fieldsV1"],
            json::parse(R"({"f:data":{"f:a":{}}})"));
  EXPECT_EQ(entryOf(bodyJson(updated), "kubectl")["fieldsV1"], json::parse(R"({"f:data":{}})"))
      << "a PUT without managedFields keeps them, and the editor took data.a";

  Response cleared =
      h.patch(kConfigMap, kMerge, {{"metadata", {{"managedFields", {json::object()}}}}});
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_FALSE(bodyJson(cleared)["metadata"].contains("managedFields"));
}

// Verifies that a dry-run apply answers the object it would create and stores nothing.
TEST(Apply, DryRunStoresNothing) {
  Harness h;
  Response r = applyAs(h, kConfigMap, "tool",
                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n",
                       "&dryRun=All");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(bodyJson(r)["data"]["a"], "1");
  EXPECT_EQ(h.get(kConfigMap).status, 404);
}

// Verifies apply of a custom resource: lists merge by the CRD's x-kubernetes-list-type, and an
// atomic list (the default) is replaced and owned whole.
TEST(Apply, CustomResourceListTypes) {
  Harness h;
  json schema = json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{
        "ports":{"type":"array","x-kubernetes-list-type":"map",
                 "x-kubernetes-list-map-keys":["name"],
                 "items":{"type":"object","required":["name"],"properties":{
                   "name":{"type":"string"},"port":{"type":"integer"}}}},
        "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
        "args":{"type":"array","items":{"type":"string"}}}}}})");
  json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "gadgets.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"scope", "Namespaced"},
                {"names", {{"plural", "gadgets"}, {"singular", "gadget"}, {"kind", "Gadget"}}},
                {"versions",
                 {{{"name", "v1"},
                   {"served", true},
                   {"storage", true},
                   {"schema", {{"openAPIV3Schema", schema}}}}}}}}};
  ASSERT_EQ(h.post(kCrds, crd).status, 201);
  ASSERT_TRUE(Harness::eventually([&] {
    return applyAs(h, kGadget, "a",
                   "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n"
                   "  ports: [{name: http, port: 80}]\n  tags: [x]\n  args: [one]\n")
               .status == 201;
  }));
  Response r = applyAs(h, kGadget, "b",
                       "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec:\n"
                       "  ports: [{name: https, port: 443}]\n  tags: [y]\n");
  ASSERT_EQ(r.status, 200) << r.body;
  json spec = bodyJson(r)["spec"];
  EXPECT_EQ(spec["ports"],
            json::parse(R"([{"name":"http","port":80},{"name":"https","port":443}])"));
  EXPECT_EQ(spec["tags"], json::parse(R"(["x","y"])"));
  EXPECT_EQ(entryOf(bodyJson(r), "a")["fieldsV1"]["f:spec"]["f:ports"],
            json::parse(R"({"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}})"));

  expectStatus(applyAs(h, kGadget, "b",
                       "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n"
                       "spec: {args: [two]}\n"),
               409, "Conflict", "Apply failed with 1 conflict: conflict with \"a\": .spec.args",
               {{"causes",
                 {{{"reason", "FieldManagerConflict"},
                   {"message", "conflict with \"a\""},
                   {"field", ".spec.args"}}}}});
}

}  // namespace
}  // namespace hetbench::kubesim::testing
