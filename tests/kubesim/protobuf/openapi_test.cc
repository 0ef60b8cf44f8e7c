#include "protobuf/openapi.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "protobuf/openapi_v2.h"

namespace hetbench::kubesim::protobuf {
namespace {

using nlohmann::json;

const json& schema(const std::string& name) {
  const json& schemas = openApiSchemas();
  static const json missing;
  auto it = schemas.find(name);
  return it == schemas.end() ? missing : *it;
}

json ref(const std::string& name) {
  return {{"allOf", {{{"$ref", "#/components/schemas/" + name}}}}};
}

// Verifies the names of the kinds' schemas, as kube-apiserver names its components.
TEST(OpenApiSchemas, KindNames) {
  EXPECT_EQ(openApiSchemaName("v1", "Pod"), "io.k8s.api.core.v1.Pod");
  EXPECT_EQ(openApiSchemaName("apps/v1", "DeploymentList"), "io.k8s.api.apps.v1.DeploymentList");
  EXPECT_EQ(openApiSchemaName("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
  EXPECT_EQ(openApiSchemaName("batch/v1", "Status"), "io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(openApiSchemaName("example.com/v1", "Widget"), "");
}

// Verifies a kind's schema: its description and fields from the .proto comments, references
// wrapped in allOf with the struct default, and no apiVersion or kind of its own.
TEST(OpenApiSchemas, Pod) {
  const json& pod = schema("io.k8s.api.core.v1.Pod");
  EXPECT_EQ(pod["type"], "object");
  EXPECT_EQ(pod["description"], "A Pod is a group of containers that run together on one node.");
  json spec = pod["properties"]["spec"];
  EXPECT_EQ(spec["allOf"], ref("io.k8s.api.core.v1.PodSpec")["allOf"]);
  EXPECT_EQ(spec["default"], json::object());
  EXPECT_EQ(spec["description"],
            "What the pod should run: its containers, volumes, restart policy, scheduling "
            "constraints.");
  EXPECT_EQ(pod["properties"]["metadata"]["allOf"],
            ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["allOf"]);
  EXPECT_FALSE(pod["properties"].contains("kind"));
  EXPECT_FALSE(pod.contains("x-kubernetes-group-version-kind"));
}

// Verifies the types and formats of scalars, lists, maps and the markers of the Go types.
TEST(OpenApiSchemas, FieldsAsTheApiServerTypesThem) {
  const json& spec = schema("io.k8s.api.core.v1.PodSpec");
  EXPECT_EQ(spec["required"], json({"containers"}));
  json props = spec["properties"];
  EXPECT_EQ(props["activeDeadlineSeconds"], (json{{"type", "integer"}, {"format", "int64"}}));
  EXPECT_EQ(props["restartPolicy"],
            (json{{"type", "string"}, {"enum", {"Always", "Never", "OnFailure"}}}));
  EXPECT_EQ(props["nodeSelector"],
            (json{{"type", "object"},
                  {"additionalProperties", {{"type", "string"}, {"default", ""}}},
                  {"x-kubernetes-map-type", "atomic"}}));
  json containers = props["containers"];
  EXPECT_EQ(containers["type"], "array");
  EXPECT_EQ(containers["items"], (json{{"allOf", ref("io.k8s.api.core.v1.Container")["allOf"]},
                                       {"default", json::object()}}));
  EXPECT_EQ(containers["x-kubernetes-list-type"], "map");
  EXPECT_EQ(containers["x-kubernetes-list-map-keys"], json({"name"}));
  EXPECT_FALSE(containers.contains("x-kubernetes-patch-strategy")) << "the server adds those";

  const json& port = schema("io.k8s.api.core.v1.ContainerPort");
  EXPECT_EQ(port["required"], json({"containerPort"}));
  EXPECT_EQ(port["properties"]["containerPort"],
            (json{{"type", "integer"}, {"format", "int32"}, {"default", 0}}));
  EXPECT_EQ(port["properties"]["protocol"],
            (json{{"type", "string"}, {"default", "TCP"}, {"enum", {"SCTP", "TCP", "UDP"}}}));
  EXPECT_EQ(
      schema("io.k8s.api.core.v1.AzureDiskVolumeSource")["properties"]["cachingMode"]["default"],
      "ReadWrite")
      << "a +default=ref(...) marker";
  EXPECT_EQ(schema("io.k8s.api.core.v1.Container")["properties"]["args"],
            (json{{"type", "array"},
                  {"items", {{"type", "string"}, {"default", ""}}},
                  {"x-kubernetes-list-type", "atomic"}}));
  EXPECT_EQ(
      schema("io.k8s.api.core.v1.ConfigMap")["properties"]["binaryData"]["additionalProperties"],
      (json{{"type", "string"}, {"format", "byte"}}));
  EXPECT_EQ(schema("io.k8s.api.core.v1.ResourceRequirements")["properties"]["limits"],
            (json{{"type", "object"},
                  {"additionalProperties",
                   {{"allOf", ref("io.k8s.apimachinery.pkg.api.resource.Quantity")["allOf"]},
                    {"default", json::object()}}}}));
  EXPECT_EQ(schema("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")["x-kubernetes-map-type"],
            "atomic");
  EXPECT_EQ(schema("io.k8s.api.authentication.v1.UserInfo")["properties"]["extra"],
            (json{{"type", "object"},
                  {"additionalProperties",
                   {{"type", "array"}, {"items", {{"type", "string"}, {"default", ""}}}}}}));
  json maximum = schema(
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")["properties"]
                                                                                 ["maximum"];
  EXPECT_EQ(maximum, (json{{"type", "number"}, {"format", "double"}}));
}

// Verifies the types whose JSON is not their message's, and that embedded structs are
// flattened into their holder.
TEST(OpenApiSchemas, SpecialTypesAndEmbeddedStructs) {
  EXPECT_EQ(schema("io.k8s.apimachinery.pkg.apis.meta.v1.Time")["format"], "date-time");
  EXPECT_EQ(schema("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")["type"], "string");
  EXPECT_EQ(schema("io.k8s.apimachinery.pkg.api.resource.Quantity")["oneOf"],
            json::parse(R"([{"type": "string"}, {"type": "number"}])"));
  const json& intOrString = schema("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  EXPECT_EQ(intOrString["format"], "int-or-string");
  EXPECT_EQ(intOrString["oneOf"], json::parse(R"([{"type": "integer"}, {"type": "string"}])"));
  EXPECT_EQ(schema("io.k8s.apimachinery.pkg.runtime.RawExtension")["type"], "object");
  EXPECT_FALSE(
      schema("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON").contains("type"));
  EXPECT_EQ(
      schema("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["properties"]["creationTimestamp"],
      (json{{"allOf", ref("io.k8s.apimachinery.pkg.apis.meta.v1.Time")["allOf"]},
            {"default", json::object()}}));

  json probe = schema("io.k8s.api.core.v1.Probe")["properties"];
  EXPECT_TRUE(probe.contains("exec")) << probe;
  EXPECT_TRUE(probe.contains("httpGet"));
  EXPECT_FALSE(probe.contains("handler"));
  EXPECT_EQ(schema("io.k8s.api.core.v1.EphemeralContainer")["required"], json({"name"}));
  EXPECT_EQ(schema("io.k8s.api.core.v1.HTTPGetAction")["properties"]["port"]["allOf"],
            ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString")["allOf"]);
  for (const char* absent :
       {"io.k8s.apimachinery.pkg.runtime.Unknown", "io.k8s.api.authentication.v1.ExtraValue"}) {
    EXPECT_TRUE(schema(absent).is_null()) << absent;
  }
}

// Verifies that every reference resolves to a schema of the set.
TEST(OpenApiSchemas, ReferencesResolve) {
  std::set<std::string> missing;
  std::function<void(const json&)> walk = [&](const json& v) {
    if (v.is_object()) {
      if (auto it = v.find("$ref"); it != v.end() && it->is_string()) {
        const std::string target =
            it->get<std::string>().substr(sizeof("#/components/schemas/") - 1);
        if (!openApiSchemas().contains(target)) missing.insert(target);
      }
      for (const auto& [k, child] : v.items()) walk(child);
    } else if (v.is_array()) {
      for (const json& child : v) walk(child);
    }
  };
  walk(openApiSchemas());
  EXPECT_TRUE(missing.empty()) << json(missing);
  EXPECT_GT(openApiSchemas().size(), 250u);
}

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

std::string field(int number, const std::string& data) {
  return varint((static_cast<std::uint64_t>(number) << 3) | 2) + varint(data.size()) + data;
}

// Verifies the gnostic encoding of a Swagger document against gnostic's field numbers
// (openapiv2/OpenAPIv2.proto): named maps, a schema's type as a list, an extension's value as
// YAML text.
TEST(OpenApiV2, GnosticEncoding) {
  const json swagger = json::parse(R"({
    "swagger": "2.0",
    "info": {"title": "T", "version": "v"},
    "paths": {"/p": {"get": {"operationId": "op", "x-a": 1}}},
    "definitions": {"D": {"type": "object", "required": ["f"],
                          "properties": {"f": {"$ref": "#/definitions/E"}}}}
  })");
  const std::string operation =
      field(5, "op") + field(13, field(1, "x-a") + field(2, field(2, "1")));
  const std::string pathItem = field(1, "/p") + field(2, field(2, operation));
  const std::string property = field(1, "f") + field(2, field(1, "#/definitions/E"));
  const std::string schema =
      field(19, "f") + field(22, field(1, "object")) + field(25, field(1, property));
  const std::string want = field(1, "2.0") + field(2, field(1, "T") + field(2, "v")) +
                           field(8, field(2, pathItem)) +
                           field(9, field(1, field(1, "D") + field(2, schema)));
  EXPECT_EQ(encodeOpenApiV2(swagger), want);
}

}  // namespace
}  // namespace hetbench::kubesim::protobuf
