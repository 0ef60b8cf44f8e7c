#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <set>
#include <string>

#include "conformance/status_util.h"
#include "hetbench/http/openssl_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

// The serverRelativeURL of a group-version in the /openapi/v3 index ("" when absent).
std::string documentUrl(Harness& h, const std::string& groupVersion) {
  json index = bodyJson(h.get("/openapi/v3"));
  return index["paths"].value(groupVersion, json::object()).value("serverRelativeURL", "");
}

json document(Harness& h, const std::string& groupVersion) {
  const std::string url = documentUrl(h, groupVersion);
  return url.empty() ? json() : bodyJson(h.get(url));
}

std::string upperSha512(const std::string& text) {
  std::string hex = http::ossl::sha512Hex(text);
  for (char& c : hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return hex;
}

json crdOf(const std::string& plural, const std::string& kind, const json& schema) {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", plural + ".example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"scope", "Namespaced"},
            {"names", {{"plural", plural}, {"singular", kind}, {"kind", kind}}},
            {"versions",
             {{{"name", "v1"},
               {"served", true},
               {"storage", true},
               {"schema", {{"openAPIV3Schema", schema}}}}}}}}};
}

json ref(const std::string& name) {
  return json::array({{{"$ref", "#/components/schemas/" + name}}});
}

// Every schema name a document refers to that it does not hold: its components (v3) or
// definitions (v2).
std::set<std::string> unresolved(const json& doc) {
  std::set<std::string> missing;
  const bool v2 = doc.contains("swagger");
  const json& schemas = v2 ? doc["definitions"] : doc["components"]["schemas"];
  const std::string prefix = v2 ? "#/definitions/" : "#/components/schemas/";
  std::function<void(const json&)> walk = [&](const json& v) {
    if (v.is_object()) {
      if (auto it = v.find("$ref"); it != v.end() && it->is_string()) {
        const std::string target = *it;
        if (target.rfind(prefix, 0) != 0 || !schemas.contains(target.substr(prefix.size()))) {
          missing.insert(target);
        }
      }
      for (const auto& [key, child] : v.items()) walk(child);
    } else if (v.is_array()) {
      for (const json& child : v) walk(child);
    }
  };
  walk(doc);
  return missing;
}

// Verifies the index: one URL per served group-version whose hash is the SHA-512 of the
// document it points at, as kube-openapi computes it.
TEST(OpenApi, IndexHashesEachDocument) {
  Harness h;
  Response index = h.get("/openapi/v3");
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(index.header("content-type"), "application/json");
  EXPECT_EQ(index.header("etag"), "\"" + upperSha512(index.body) + "\"");
  json paths = bodyJson(index)["paths"];
  for (const char* gv :
       {"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1",
        "apis/apiextensions.k8s.io/v1", "apis/authorization.k8s.io/v1"}) {
    SCOPED_TRACE(gv);
    ASSERT_TRUE(paths.contains(gv)) << paths;
    const std::string url = paths[gv]["serverRelativeURL"];
    const std::string prefix = "/openapi/v3/" + std::string(gv) + "?hash=";
    ASSERT_EQ(url.rfind(prefix, 0), 0u) << url;
    const std::string hash = url.substr(prefix.size());
    EXPECT_EQ(hash.size(), 128u);
    Response doc = h.get(url);
    ASSERT_EQ(doc.status, 200) << doc.body;
    EXPECT_EQ(upperSha512(doc.body), hash);
    EXPECT_EQ(doc.header("etag"), "\"" + hash + "\"");
    EXPECT_EQ(bodyJson(doc)["openapi"], "3.0.0");
    EXPECT_EQ(bodyJson(doc)["components"]["securitySchemes"]["BearerToken"]["in"], "header");
    EXPECT_TRUE(unresolved(bodyJson(doc)).empty()) << json(unresolved(bodyJson(doc)));
  }
}

