#include <cctype>
#include <deque>

#include "protobuf/openapi.h"
#include "server/http_api.h"
#include "server/openapi_build.h"

namespace hetbench::kubesim::openapi {
namespace {

using nlohmann::json;

const Parameter kPretty = {"pretty", "string", "Whether to indent the JSON of the answer."};
const Parameter kDryRun = {"dryRun", "string",
                           "All: validate and admit the request without persisting it."};
const Parameter kFieldManager = {"fieldManager", "string",
                                 "The name of the actor making the change, for managedFields."};
const Parameter kFieldValidation = {
    "fieldValidation", "string",
    "What to do with unknown or duplicate fields: Ignore, Warn (the default) or Strict."};
const Parameter kForce = {"force", "boolean",
                          "Whether an apply takes over fields other managers own."};
const Parameter kLabelSelector = {"labelSelector", "string",
                                  "Only the objects whose labels match this selector."};
const Parameter kFieldSelector = {"fieldSelector", "string",
                                  "Only the objects whose fields match this selector."};
const Parameter kLimit = {"limit", "integer", "The most objects to answer in one page."};
const Parameter kContinue = {"continue", "string",
                             "The continue token of the previous page of a paged list."};
const Parameter kResourceVersion = {"resourceVersion", "string",
                                    "The resourceVersion to list or watch from."};
const Parameter kTimeoutSeconds = {"timeoutSeconds", "integer",
                                   "How long a list or watch call may last."};
const Parameter kWatch = {"watch", "boolean",
                          "Watch for changes and answer a stream of events instead of a list."};
const Parameter kBookmarks = {"allowWatchBookmarks", "boolean",
                              "Whether a watch may send BOOKMARK events."};
const Parameter kGracePeriod = {"gracePeriodSeconds", "integer",
                                "Seconds to wait before the object is deleted; 0 deletes at once."};
const Parameter kOrphan = {"orphanDependents", "boolean",
                           "Deprecated: whether the dependents are orphaned; use "
                           "propagationPolicy."};
const Parameter kPropagation = {"propagationPolicy", "string",
                                "How dependents are deleted: Orphan, Background or Foreground."};

const std::vector<Parameter> kListParams = {kBookmarks,      kContinue, kFieldSelector,
                                            kLabelSelector,  kLimit,    kResourceVersion,
                                            kTimeoutSeconds, kWatch};
const std::vector<Parameter> kWriteParams = {kDryRun, kFieldManager, kFieldValidation};
const std::vector<Parameter> kPatchParams = {kDryRun, kFieldManager, kFieldValidation, kForce};
const std::vector<Parameter> kDeleteParams = {kDryRun, kGracePeriod, kOrphan, kPropagation};
const std::vector<Parameter> kDeleteCollectionParams = {
    kContinue, kDryRun, kFieldSelector, kGracePeriod,     kLabelSelector,
    kLimit,    kOrphan, kPropagation,   kResourceVersion, kTimeoutSeconds};

}  // namespace

using nlohmann::json;

std::string refTo(const std::string& name) { return std::string(kRefPrefix) + name; }

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// A group as the API server writes it in tags and operation ids: "core" for the core group,
// the rest without ".k8s.io" in camel case ("rbac.authorization.k8s.io": "rbacAuthorization").
std::string groupTag(const std::string& group) {
  if (group.empty()) return "core";
  std::string g = group;
  constexpr std::string_view kSuffix = ".k8s.io";
  if (g.size() > kSuffix.size() &&
      g.compare(g.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    g.resize(g.size() - kSuffix.size());
  }
  std::string out;
  bool upper = false;
  for (char c : g) {
    if (c == '.' || c == '-') {
      upper = true;
    } else {
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
  }
  return out;
}

std::string gvPath(const ResourceType& t) {
  return t.group.empty() ? "api/" + t.version : "apis/" + t.group + "/" + t.version;
}

// A custom resource's schema name, its group reversed ("graphcore.ai" "v1alpha1" "IPUJob":
// "ai.graphcore.v1alpha1.IPUJob"), as the apiextensions server names it.
std::string customSchemaName(const ResourceType& t, const std::string& kind) {
  std::string name = t.version + "." + kind;
  std::size_t start = 0;
  while (start <= t.group.size()) {
    std::size_t dot = t.group.find('.', start);
    if (dot == std::string::npos) dot = t.group.size();
    name = t.group.substr(start, dot - start) + "." + name;
    start = dot + 1;
  }
  return name;
}

// The schema name of a reference ("" for anything else that a "$ref" key may hold).
std::string referenced(const json& ref) {
  if (!ref.is_string()) return "";
  const std::string& text = ref.get_ref<const std::string&>();
  return text.rfind(kRefPrefix, 0) == 0 ? text.substr(kRefPrefix.size()) : "";
}

std::string schemaNameOf(const ResourceType& t) {
  return t.isCustom() ? customSchemaName(t, t.kind)
                      : protobuf::openApiSchemaName(t.apiVersion(), t.kind);
}

std::string listSchemaNameOf(const ResourceType& t) {
  return t.isCustom() ? customSchemaName(t, t.custom->listKind)
                      : protobuf::openApiSchemaName(t.apiVersion(), t.kind + "List");
}

json gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

const char* responseText(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    default:
      return "Unauthorized";
  }
}

// The paths of one resource: its collection (and, namespaced, its collection across
// namespaces), its objects, their status, and a ServiceAccount's token.
std::vector<Path> pathsOf(const ResourceType& t) {
  const std::string prefix = "/" + gvPath(t) + "/";
  const std::string collection =
      prefix + (t.namespaced ? "namespaces/{namespace}/" : "") + t.resource;
  const std::string kind = schemaNameOf(t);
  const std::string& k = t.kind;
  std::vector<Path> paths;
  if (t.createOnly) {
    paths.push_back({collection,
                     t.namespaced,
                     false,
                     "",
                     false,
                     {{"post",
                       "post",
                       "create",
                       "create a " + k,
                       &kWriteParams,
                       kind,
                       {{200, kind}, {201, kind}, {202, kind}}}}});
    return paths;
  }
  const std::string list = listSchemaNameOf(t);
  // A delete answers the object where the API server's registry returns it (custom resources,
  // pods and claims, which are deleted gracefully or through finalizers), else a Status.
  const bool returnsObject =
      t.isCustom() ||
      (t.group.empty() && (t.resource == "pods" || t.resource == "persistentvolumeclaims"));
  const std::string deleted = returnsObject ? kind : kStatus;
  Operation listing = {"get",        "list", "list",        "list or watch the " + k + " objects",
                       &kListParams, "",     {{200, list}}, true};
  Path collectionPath = {collection, t.namespaced, false, "", false, {listing}};
  collectionPath.operations.push_back({"post",
                                       "post",
                                       "create",
                                       "create a " + k,
                                       &kWriteParams,
                                       kind,
                                       {{200, kind}, {201, kind}, {202, kind}}});
  if (hasDeleteCollection(t)) {
    collectionPath.operations.push_back({"delete",
                                         "deletecollection",
                                         "deletecollection",
                                         "delete the " + k + " objects a selector matches",
                                         &kDeleteCollectionParams,
                                         kDeleteOptions,
                                         {{200, kStatus}}});
  }
  paths.push_back(collectionPath);
  if (t.namespaced) {
    paths.push_back({prefix + t.resource, false, false, "", true, {listing}});
  }
  Path object = {collection + "/{name}", t.namespaced, true, "", false, {}};
  object.operations = {
      {"get", "get", "read", "read a " + k, &kNoParams, "", {{200, kind}}},
      {"put", "put", "replace", "replace a " + k, &kWriteParams, kind, {{200, kind}, {201, kind}}},
      {"patch",
       "patch",
       "patch",
       "patch a " + k,
       &kPatchParams,
       kPatch,
       {{200, kind}, {201, kind}}},
      {"delete",
       "delete",
       "delete",
       "delete a " + k,
       &kDeleteParams,
       kDeleteOptions,
       {{200, deleted}, {202, deleted}}}};
  paths.push_back(object);
  if (t.hasSubresource("status")) {
    Path status = {collection + "/{name}/status", t.namespaced, true, "status", false, {}};
    status.operations = {
        {"get", "get", "read", "read the status of a " + k, &kNoParams, "", {{200, kind}}},
        {"put",
         "put",
         "replace",
         "replace the status of a " + k,
         &kWriteParams,
         kind,
         {{200, kind}, {201, kind}}},
        {"patch",
         "patch",
         "patch",
         "patch the status of a " + k,
         &kPatchParams,
         kPatch,
         {{200, kind}, {201, kind}}}};
    paths.push_back(status);
  }
  if (t.hasSubresource("token")) {
    const std::string request =
        protobuf::openApiSchemaName("authentication.k8s.io/v1", "TokenRequest");
    Path token = {collection + "/{name}/token", t.namespaced, true, "token", false, {}};
    token.operations = {{"post",
                         "post",
                         "create",
                         "create a token of a " + k,
                         &kWriteParams,
                         request,
                         {{200, request}, {201, request}, {202, request}}}};
    paths.push_back(token);
  }
  return paths;
}

// The group-version-kind an operation acts on: a token request is authentication.k8s.io's.
json operationKind(const ResourceType& t, const Path& path) {
  if (path.subresource == "token") return gvk("authentication.k8s.io", "v1", "TokenRequest");
  return gvk(t.group, t.version, t.kind);
}

std::string operationId(const ResourceType& t, const Path& path, const Operation& op) {
  std::string id = std::string(op.verb) + capitalized(groupTag(t.group)) + capitalized(t.version);
  if (path.namespaced) id += "Namespaced";
  id += t.kind + capitalized(path.subresource);
  if (path.allNamespaces) id += "ForAllNamespaces";
  return id;
}

// The media types kubesim answers with: JSON, and protobuf for the built-in kinds.
std::vector<std::string> producedTypes(const ResourceType& t, bool watchable) {
  std::vector<std::string> types = {"application/json"};
  if (!t.isCustom()) types.push_back("application/vnd.kubernetes.protobuf");
  if (watchable) {
    types.push_back("application/json;stream=watch");
    if (!t.isCustom()) types.push_back("application/vnd.kubernetes.protobuf;stream=watch");
  }
  return types;
}

// The patch types kubesim accepts: server-side apply, JSON and merge patches, and strategic
// merge for the built-in kinds only.
std::vector<std::string> patchTypes(const ResourceType& t) {
  std::vector<std::string> types = {"application/apply-patch+yaml", "application/json-patch+json",
                                    "application/merge-patch+json"};
  if (!t.isCustom()) types.push_back("application/strategic-merge-patch+json");
  return types;
}

json v3Parameter(const Parameter& p, const char* in, bool required) {
  json out = {{"name", p.name},
              {"in", in},
              {"description", p.description},
              {"schema", {{"type", p.type}, {"uniqueItems", true}}}};
  if (required) out["required"] = true;
  return out;
}

json v3Operation(const ResourceType& t, const Path& path, const Operation& op) {
  json parameters = json::array();
  for (const Parameter& p : *op.query) parameters.push_back(v3Parameter(p, "query", false));
  json responses = json::object();
  for (const auto& [code, schema] : op.responses) {
    json content = json::object();
    for (const std::string& type : producedTypes(t, op.watchable)) {
      content[type] = {{"schema", {{"$ref", refTo(schema)}}}};
    }
    responses[std::to_string(code)] = {{"description", responseText(code)}, {"content", content}};
  }
  responses["401"] = {{"description", responseText(401)}};
  json out = {{"description", op.description},
              {"operationId", operationId(t, path, op)},
              {"tags", {groupTag(t.group) + "_" + t.version}},
              {"responses", responses},
              {"x-kubernetes-action", op.action},
              {"x-kubernetes-group-version-kind", operationKind(t, path)}};
  if (!parameters.empty()) out["parameters"] = parameters;
  if (!op.requestSchema.empty()) {
    json content = json::object();
    const json schema = {{"$ref", refTo(op.requestSchema)}};
    if (op.requestSchema == kPatch) {
      for (const std::string& type : patchTypes(t)) content[type] = {{"schema", schema}};
    } else {
      content["*/*"] = {{"schema", schema}};
    }
    out["requestBody"] = {{"content", content}};
  }
  return out;
}

// A path's item in either version: its path parameters, `pretty`, and its operations, each
// written by that version's builders.
json pathItem(const ResourceType& t, const Path& path,
              json (*parameter)(const Parameter&, const char* in, bool required),
              json (*operation)(const ResourceType&, const Path&, const Operation&)) {
  json parameters = json::array();
  if (path.named) {
    parameters.push_back(parameter({"name", "string", "The name of the object."}, "path", true));
  }
  if (path.namespaced) {
    parameters.push_back(
        parameter({"namespace", "string", "The namespace of the object."}, "path", true));
  }
  parameters.push_back(parameter(kPretty, "query", false));
  json item = {{"parameters", parameters}};
  for (const Operation& op : path.operations) item[op.method] = operation(t, path, op);
  return item;
}

json v3PathItem(const ResourceType& t, const Path& path) {
  return pathItem(t, path, v3Parameter, v3Operation);
}

// The names `schema` refers to.
void collectReferences(const json& schema, std::vector<std::string>& out) {
  if (schema.is_object()) {
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      if (std::string name = referenced(*ref); !name.empty()) out.push_back(name);
    }
    for (const auto& [key, value] : schema.items()) collectReferences(value, out);
  } else if (schema.is_array()) {
    for (const json& value : schema) collectReferences(value, out);
  }
}

// The schemas `roots` reach, themselves included.
json reachable(const json& all, std::vector<std::string> roots) {
  json out = json::object();
  std::deque<std::string> pending(roots.begin(), roots.end());
  while (!pending.empty()) {
    const std::string name = pending.front();
    pending.pop_front();
    if (out.contains(name)) continue;
    auto it = all.find(name);
    if (it == all.end()) continue;
    out[name] = *it;
    std::vector<std::string> refs;
    collectReferences(*it, refs);
    pending.insert(pending.end(), refs.begin(), refs.end());
  }
  return out;
}

}  // namespace hetbench::kubesim::openapi
