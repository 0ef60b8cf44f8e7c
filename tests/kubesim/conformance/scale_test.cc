#include "server/scale.h"

#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "hetbench/common/json_fields.h"
#include "protobuf/codec.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";
constexpr const char* kWebScale = "/apis/apps/v1/namespaces/default/deployments/web/scale";
constexpr const char* kWeb = "/apis/apps/v1/namespaces/default/deployments/web";
constexpr const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr const char* kWidgets = "/apis/example.com/v1/namespaces/default/widgets";
constexpr const char* kMerge = "application/merge-patch+json";
constexpr const char* kJsonPatch = "application/json-patch+json";
constexpr const char* kStrategic = "application/strategic-merge-patch+json";
constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";
constexpr const char* kModified =
    "the object has been modified; please apply your changes to the latest version and try again";

// Pods that fit no node: the controllers create and count them, and no process runs.
json unschedulableTemplate(const json& labels) {
  return {{"metadata", {{"labels", labels}}},
          {"spec",
           {{"nodeSelector", {{"kubesim.test/nowhere", "true"}}},
            {"containers", {{{"name", "main"}, {"image", "busybox"}, {"command", {"true"}}}}}}}};
}

json deployment(const std::string& name, int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"replicas", replicas},
            {"selector",
             {{"matchLabels", {{"app", name}}},
              {"matchExpressions",
               {{{"key", "tier"}, {"operator", "In"}, {"values", {"front", "edge"}}}}}}},
            {"template", unschedulableTemplate({{"app", name}, {"tier", "front"}})}}}};
}

json scaleBody(const std::string& name, int replicas, const std::string& resourceVersion = "") {
  json scale = {{"apiVersion", "autoscaling/v1"},
                {"kind", "Scale"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"replicas", replicas}}}};
  if (!resourceVersion.empty()) scale["metadata"]["resourceVersion"] = resourceVersion;
  return scale;
}

std::int64_t replicaSetReplicas(Harness& h, const std::string& app) {
  json list =
      bodyJson(h.get("/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3D" + app));
  std::int64_t total = 0;
  for (const json& rs : list["items"]) total += rs["spec"].value("replicas", 0);
  return total;
}

// The Widget CRD with a scale subresource; `labelSelectorPath` may be empty.
json scalableWidgetCrd(const std::string& labelSelectorPath) {
  json scale = {{"specReplicasPath", ".spec.replicas"}, {"statusReplicasPath", ".status.replicas"}};
  if (!labelSelectorPath.empty()) scale["labelSelectorPath"] = labelSelectorPath;
  json schema = {
      {"type", "object"},
      {"properties",
       {{"spec",
         {{"type", "object"},
          {"properties", {{"replicas", {{"type", "integer"}, {"maximum", 10}}}}}}},
        {"status",
         {{"type", "object"},
          {"properties",
           {{"replicas", {{"type", "integer"}}}, {"selector", {{"type", "string"}}}}}}}}}};
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "widgets.example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", "Namespaced"},
            {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"subresources", {{"status", json::object()}, {"scale", scale}}},
               {"schema", {{"openAPIV3Schema", schema}}}}}}}}};
}

void establishScalableWidgets(Harness& h) {
  Response r = h.post(kCrds, scalableWidgetCrd(".status.selector"));
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_TRUE(Harness::eventually([&] { return h.get(kWidgets).status == 200; }));
}