// Verifies the caching of documents: a hashed URL is immutable, a stale hash is redirected to
// the current one, an ETag the client holds is answered 304, and a client that takes no JSON
// gets 406.
TEST(OpenApi, CachingAndNegotiation) {
  Harness h;
  const std::string url = documentUrl(h, "apis/batch/v1");
  Response hashed = h.get(url);
  ASSERT_EQ(hashed.status, 200);
  EXPECT_EQ(hashed.header("cache-control"), "public, immutable");
  EXPECT_EQ(hashed.header("vary"), "Accept");
  Response plain = h.get("/openapi/v3/apis/batch/v1");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.header("cache-control"), "no-cache, private");
  EXPECT_EQ(plain.body, hashed.body);

  Response stale = h.get("/openapi/v3/apis/batch/v1?hash=0123");
  EXPECT_EQ(stale.status, 301);
  EXPECT_EQ(stale.header("location"), url);

  Response cached = h.request("GET", url, "", "application/json",
                              "If-None-Match: " + hashed.header("etag") + "\r\n");
  EXPECT_EQ(cached.status, 304);
  EXPECT_EQ(cached.body, "");
  EXPECT_EQ(cached.header("etag"), hashed.header("etag"));
  Response other = h.request("GET", url, "", "application/json", "If-None-Match: \"other\"\r\n");
  EXPECT_EQ(other.status, 200);

  Response protobufOnly =
      h.request("GET", url, "", "application/json",
                "Accept: application/com.github.proto-openapi.spec.v3.v1.0+protobuf\r\n");
  EXPECT_EQ(protobufOnly.status, 406);
  Response any = h.request("GET", url, "", "application/json", "Accept: */*\r\n");
  EXPECT_EQ(any.status, 200);
  EXPECT_EQ(h.get("/openapi/v3/apis/example.com/v1").status, 404);
}

// Verifies a built-in kind's schema in its group-version's document: its group-version-kind,
// apiVersion and kind, references wrapped in allOf, the schemas it reaches from other groups,
// and the strategic-merge extensions kubectl apply builds its patches from.
TEST(OpenApi, BuiltinKindSchema) {
  Harness h;
  json doc = document(h, "apis/apps/v1");
  const json& schemas = doc["components"]["schemas"];
  const json& deployment = schemas["io.k8s.api.apps.v1.Deployment"];
  EXPECT_EQ(deployment["x-kubernetes-group-version-kind"],
            json::parse(R"([{"group": "apps", "kind": "Deployment", "version": "v1"}])"));
  EXPECT_EQ(deployment["properties"]["kind"]["type"], "string");
  EXPECT_EQ(deployment["properties"]["apiVersion"]["type"], "string");
  EXPECT_EQ(deployment["properties"]["spec"]["allOf"], ref("io.k8s.api.apps.v1.DeploymentSpec"));
  EXPECT_EQ(deployment["properties"]["spec"]["default"], json::object());
  EXPECT_FALSE(deployment["properties"]["metadata"].value("description", "").empty());

  const json& spec = schemas["io.k8s.api.apps.v1.DeploymentSpec"];
  EXPECT_EQ(spec["required"], json({"selector", "template"}));
  EXPECT_EQ(spec["properties"]["replicas"], (json{{"type", "integer"}, {"format", "int32"}}));
  EXPECT_EQ(spec["properties"]["strategy"]["x-kubernetes-patch-strategy"], "retainKeys");
  EXPECT_EQ(schemas["io.k8s.api.apps.v1.DeploymentStatus"]["properties"]["conditions"]
                   ["x-kubernetes-patch-merge-key"],
            "type");
  EXPECT_EQ(
      schemas["io.k8s.api.apps.v1.DeploymentList"]["x-kubernetes-group-version-kind"][0]["kind"],
      "DeploymentList");

  const json& podSpec = schemas["io.k8s.api.core.v1.PodSpec"]["properties"];
  EXPECT_EQ(podSpec["containers"]["x-kubernetes-patch-strategy"], "merge");
  EXPECT_EQ(podSpec["containers"]["x-kubernetes-patch-merge-key"], "name");
  EXPECT_EQ(podSpec["containers"]["x-kubernetes-list-map-keys"], json({"name"}));
  EXPECT_EQ(podSpec["volumes"]["x-kubernetes-patch-strategy"], "merge,retainKeys");
  EXPECT_FALSE(podSpec["tolerations"].contains("x-kubernetes-patch-strategy"));
  const json& ports = schemas["io.k8s.api.core.v1.Container"]["properties"]["ports"];
  EXPECT_EQ(ports["x-kubernetes-patch-merge-key"], "containerPort");
  EXPECT_EQ(ports["x-kubernetes-list-map-keys"], json({"containerPort", "protocol"}));
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
                   ["creationTimestamp"]["allOf"],
            ref("io.k8s.apimachinery.pkg.apis.meta.v1.Time"));
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["format"], "date-time");
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"],
            json::parse(R"([{"type": "string"}, {"type": "number"}])"));
  json deleteKinds = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"]
                            ["x-kubernetes-group-version-kind"];
  EXPECT_NE(
      std::find(deleteKinds.begin(), deleteKinds.end(),
                json::parse(R"({"group": "apps", "kind": "DeleteOptions", "version": "v1"})")),
      deleteKinds.end())
      << deleteKinds;
  EXPECT_FALSE(schemas.contains("io.k8s.api.batch.v1.Job")) << "only what apps/v1 reaches";
}

