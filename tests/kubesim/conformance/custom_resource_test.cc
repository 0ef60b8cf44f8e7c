#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
constexpr const char* kWidgets = "/apis/example.com/v1/namespaces/default/widgets";
constexpr const char* kMerge = "application/merge-patch+json";

json widgetCrd() {
  json schema = {
      {"type", "object"},
      {"properties",
       {{"spec",
         {{"type", "object"},
          {"required", {"size"}},
          {"properties",
           {{"size", {{"type", "string"}, {"enum", {"small", "large"}}}},
            {"replicas", {{"type", "integer"}, {"minimum", 0}, {"default", 1}}}}}}},
        {"status", {{"type", "object"}, {"properties", {{"ready", {{"type", "boolean"}}}}}}}}}};
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
               {"subresources", {{"status", json::object()}}},
               {"additionalPrinterColumns",
                {{{"name", "Size"}, {"type", "string"}, {"jsonPath", ".spec.size"}},
                 {{"name", "Replicas"}, {"type", "integer"}, {"jsonPath", ".spec.replicas"}}}},
               {"schema", {{"openAPIV3Schema", schema}}}}}}}}};
}

json widget(const std::string& name, const json& spec) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

// Creates the Widget CRD over HTTP and waits until it is Established.
void establishWidgets(Harness& h) {
  Response r = h.post(kCrds, widgetCrd());
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_TRUE(Harness::eventually([&] {
    json crd = bodyJson(h.get(std::string(kCrds) + "/widgets.example.com"));
    for (const json& c : crd["status"].value("conditions", json::array())) {
      if (c["type"] == "Established" && c["status"] == "True") return true;
    }
    return false;
  }));
}

// Verifies that an Established CRD's resource is served and appears in discovery.
TEST(CustomResource, ServedAfterEstablished) {
  Harness h;
  establishWidgets(h);
  json list = bodyJson(h.get("/apis/example.com/v1"));
  ASSERT_EQ(list["resources"].size(), 2u) << list;
  EXPECT_EQ(list["resources"][0]["name"], "widgets");
  EXPECT_EQ(list["resources"][0]["kind"], "Widget");
  EXPECT_EQ(list["resources"][0]["namespaced"], true);
  EXPECT_EQ(list["resources"][1]["name"], "widgets/status");
  Response created = h.post(kWidgets, widget("w", {{"size", "small"}}));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(bodyJson(created)["metadata"]["generation"], 1);
  json items = bodyJson(h.get(kWidgets));
  EXPECT_EQ(items["kind"], "WidgetList");
  ASSERT_EQ(items["items"].size(), 1u);
  EXPECT_EQ(items["items"][0]["kind"], "Widget") << "custom resource list items keep their kind";
}

// Verifies the schema's rules as 422 causes: enum, minimum, required and type.
TEST(CustomResource, SchemaValidation) {
  struct Case {
    json spec;
    json cause;
  };
  const std::vector<Case> cases = {
      {{{"size", "huge"}},
       cause("FieldValueNotSupported",
             "Unsupported value: \"huge\": supported values: \"small\", \"large\"", "spec.size")},
      {{{"size", "small"}, {"replicas", -1}},
       cause("FieldValueInvalid",
             "Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
             "spec.replicas")},
      {json::object(), cause("FieldValueRequired", "Required value", "spec.size")},
      {{{"size", "small"}, {"replicas", "two"}},
       cause("FieldValueTypeInvalid",
             "Invalid value: \"string\": spec.replicas in body must be of type integer: "
             "\"string\"",
             "spec.replicas")},
  };
  Harness h;
  establishWidgets(h);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec.dump());
    expectStatus(
        h.post(kWidgets, widget("w", c.spec)), 422, "Invalid",
        "Widget.example.com \"w\" is invalid: " + c.cause["field"].get<std::string>() + ": " +
            c.cause["message"].get<std::string>(),
        {{"name", "w"}, {"group", "example.com"}, {"kind", "Widget"}, {"causes", {c.cause}}});
  }
}

// Verifies that schema defaults are applied on create.
TEST(CustomResource, DefaultsApplied) {
  Harness h;
  establishWidgets(h);
  json created = bodyJson(h.post(kWidgets, widget("w", {{"size", "small"}})));
  EXPECT_EQ(created["spec"], json({{"size", "small"}, {"replicas", 1}}));
}

// Verifies that unknown fields are pruned with a Warning by default, and rejected with
// fieldValidation=Strict.
TEST(CustomResource, UnknownFields) {
  Harness h;
  establishWidgets(h);
  Response warned = h.post(kWidgets, widget("w", {{"size", "small"}, {"colour", "red"}}));
  ASSERT_EQ(warned.status, 201) << warned.body;
  EXPECT_EQ(warned.header("warning"), "299 - \"unknown field \\\"spec.colour\\\"\"");
  EXPECT_FALSE(bodyJson(warned)["spec"].contains("colour"));
  expectStatus(
      h.post(std::string(kWidgets) + "?fieldValidation=Strict",
             widget("s", {{"size", "small"}, {"colour", "red"}})),
      400, "BadRequest",
      "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown "
      "field \"spec.colour\"");
  EXPECT_EQ(h.get(std::string(kWidgets) + "/s").status, 404);
}