json widget(const std::string& name, const json& spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

json findResource(const json& list, const std::string& name) {
  for (const json& r : list["resources"]) {
    if (r["name"] == name) return r;
  }
  return nullptr;
}

struct ConversionCase {
  const char* name;
  json object;
  json spec;
  json status;
};

// Verifies the Scale of Deployments as ScaleREST writes it: the parent's identity, the API's
// default of one replica, and the selector in the form of labels.Selector's String().
TEST(Scale, DeploymentConversion) {
  ResourceType deployments;
  deployments.group = "apps";
  deployments.version = "v1";
  deployments.resource = "deployments";
  deployments.kind = "Deployment";
  const json meta = {{"name", "web"},
                     {"namespace", "default"},
                     {"uid", "u1"},
                     {"resourceVersion", "7"},
                     {"creationTimestamp", "2026-11-22T07:16:00Z"},
                     {"generation", 3},
                     {"labels", {{"app", "web"}}},
                     {"annotations", {{"note", "x"}}}};
  const std::vector<ConversionCase> cases = {
      {"replicas and selector",
       {{"metadata", meta},
        {"spec",
         {{"replicas", 3},
          {"selector",
           {{"matchLabels", {{"app", "web"}, {"a", "b"}}},
            {"matchExpressions",
             {{{"key", "tier"}, {"operator", "NotIn"}, {"values", {"z", "b"}}},
              {{"key", "canary"}, {"operator", "DoesNotExist"}},
              {{"key", "zone"}, {"operator", "Exists"}}}}}}}},
        {"status", {{"replicas", 2}, {"readyReplicas", 1}}}},
       {{"replicas", 3}},
       {{"replicas", 2}, {"selector", "a=b,app=web,!canary,tier notin (b,z),zone"}}},
      {"replicas defaulted, no status",
       {{"metadata", meta}, {"spec", {{"selector", {{"matchLabels", {{"app", "web"}}}}}}}},
       {{"replicas", 1}},
       {{"replicas", 0}, {"selector", "app=web"}}},
      {"zero replicas are omitted, an empty selector too",
       {{"metadata", meta}, {"spec", {{"replicas", 0}, {"selector", json::object()}}}},
       json::object(),
       {{"replicas", 0}}},
  };
  for (const ConversionCase& c : cases) {
    SCOPED_TRACE(c.name);
    ApiResult<json> scale = scaleOf(deployments, c.object);
    ASSERT_TRUE(scale.isOk()) << scale.error().message;
    EXPECT_EQ(*scale, json({{"kind", "Scale"},
                            {"apiVersion", "autoscaling/v1"},
                            {"metadata",
                             {{"name", "web"},
                              {"namespace", "default"},
                              {"uid", "u1"},
                              {"resourceVersion", "7"},
                              {"creationTimestamp", "2026-11-22T07:16:00Z"}}},
                            {"spec", c.spec},
                            {"status", c.status}}));
  }
}

// Verifies the Scale of a custom resource read through the CRD's paths, and the accessor errors
// the API server reports for fields of the wrong type.
TEST(Scale, CustomResourceConversion) {
  ResourceType widgets;
  widgets.group = "example.com";
  widgets.version = "v1";
  widgets.resource = "widgets";
  widgets.kind = "Widget";
  widgets.crdName = "widgets.example.com";
  auto version = std::make_shared<CustomResourceVersion>();
  version->scale = CustomResourceScale{".spec.size.replicas", ".status.count", ".status.selector"};
  widgets.custom = version;
  const json meta = {{"name", "w"}, {"resourceVersion", "4"}};

  ApiResult<json> scale = scaleOf(widgets, {{"metadata", meta},
                                            {"spec", {{"size", {{"replicas", 2}}}}},
                                            {"status", {{"count", 1}, {"selector", "app=w"}}}});
  ASSERT_TRUE(scale.isOk()) << scale.error().message;
  EXPECT_EQ((*scale)["spec"], json({{"replicas", 2}}));
  EXPECT_EQ((*scale)["status"], json({{"replicas", 1}, {"selector", "app=w"}}));

  ApiResult<json> missing = scaleOf(widgets, {{"metadata", meta}, {"spec", json::object()}});
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.error().code, 500);
  EXPECT_EQ(missing.error().message,
            "Internal error occurred: the spec replicas field \".spec.size.replicas\" does not "
            "exist");
  ApiResult<json> forUpdate =
      scaleForUpdate(widgets, {{"metadata", meta}, {"spec", json::object()}});
  ASSERT_TRUE(forUpdate.isOk());
  std::optional<ApiError> unset = validateScale(widgets, "w", *forUpdate);
  ASSERT_TRUE(unset.has_value());
  EXPECT_EQ(unset->code, 400);
  EXPECT_EQ(unset->message, "the spec replicas field \".spec.size.replicas\" cannot be empty");

  ApiResult<json> wrongType =
      scaleOf(widgets, {{"metadata", meta}, {"spec", {{"size", {{"replicas", "two"}}}}}});
  ASSERT_FALSE(wrongType.isOk());
  EXPECT_EQ(wrongType.error().message,
            "Internal error occurred: .spec.size.replicas accessor error: two is of the type "
            "string, expected int64");
  ApiResult<json> notAnObject = scaleOf(widgets, {{"metadata", meta}, {"spec", {{"size", 3}}}});
  ASSERT_FALSE(notAnObject.isOk());
  EXPECT_EQ(notAnObject.error().message,
            "Internal error occurred: .spec.size.replicas accessor error: 3 is of the type "
            "int64, expected map[string]interface{}");

  json object = {{"metadata", meta}};
  ASSERT_FALSE(setReplicasFromScale(widgets, {{"spec", {{"replicas", 4}}}}, object));
  EXPECT_EQ(object["spec"], json({{"size", {{"replicas", 4}}}}));
  json blocked = {{"metadata", meta}, {"spec", "text"}};
  std::optional<ApiError> cannotSet =
      setReplicasFromScale(widgets, {{"spec", {{"replicas", 4}}}}, blocked);
  ASSERT_TRUE(cannotSet.has_value());
  EXPECT_EQ(cannotSet->message,
            "Internal error occurred: value cannot be set because .spec is not a "
            "map[string]interface{}");
}