// Verifies the paths: each operation names its kind and action, writes take the kind as their
// body, and a built-in kind's PATCH takes a strategic merge patch (what makes kubectl apply
// build one from the schemas).
TEST(OpenApi, Paths) {
  Harness h;
  json apps = document(h, "apis/apps/v1");
  const json& object = apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
  EXPECT_EQ(object["get"]["operationId"], "readAppsV1NamespacedDeployment");
  EXPECT_EQ(object["get"]["x-kubernetes-action"], "get");
  EXPECT_EQ(object["patch"]["x-kubernetes-group-version-kind"],
            json::parse(R"({"group": "apps", "kind": "Deployment", "version": "v1"})"));
  json patchTypes = json::array();
  for (const auto& [type, media] : object["patch"]["requestBody"]["content"].items()) {
    patchTypes.push_back(type);
    EXPECT_EQ(media["schema"]["$ref"],
              "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
  }
  EXPECT_EQ(patchTypes,
            json({"application/apply-patch+yaml", "application/json-patch+json",
                  "application/merge-patch+json", "application/strategic-merge-patch+json"}));
  EXPECT_EQ(object["put"]["requestBody"]["content"]["*/*"]["schema"]["$ref"],
            "#/components/schemas/io.k8s.api.apps.v1.Deployment");
  std::set<std::string> pathParameters;
  for (const json& p : object["parameters"]) pathParameters.insert(p["name"]);
  EXPECT_EQ(pathParameters, (std::set<std::string>{"name", "namespace", "pretty"}));
  std::set<std::string> patchParameters;
  for (const json& p : object["patch"]["parameters"]) patchParameters.insert(p["name"]);
  EXPECT_TRUE(patchParameters.count("fieldValidation")) << "kubectl's server-side validation";
  EXPECT_EQ(apps["paths"]["/apis/apps/v1/deployments"]["get"]["operationId"],
            "listAppsV1DeploymentForAllNamespaces");
  EXPECT_TRUE(
      apps["paths"].contains("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"));

  json core = document(h, "api/v1");
  auto deleted = [&](const std::string& path) {
    return core["paths"][path]["delete"]["responses"]["200"]["content"]["application/json"]
               ["schema"]["$ref"];
  };
  EXPECT_EQ(deleted("/api/v1/namespaces/{namespace}/pods/{name}"),
            "#/components/schemas/io.k8s.api.core.v1.Pod")
      << "a pod is deleted gracefully";
  EXPECT_EQ(deleted("/api/v1/namespaces/{namespace}/configmaps/{name}"),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(core["paths"]["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"]["post"]
                ["x-kubernetes-group-version-kind"]["kind"],
            "TokenRequest");
  EXPECT_FALSE(core["paths"]["/api/v1/namespaces"].contains("delete"))
      << "namespaces have no deletecollection";
  json authz = document(h, "apis/authorization.k8s.io/v1");
  const json& review = authz["paths"]["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"];
  EXPECT_TRUE(review.contains("post"));
  EXPECT_FALSE(review.contains("get")) << "reviews are created only";
}

// Verifies a custom resource's schema: the CRD's structural schema with its descriptions,
// defaults and validations, the object metadata, its list, and a new hash once the CRD changes.
TEST(OpenApi, CustomResourceSchema) {
  Harness h;
  json schema = json::parse(R"({
    "type": "object",
    "description": "A gadget of the test.",
    "properties": {
      "spec": {
        "type": "object",
        "description": "What the gadget should be.",
        "required": ["size"],
        "example": {"size": 1},
        "properties": {
          "size": {"type": "integer", "minimum": 1, "description": "How many parts."},
          "color": {"type": "string", "enum": ["red", "blue"], "default": "red"},
          "port": {"x-kubernetes-int-or-string": true},
          "parts": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
        }
      }
    }
  })");
  json crd = crdOf("gadgets", "Gadget", schema);
  ASSERT_EQ(h.post(kCrds, crd).status, 201);
  ASSERT_TRUE(Harness::eventually([&] { return !documentUrl(h, "apis/example.com/v1").empty(); }));
  const std::string firstUrl = documentUrl(h, "apis/example.com/v1");
  json doc = bodyJson(h.get(firstUrl));
  const json& schemas = doc["components"]["schemas"];
  const json& gadget = schemas["com.example.v1.Gadget"];
  EXPECT_EQ(gadget["description"], "A gadget of the test.");
  EXPECT_EQ(gadget["x-kubernetes-group-version-kind"],
            json::parse(R"([{"group": "example.com", "kind": "Gadget", "version": "v1"}])"));
  EXPECT_EQ(gadget["properties"]["metadata"]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(gadget["properties"]["kind"]["type"], "string");
  const json& spec = gadget["properties"]["spec"];
  EXPECT_EQ(spec["description"], "What the gadget should be.");
  EXPECT_EQ(spec["required"], json({"size"}));
  EXPECT_FALSE(spec.contains("example")) << "not a structural part";
  EXPECT_EQ(spec["properties"]["size"],
            json::parse(R"({"type": "integer", "minimum": 1, "description": "How many parts."})"));
  EXPECT_EQ(spec["properties"]["color"]["default"], "red");
  EXPECT_EQ(spec["properties"]["port"]["anyOf"],
            json::parse(R"([{"type": "integer"}, {"type": "string"}])"));
  EXPECT_EQ(spec["properties"]["parts"]["x-kubernetes-list-type"], "set");
  const json& list = schemas["com.example.v1.GadgetList"];
  EXPECT_EQ(list["x-kubernetes-group-version-kind"][0]["kind"], "GadgetList");
  EXPECT_EQ(list["properties"]["items"]["items"]["$ref"],
            "#/components/schemas/com.example.v1.Gadget");
  EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  EXPECT_TRUE(unresolved(doc).empty()) << json(unresolved(doc));
  const json& patch =
      doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}"]["patch"];
  EXPECT_FALSE(patch["requestBody"]["content"].contains("application/strategic-merge-patch+json"))
      << "custom resources take no strategic merge patch";

  json changed = bodyJson(h.get(std::string(kCrds) + "/gadgets.example.com"));
  changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "Changed.";
  ASSERT_EQ(h.put(std::string(kCrds) + "/gadgets.example.com", changed).status, 200);
  ASSERT_TRUE(
      Harness::eventually([&] { return documentUrl(h, "apis/example.com/v1") != firstUrl; }));
  EXPECT_EQ(
      document(
          h,
          "apis/example.com/v1")["components"]["schemas"]["com.example.v1.Gadget"]["description"],
      "Changed.");
  EXPECT_EQ(h.get(firstUrl).status, 301);
}

// Verifies /openapi/v2, which kubectl reads to validate kinds that have no PATCH operation: the
// schemas as Swagger 2.0 has them (references with their siblings, no defaults, no enums,
// Quantity and IntOrString as strings), the paths, and the same ETag in JSON and protobuf.
TEST(OpenApi, V2Document) {
  Harness h;
  Response r = h.get("/openapi/v2");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("vary"), "Accept");
  EXPECT_EQ(r.header("etag"), "\"" + upperSha512(r.body) + "\"");
  json doc = bodyJson(r);
  EXPECT_EQ(doc["swagger"], "2.0");
  EXPECT_TRUE(unresolved(doc).empty()) << json(unresolved(doc));
  const json& definitions = doc["definitions"];
  const json& deployment = definitions["io.k8s.api.apps.v1.Deployment"];
  EXPECT_EQ(deployment["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  EXPECT_FALSE(deployment["properties"]["spec"].contains("allOf"));
  EXPECT_FALSE(deployment["properties"]["spec"].contains("default"));
  EXPECT_EQ(deployment["x-kubernetes-group-version-kind"][0]["kind"], "Deployment");
  EXPECT_EQ(definitions["io.k8s.api.core.v1.PodSpec"]["properties"]["restartPolicy"],
            (json{{"type", "string"}}));
  EXPECT_EQ(definitions["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
                       ["x-kubernetes-patch-merge-key"],
            "name");
  EXPECT_EQ(definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["type"], "string");
  EXPECT_EQ(definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"],
            "int-or-string");
  EXPECT_EQ(definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"]["type"], "string");
  const json& review = definitions["io.k8s.api.authorization.v1.SelfSubjectAccessReview"];
  EXPECT_EQ(review["required"], json({"spec"}));
  EXPECT_EQ(review["properties"]["apiVersion"]["type"], "string");

  const json& patch =
      doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
  EXPECT_EQ(patch["consumes"],
            json({"application/apply-patch+yaml", "application/json-patch+json",
                  "application/merge-patch+json", "application/strategic-merge-patch+json"}));
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "Deployment");
  EXPECT_EQ(patch["parameters"][0], json::parse(R"({"name": "body", "in": "body", "required": true,
                "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}})"));
  EXPECT_EQ(patch["responses"]["200"]["schema"]["$ref"],
            "#/definitions/io.k8s.api.apps.v1.Deployment");

  for (const char* accept : {"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                             "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"}) {
    SCOPED_TRACE(accept);
    Response pb = h.request("GET", "/openapi/v2", "", "application/json",
                            "Accept: " + std::string(accept) + "\r\n");
    ASSERT_EQ(pb.status, 200);
    EXPECT_EQ(pb.header("content-type"),
              "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    EXPECT_EQ(pb.header("etag"), r.header("etag"));
    EXPECT_EQ(pb.body.substr(0, 5), std::string("\x0a\x03"
                                                "2.0"))
        << "Document.swagger first";
  }
  EXPECT_EQ(
      h.request("GET", "/openapi/v2", "", "application/json", "Accept: text/plain\r\n").status,
      406);
  EXPECT_EQ(h.request("GET", "/openapi/v2", "", "application/json",
                      "If-None-Match: " + r.header("etag") + "\r\n")
                .status,
            304);
}

// Verifies a custom resource in /openapi/v2, converted as the apiextensions server converts it:
// no anyOf or defaults, a nullable field without a type and not required, a field that keeps
// unknown fields without its properties.
TEST(OpenApi, V2CustomResource) {
  Harness h;
  json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {
        "type": "object",
        "required": ["size", "note"],
        "properties": {
          "size": {"type": "integer", "default": 1},
          "note": {"type": "string", "nullable": true},
          "port": {"x-kubernetes-int-or-string": true},
          "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"a": {"type": "string"}}}
        }
      }
    }
  })");
  ASSERT_EQ(h.post(kCrds, crdOf("gizmos", "Gizmo", schema)).status, 201);
  ASSERT_TRUE(Harness::eventually([&] {
    return bodyJson(h.get("/openapi/v2"))["definitions"].contains("com.example.v1.Gizmo");
  }));
  json doc = bodyJson(h.get("/openapi/v2"));
  EXPECT_TRUE(unresolved(doc).empty()) << json(unresolved(doc));
  const json& gizmo = doc["definitions"]["com.example.v1.Gizmo"];
  EXPECT_EQ(gizmo["properties"]["metadata"]["$ref"],
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  const json& spec = gizmo["properties"]["spec"];
  EXPECT_EQ(spec["required"], json({"size"}));
  EXPECT_EQ(spec["properties"]["size"], (json{{"type", "integer"}}));
  EXPECT_EQ(spec["properties"]["note"], json::object());
  EXPECT_EQ(spec["properties"]["port"], (json{{"x-kubernetes-int-or-string", true}}));
  EXPECT_EQ(spec["properties"]["extra"], (json{{"x-kubernetes-preserve-unknown-fields", true}}));
  EXPECT_EQ(doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}"]["patch"]
               ["consumes"],
            json({"application/apply-patch+yaml", "application/json-patch+json",
                  "application/merge-patch+json"}));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