// Verifies the status subresource: status is dropped on create and ignored by main-resource
// writes, /status writes change status only, and generation follows spec changes only.
TEST(CustomResource, StatusSubresource) {
  Harness h;
  establishWidgets(h);
  const std::string path = std::string(kWidgets) + "/w";
  json w = widget("w", {{"size", "small"}});
  w["status"] = {{"ready", true}};
  json created = bodyJson(h.post(kWidgets, w));
  EXPECT_FALSE(created.contains("status")) << created;

  Response status = h.patch(path + "/status", kMerge,
                            {{"status", {{"ready", true}}}, {"spec", {{"size", "large"}}}});
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(bodyJson(status)["status"], json({{"ready", true}}));
  EXPECT_EQ(bodyJson(status)["spec"]["size"], "small");
  EXPECT_EQ(bodyJson(status)["metadata"]["generation"], 1);

  Response main = h.patch(path, kMerge, {{"status", {{"ready", false}}}});
  ASSERT_EQ(main.status, 200) << main.body;
  EXPECT_EQ(bodyJson(main)["status"], json({{"ready", true}}));
  EXPECT_EQ(bodyJson(main)["metadata"]["generation"], 1);

  Response labeled = h.patch(path, kMerge, {{"metadata", {{"labels", {{"a", "b"}}}}}});
  EXPECT_EQ(bodyJson(labeled)["metadata"]["generation"], 1);
  Response respecced = h.patch(path, kMerge, {{"spec", {{"size", "large"}}}});
  EXPECT_EQ(bodyJson(respecced)["metadata"]["generation"], 2);
}

// Verifies the Table a CRD's additionalPrinterColumns define.
TEST(CustomResource, TableWithPrinterColumns) {
  Harness h;
  establishWidgets(h);
  ASSERT_EQ(h.post(kWidgets, widget("w", {{"size", "large"}, {"replicas", 3}})).status, 201);
  Response r = h.request("GET", kWidgets, "", "application/json",
                         "Accept: application/json;as=Table;v=v1;g=meta.k8s.io\r\n");
  ASSERT_EQ(r.status, 200) << r.body;
  json table = bodyJson(r);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  std::vector<std::string> columns;
  for (const json& c : table["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Size", "Replicas"}));
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  EXPECT_EQ(table["columnDefinitions"][2]["type"], "integer");
  ASSERT_EQ(table["rows"].size(), 1u);
  EXPECT_EQ(table["rows"][0]["cells"], json({"w", "large", 3}));
  EXPECT_EQ(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(table["rows"][0]["object"]["metadata"]["name"], "w");
}

// Verifies that a strategic merge patch on a custom resource is 415.
TEST(CustomResource, StrategicMergePatchUnsupported) {
  Harness h;
  establishWidgets(h);
  ASSERT_EQ(h.post(kWidgets, widget("w", {{"size", "small"}})).status, 201);
  Response r = h.patch(std::string(kWidgets) + "/w", "application/strategic-merge-patch+json",
                       {{"spec", {{"size", "large"}}}});
  EXPECT_EQ(r.status, 415) << r.body;
  json status = bodyJson(r);
  EXPECT_EQ(status["reason"], "UnsupportedMediaType");
  EXPECT_FALSE(status.contains("details"));
  const std::string message = status.value("message", "");
  EXPECT_EQ(message.rfind("the body of the request was in an unknown format - accepted media "
                          "types include: application/json-patch+json, "
                          "application/merge-patch+json",
                          0),
            0u)
      << message;
  EXPECT_EQ(message.find("strategic"), std::string::npos) << message;
}

// Verifies that a non-structural schema is rejected with 422.
TEST(CustomResource, NonStructuralSchemaRejected) {
  Harness h;
  json crd = widgetCrd();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
      {"type", "object"}, {"properties", {{"spec", {{"properties", json::object()}}}}}};
  const std::string field = "spec.versions[0].schema.openAPIV3Schema.properties[spec].type";
  const std::string message = "Required value: must not be empty for specified object fields";
  expectStatus(h.post(kCrds, crd), 422, "Invalid",
               "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is "
               "invalid: " +
                   field + ": " + message,
               {{"name", "widgets.example.com"},
                {"group", "apiextensions.k8s.io"},
                {"kind", "CustomResourceDefinition"},
                {"causes", {cause("FieldValueRequired", message, field)}}});
}

// Verifies that a CRD must be named plural.group.
TEST(CustomResource, CrdNameMustBePluralDotGroup) {
  Harness h;
  json crd = widgetCrd();
  crd["metadata"]["name"] = "gadgets.example.com";
  const std::string message =
      "Invalid value: \"gadgets.example.com\": must be spec.names.plural+\".\"+spec.group";
  expectStatus(h.post(kCrds, crd), 422, "Invalid",
               "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is "
               "invalid: metadata.name: " +
                   message,
               {{"name", "gadgets.example.com"},
                {"group", "apiextensions.k8s.io"},
                {"kind", "CustomResourceDefinition"},
                {"causes", {cause("FieldValueInvalid", message, "metadata.name")}}});
}

// Verifies that deleting a CRD deletes its custom resources, then stops serving them.
TEST(CustomResource, DeletingCrdDeletesResources) {
  Harness h;
  establishWidgets(h);
  ASSERT_EQ(h.post(kWidgets, widget("w", {{"size", "small"}})).status, 201);
  ASSERT_EQ(h.del(std::string(kCrds) + "/widgets.example.com").status, 200);
  EXPECT_TRUE(Harness::eventually(
      [&] { return h.get(std::string(kCrds) + "/widgets.example.com").status == 404; }));
  EXPECT_EQ(h.get(std::string(kWidgets) + "/w").status, 404);
  EXPECT_EQ(h.get("/apis/example.com/v1").status, 404);
}

}  // namespace
}  // namespace hetbench::kubesim::testing