// Verifies that GET of deployments/scale answers the Deployment's Scale, and that discovery
// lists the subresource with the autoscaling/v1 kind.
TEST(Scale, GetDeploymentScale) {
  Harness h;
  ASSERT_EQ(h.post(kDeployments, deployment("web", 2)).status, 201);
  json web;
  ASSERT_TRUE(Harness::eventually([&] {
    web = bodyJson(h.get(kWeb));
    return common::intMember(common::member(web, "status"), "replicas") == 2;
  })) << web;
  json scale;
  ASSERT_TRUE(Harness::eventually([&] {
    web = bodyJson(h.get(kWeb));
    Response r = h.get(kWebScale);
    scale = bodyJson(r);
    return r.status == 200 &&
           scale["metadata"]["resourceVersion"] == web["metadata"]["resourceVersion"];
  })) << scale;
  EXPECT_EQ(scale,
            json({{"kind", "Scale"},
                  {"apiVersion", "autoscaling/v1"},
                  {"metadata",
                   {{"name", "web"},
                    {"namespace", "default"},
                    {"uid", web["metadata"]["uid"]},
                    {"resourceVersion", web["metadata"]["resourceVersion"]},
                    {"creationTimestamp", web["metadata"]["creationTimestamp"]}}},
                  {"spec", {{"replicas", 2}}},
                  {"status", {{"replicas", 2}, {"selector", "app=web,tier in (edge,front)"}}}}));

  json apps = bodyJson(h.get("/apis/apps/v1"));
  for (const char* name : {"deployments/scale", "replicasets/scale"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(findResource(apps, name), json({{"name", name},
                                              {"singularName", ""},
                                              {"namespaced", true},
                                              {"group", "autoscaling"},
                                              {"version", "v1"},
                                              {"kind", "Scale"},
                                              {"verbs", {"get", "patch", "update"}}}));
  }
  expectStatus(h.get("/apis/apps/v1/namespaces/default/deployments/none/scale"), 404, "NotFound",
               "deployments.apps \"none\" not found",
               {{"name", "none"}, {"group", "apps"}, {"kind", "deployments"}});
  expectStatus(h.del(kWebScale), 405, "MethodNotAllowed",
               "the server does not allow this method on the requested resource", json::object());
}

// Verifies that a PUT of the Scale sets the Deployment's replicas (a new generation) and that the
// Deployment controller acts on it; the answer is the new Scale.
TEST(Scale, PutScalesTheDeployment) {
  Harness h;
  json created = bodyJson(h.post(kDeployments, deployment("web", 1)));
  Response r = h.put(kWebScale, scaleBody("web", 3));
  ASSERT_EQ(r.status, 200) << r.body;
  json scale = bodyJson(r);
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["spec"]["replicas"], 3);
  json web = bodyJson(h.get(kWeb));
  EXPECT_EQ(web["spec"]["replicas"], 3);
  EXPECT_EQ(web["metadata"]["generation"], created["metadata"]["generation"].get<int>() + 1);
  EXPECT_NE(scale["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_TRUE(Harness::eventually([&] { return replicaSetReplicas(h, "web") == 3; }));
  EXPECT_TRUE(
      Harness::eventually([&] { return bodyJson(h.get(kWebScale))["status"]["replicas"] == 3; }));
}

// Verifies the conflicts of a Scale write as on a real server: a stale resourceVersion or another
// uid is 409 naming the Deployment; negative replicas are 422 naming Scale.autoscaling; the wrong
// name is 400.
TEST(Scale, RefusedUpdates) {
  Harness h;
  json created = bodyJson(h.post(kDeployments, deployment("web", 1)));
  // Unconditional: the Deployment controller may have written the status meanwhile.
  ASSERT_EQ(h.put(kWebScale, scaleBody("web", 2)).status, 200);
  const std::string stale = created["metadata"]["resourceVersion"];
  expectStatus(
      h.put(kWebScale, scaleBody("web", 4, stale)), 409, "Conflict",
      std::string("Operation cannot be fulfilled on deployments.apps \"web\": ") + kModified,
      {{"name", "web"}, {"group", "apps"}, {"kind", "deployments"}});
  json otherUid = scaleBody("web", 4);
  otherUid["metadata"]["uid"] = "not-the-uid";
  expectStatus(h.put(kWebScale, otherUid), 409, "Conflict",
               "Operation cannot be fulfilled on deployments.apps \"web\": Precondition failed: "
               "UID in precondition: not-the-uid, UID in object meta: " +
                   created["metadata"]["uid"].get<std::string>(),
               {{"name", "web"}, {"group", "apps"}, {"kind", "deployments"}});
  expectStatus(
      h.put(kWebScale, scaleBody("web", -1)), 422, "Invalid",
      "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater "
      "than or equal to 0",
      {{"name", "web"},
       {"group", "autoscaling"},
       {"kind", "Scale"},
       {"causes",
        {cause("FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0",
               "spec.replicas")}}});
  json text = scaleBody("web", 1);
  text["spec"]["replicas"] = "3";
  expectStatus(h.put(kWebScale, text), 400, "BadRequest",
               "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal "
               "string into Go struct field ScaleSpec.spec.replicas of type int32");
  expectStatus(h.put(kWebScale, scaleBody("other", 1)), 400, "BadRequest",
               "the name of the object (other) does not match the name on the URL (web)");
  EXPECT_EQ(bodyJson(h.get(kWeb))["spec"]["replicas"], 2);
}

struct PatchCase {
  const char* contentType;
  json patch;
  int replicas;
};

// Verifies each patch type of the Scale, applied to the Scale as kube-apiserver applies it.
TEST(Scale, PatchEachType) {
  Harness h;
  ASSERT_EQ(h.post(kDeployments, deployment("web", 1)).status, 201);
  const std::vector<PatchCase> cases = {
      {kMerge, {{"spec", {{"replicas", 4}}}}, 4},
      {kJsonPatch, json::array({{{"op", "replace"}, {"path", "/spec/replicas"}, {"value", 2}}}), 2},
      {kStrategic, {{"spec", {{"replicas", 5}}}}, 5},
      {kMerge, {{"spec", {{"replicas", nullptr}}}}, 0},
  };
  for (const PatchCase& c : cases) {
    SCOPED_TRACE(c.contentType);
    Response r = h.patch(kWebScale, c.contentType, c.patch);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(bodyJson(r)["spec"].value("replicas", 0), c.replicas);
    EXPECT_EQ(bodyJson(h.get(kWeb))["spec"]["replicas"], c.replicas);
  }
  expectStatus(
      h.patch(kWebScale, kMerge,
              {{"metadata", {{"resourceVersion", "1"}}}, {"spec", {{"replicas", 1}}}}),
      409, "Conflict",
      std::string("Operation cannot be fulfilled on deployments.apps \"web\": ") + kModified,
      {{"name", "web"}, {"group", "apps"}, {"kind", "deployments"}});
  // A patch naming the current resourceVersion applies (retried as a client retries a conflict
  // with the Deployment controller's status writes).
  EXPECT_TRUE(Harness::eventually([&] {
    const json rv = bodyJson(h.get(kWebScale))["metadata"]["resourceVersion"];
    return h.patch(kWebScale, kMerge,
                   {{"metadata", {{"resourceVersion", rv}}}, {"spec", {{"replicas", 1}}}})
               .status == 200;
  }));
  EXPECT_EQ(bodyJson(h.get(kWeb))["spec"]["replicas"], 1);
}

// Verifies that a dry run of a Scale write answers the would-be Scale and changes nothing.
TEST(Scale, DryRun) {
  Harness h;
  json created = bodyJson(h.post(kDeployments, deployment("web", 1)));
  Response put = h.put(std::string(kWebScale) + "?dryRun=All", scaleBody("web", 7));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(bodyJson(put)["spec"]["replicas"], 7);
  Response patched =
      h.patch(std::string(kWebScale) + "?dryRun=All", kMerge, {{"spec", {{"replicas", 6}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(bodyJson(patched)["spec"]["replicas"], 6);
  json web = bodyJson(h.get(kWeb));
  EXPECT_EQ(web["spec"]["replicas"], 1);
  EXPECT_EQ(web["metadata"]["generation"], created["metadata"]["generation"]);
}

// Verifies the scale subresource of a ReplicaSet, which its controller then acts on.
TEST(Scale, ReplicaSet) {
  Harness h;
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", "front"}}},
             {"spec",
              {{"replicas", 1},
               {"selector", {{"matchLabels", {{"app", "front"}}}}},
               {"template", unschedulableTemplate({{"app", "front"}})}}}};
  ASSERT_EQ(h.post("/apis/apps/v1/namespaces/default/replicasets", rs).status, 201);
  const std::string scale = "/apis/apps/v1/namespaces/default/replicasets/front/scale";
  Response r = h.patch(scale, kMerge, {{"spec", {{"replicas", 3}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(bodyJson(r)["status"]["selector"], "app=front");
  EXPECT_TRUE(Harness::eventually([&] {
    json pods = bodyJson(h.get("/api/v1/namespaces/default/pods?labelSelector=app%3Dfront"));
    return pods["items"].size() == 3 && bodyJson(h.get(scale))["status"]["replicas"] == 3;
  }));
}

// Verifies the Scale in protobuf, as client-go's scale client may speak it: answered when Accept
// ranks it first, and read as a PUT body.
TEST(Scale, Protobuf) {
  Harness h;
  ASSERT_EQ(h.post(kDeployments, deployment("web", 1)).status, 201);
  Response got = h.request("GET", kWebScale, "", "",
                           "Accept: application/vnd.kubernetes.protobuf,application/json\r\n");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.header("content-type"), kProtobuf);
  common::Result<json> scale = protobuf::decodeObject(got.body);
  ASSERT_TRUE(scale.isOk()) << scale.status().message();
  const json inJson = bodyJson(h.get(kWebScale));
  EXPECT_EQ((*scale)["kind"], "Scale");
  EXPECT_EQ((*scale)["metadata"]["uid"], inJson["metadata"]["uid"]);
  EXPECT_EQ((*scale)["spec"], inJson["spec"]);
  EXPECT_EQ((*scale)["status"]["selector"], inJson["status"]["selector"]);

  // Unconditional: the Deployment controller writes the status meanwhile.
  (*scale)["metadata"].erase("resourceVersion");
  (*scale)["spec"]["replicas"] = 0;
  common::Result<std::string> encoded = protobuf::encodeObject(*scale);
  ASSERT_TRUE(encoded.isOk()) << encoded.status().message();
  Response put = h.request("PUT", kWebScale, *encoded, kProtobuf);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(bodyJson(put)["spec"], json::object()) << "Go omits a zero ScaleSpec.replicas";
  EXPECT_EQ(bodyJson(h.get(kWeb))["spec"]["replicas"], 0);
}

// Verifies the Table of a Scale: kube-apiserver's Scale printer (Name, Desired, Available, Age).
TEST(Scale, Table) {
  Harness h;
  ASSERT_EQ(h.post(kDeployments, deployment("web", 2)).status, 201);
  Response r = h.request("GET", kWebScale, "", "",
                         "Accept: application/json;as=Table;v=v1;g=meta.k8s.io\r\n");
  ASSERT_EQ(r.status, 200) << r.body;
  json table = bodyJson(r);
  ASSERT_EQ(table["columnDefinitions"].size(), 4u) << table;
  EXPECT_EQ(table["columnDefinitions"][0]["name"], "Name");
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "");
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Desired");
  EXPECT_EQ(table["columnDefinitions"][1]["type"], "integer");
  EXPECT_EQ(table["columnDefinitions"][2]["name"], "Available");
  EXPECT_EQ(table["columnDefinitions"][3]["name"], "Age");
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["rows"][0]["cells"][0], "web");
  EXPECT_EQ(table["rows"][0]["cells"][1], 2);
}

// Verifies the scale subresource of a custom resource: the CRD's paths, writes through the
// resource's own validation (schema and the scale fields), and the errors of a missing field.
TEST(Scale, CustomResource) {
  Harness h;
  establishScalableWidgets(h);
  EXPECT_EQ(findResource(bodyJson(h.get("/apis/example.com/v1")), "widgets/scale")["kind"],
            "Scale");
  ASSERT_EQ(h.post(kWidgets, widget("w", {{"replicas", 2}})).status, 201);
  json status = bodyJson(h.get(std::string(kWidgets) + "/w"));
  status["status"] = {{"replicas", 1}, {"selector", "app=w"}};
  ASSERT_EQ(h.put(std::string(kWidgets) + "/w/status", status).status, 200);

  const std::string scale = std::string(kWidgets) + "/w/scale";
  json got = bodyJson(h.get(scale));
  EXPECT_EQ(got["kind"], "Scale");
  EXPECT_EQ(got["spec"], json({{"replicas", 2}}));
  EXPECT_EQ(got["status"], json({{"replicas", 1}, {"selector", "app=w"}}));

  Response patched = h.patch(scale, kStrategic, {{"spec", {{"replicas", 5}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(bodyJson(h.get(std::string(kWidgets) + "/w"))["spec"]["replicas"], 5);
  expectStatus(h.patch(scale, kMerge, {{"spec", {{"replicas", 11}}}}), 422, "Invalid",
               "Widget.example.com \"w\" is invalid: spec.replicas: Invalid value: 11: "
               "spec.replicas in body should be less than or equal to 10",
               {{"name", "w"},
                {"group", "example.com"},
                {"kind", "Widget"},
                {"causes",
                 {cause("FieldValueInvalid",
                        "Invalid value: 11: spec.replicas in body should be less than or equal "
                        "to 10",
                        "spec.replicas")}}});
  expectStatus(h.put(scale, scaleBody("w", -1)), 422, "Invalid",
               "Widget.example.com \"w\" is invalid: .spec.replicas: Invalid value: -1: should "
               "be a non-negative integer",
               {{"name", "w"},
                {"group", "example.com"},
                {"kind", "Widget"},
                {"causes",
                 {cause("FieldValueInvalid", "Invalid value: -1: should be a non-negative integer",
                        ".spec.replicas")}}});

  ASSERT_EQ(h.post(kWidgets, widget("empty", json::object())).status, 201);
  const std::string emptyScale = std::string(kWidgets) + "/empty/scale";
  expectStatus(
      h.get(emptyScale), 500, "InternalError",
      "Internal error occurred: the spec replicas field \".spec.replicas\" does not exist",
      {{"causes", {{{"message", "the spec replicas field \".spec.replicas\" does not exist"}}}}});
  expectStatus(h.patch(emptyScale, kMerge, {{"metadata", {{"labels", {{"a", "b"}}}}}}), 400,
               "BadRequest", "the spec replicas field \".spec.replicas\" cannot be empty");
  Response set = h.patch(emptyScale, kMerge, {{"spec", {{"replicas", 1}}}});
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(bodyJson(h.get(std::string(kWidgets) + "/empty"))["spec"]["replicas"], 1);
}

// Verifies the CRD validation of subresources.scale paths.
TEST(Scale, CrdScalePathsValidated) {
  Harness h;
  json crd = scalableWidgetCrd(".metadata.labels");
  crd["spec"]["versions"][0]["subresources"]["scale"]["specReplicasPath"] = ".status.replicas";
  crd["spec"]["versions"][0]["subresources"]["scale"].erase("statusReplicasPath");
  Response r = h.post(kCrds, crd);
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(bodyJson(r)["details"]["causes"],
            json({cause("FieldValueInvalid",
                        "Invalid value: \".status.replicas\": should be a json path under .spec",
                        "spec.versions[0].subresources.scale.specReplicasPath"),
                  cause("FieldValueRequired", "Required value",
                        "spec.versions[0].subresources.scale.statusReplicasPath"),
                  cause("FieldValueInvalid",
                        "Invalid value: \".metadata.labels\": should be a json path under either "
                        ".spec or .status",
                        "spec.versions[0].subresources.scale.labelSelectorPath")}));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
