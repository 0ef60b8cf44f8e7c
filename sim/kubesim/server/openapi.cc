#include <functional>

#include "server/http_api.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

json parameter(const char* name) {
  return {{"name", name}, {"in", "query"}, {"uniqueItems", true}, {"schema", {{"type", "string"}}}};
}

json operation(const ResourceType& t, const char* action, const std::vector<const char*>& params) {
  json op = {{"x-kubernetes-action", action},
             {"x-kubernetes-group-version-kind",
              {{"group", t.group}, {"version", t.version}, {"kind", t.kind}}},
             {"operationId", std::string(action) + t.kind},
             {"responses", {{"200", {{"description", "OK"}}}}}};
  json list = json::array();
  for (const char* p : params) list.push_back(parameter(p));
  op["parameters"] = list;
  return op;
}

std::string prefixOf(const ResourceType& t) {
  return t.group.empty() ? "/api/" + t.version : "/apis/" + t.group + "/" + t.version;
}

std::string gvPath(const ResourceType& t) { return prefixOf(t).substr(1); }

// The resource's paths with the operations kubectl inspects: writes list fieldValidation,
// which tells kubectl that the server validates fields itself.
void addPaths(json& paths, const ResourceType& t) {
  const std::string base = prefixOf(t) + (t.namespaced ? "/namespaces/{namespace}/" : "/");
  const std::vector<const char*> write = {"dryRun", "fieldManager", "fieldValidation", "pretty"};
  if (t.createOnly) {
    paths[base + t.resource] = {{"post", operation(t, "post", write)}};
    return;
  }
  paths[base + t.resource] = {
      {"get", operation(t, "list",
                        {"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion",
                         "watch", "timeoutSeconds"})},
      {"post", operation(t, "post", write)},
      {"delete", operation(t, "deletecollection", {"labelSelector", "fieldSelector"})}};
  const std::vector<const char*> patch = {"dryRun", "fieldManager", "fieldValidation", "force",
                                          "pretty"};
  paths[base + t.resource + "/{name}"] = {{"get", operation(t, "get", {"pretty"})},
                                          {"put", operation(t, "put", write)},
                                          {"patch", operation(t, "patch", patch)},
                                          {"delete", operation(t, "delete", {"dryRun"})}};
  if (t.hasSubresource("status")) {
    paths[base + t.resource + "/{name}/status"] = {{"get", operation(t, "get", {"pretty"})},
                                                   {"put", operation(t, "put", write)},
                                                   {"patch", operation(t, "patch", patch)}};
  }
}

}  // namespace

std::optional<json> openApiDocument(const std::string& path, const ResourceRegistry& registry) {
  const std::vector<ResourceType> types = registry.all();
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    json paths = json::object();
    for (const ResourceType& t : types) {
      const std::string gv = gvPath(t);
      // The hash lets clients cache a document until the group-version changes.
      std::size_t hash = 0;
      for (const ResourceType& other : types) {
        if (gvPath(other) == gv) {
          hash ^= std::hash<std::string>{}(other.resource + other.kind + other.crdName);
        }
      }
      paths[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + std::to_string(hash)}};
    }
    return json{{"paths", paths}};
  }
  if (path.rfind("/openapi/v3/", 0) != 0) return std::nullopt;
  const std::string gv = path.substr(std::string("/openapi/v3/").size());
  json paths = json::object();
  json schemas = json::object();
  for (const ResourceType& t : types) {
    if (gvPath(t) != gv) continue;
    addPaths(paths, t);
  }
  if (paths.empty()) return std::nullopt;
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0-kubesim"}}},
              {"paths", paths},
              {"components", {{"schemas", schemas}}}};
}

}  // namespace hetbench::kubesim
