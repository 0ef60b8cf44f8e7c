#include "server/openapi.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>

#include "apimachinery/patch_meta.h"
#include "hetbench/http/openssl_util.h"
#include "protobuf/openapi.h"
#include "protobuf/openapi_v2.h"
#include "server/http_api.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr std::string_view kRefPrefix = "#/components/schemas/";
const std::string kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const std::string kObjectMeta = kMeta + "ObjectMeta";
const std::string kListMeta = kMeta + "ListMeta";
const std::string kStatus = kMeta + "Status";
const std::string kDeleteOptions = kMeta + "DeleteOptions";
const std::string kWatchEvent = kMeta + "WatchEvent";
const std::string kPatch = kMeta + "Patch";

// kubesim's descriptions of the fields every object has.
constexpr const char* kApiVersionText =
    "The API group and version the object is written in, such as v1 or apps/v1.";
constexpr const char* kKindText = "The kind of the object, such as Pod, in CamelCase.";
constexpr const char* kMetadataText =
    "The object's metadata: name, namespace, labels, annotations, owners, finalizers, and what "
    "the system records (uid, resourceVersion, creationTimestamp, ...).";
constexpr const char* kListMetadataText =
    "The list's metadata: its resourceVersion, and the continue token of a paged list.";

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

json typeMetaProperty(const char* description) {
  return {{"type", "string"}, {"description", description}};
}

// What every object schema gets from the API server: apiVersion, kind and its
// group-version-kinds.
void markKind(json& schema, const json& kinds) {
  schema["properties"]["apiVersion"] = typeMetaProperty(kApiVersionText);
  schema["properties"]["kind"] = typeMetaProperty(kKindText);
  schema["x-kubernetes-group-version-kind"] = kinds;
}

// Gives a schema kubesim's description where the .proto file has none.
void describe(json& schema, const std::string& description) {
  if (!schema.contains("description")) schema["description"] = description;
}

// The target of a property that refers to a schema: {"allOf": [{"$ref"}]}, or the items of a list
// of them.
std::string targetOf(const json& property) {
  const json& holder = property.contains("items") ? property["items"] : property;
  auto allOf = holder.find("allOf");
  if (allOf == holder.end() || allOf->empty() || !(*allOf)[0].contains("$ref")) return "";
  return referenced((*allOf)[0]["$ref"]);
}

// Publishes the strategic-merge tags of a kind's table on the schemas it reaches.
void addPatchExtensions(json& schemas, const std::string& name, const detail::TypeMeta& type,
                        std::set<std::pair<std::string, const detail::TypeMeta*>>& seen) {
  if (!seen.insert({name, &type}).second || !schemas.contains(name)) return;
  json& properties = schemas[name]["properties"];
  for (const auto& [field, meta] : type.fields) {
    auto it = properties.find(field);
    if (it == properties.end()) continue;
    std::string strategy = meta.merge ? "merge" : "";
    if (meta.retainKeys) strategy += strategy.empty() ? "retainKeys" : ",retainKeys";
    if (!strategy.empty()) (*it)["x-kubernetes-patch-strategy"] = strategy;
    if (!meta.mergeKey.empty()) (*it)["x-kubernetes-patch-merge-key"] = meta.mergeKey;
    if (meta.type != nullptr) {
      if (std::string target = targetOf(*it); !target.empty()) {
        addPatchExtensions(schemas, target, *meta.type, seen);
      }
    }
  }
}

// --- Custom resources: the apiextensions server's OpenAPI builder, for v3. ---

// The structural parts of a CRD schema that the API server publishes: types, descriptions,
// defaults, value validations and the x-kubernetes extensions (not id, $schema, $ref, example,
// externalDocs, definitions, dependencies, patternProperties, additionalItems).
const std::set<std::string, std::less<>> kPublishedKeys = {
    "type",          "nullable",
    "description",   "title",
    "default",       "format",
    "maximum",       "exclusiveMaximum",
    "minimum",       "exclusiveMinimum",
    "maxLength",     "minLength",
    "pattern",       "maxItems",
    "minItems",      "uniqueItems",
    "multipleOf",    "enum",
    "maxProperties", "minProperties",
    "required",      "allOf",
    "oneOf",         "anyOf",
    "not",           "items",
    "properties",    "additionalProperties",
};

json objectMetaProperty() { return {{"$ref", refTo(kObjectMeta)}, {"description", kMetadataText}}; }

json publishedCrdSchema(const json& schema) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    if (kPublishedKeys.count(key) == 0 && key.rfind("x-kubernetes-", 0) != 0) continue;
    if (key == "properties" && value.is_object()) {
      json properties = json::object();
      for (const auto& [name, property] : value.items()) {
        properties[name] = publishedCrdSchema(property);
      }
      out[key] = properties;
    } else if ((key == "items" || key == "additionalProperties") && value.is_object()) {
      out[key] = publishedCrdSchema(value);
    } else {
      out[key] = value;
    }
  }
  // Unfolded as the API server unfolds a structural schema: int-or-string is either type, an
  // embedded resource has the fields of an object.
  if (out.value("x-kubernetes-int-or-string", false) && !out.contains("anyOf")) {
    out["anyOf"] = json::parse(R"([{"type": "integer"}, {"type": "string"}])");
  }
  if (out.value("x-kubernetes-embedded-resource", false)) {
    out["properties"]["apiVersion"] = typeMetaProperty(kApiVersionText);
    out["properties"]["kind"] = typeMetaProperty(kKindText);
    out["properties"]["metadata"] = objectMetaProperty();
    json required = out.value("required", json::array());
    for (const char* field : {"kind", "apiVersion"}) {
      if (std::find(required.begin(), required.end(), field) == required.end()) {
        required.push_back(field);
      }
    }
    out["required"] = required;
  }
  return out;
}

json customKindSchema(const ResourceType& t) {
  json schema = {{"type", "object"}};
  if (t.custom->openApiSchema.is_object()) {
    schema = publishedCrdSchema(t.custom->openApiSchema);
    schema["properties"]["metadata"] = objectMetaProperty();
  }
  markKind(schema, json::array({gvk(t.group, t.version, t.kind)}));
  return schema;
}

json customListSchema(const ResourceType& t) {
  json schema = {
      {"type", "object"},
      {"description", t.custom->listKind + " is a list of " + t.kind + "."},
      {"required", {"items"}},
      {"properties",
       {{"items",
         {{"type", "array"},
          {"description", "The " + t.resource + " of the list."},
          {"items", {{"$ref", refTo(customSchemaName(t, t.kind))}}}}},
        {"metadata", {{"$ref", refTo(kListMeta)}, {"description", kListMetadataText}}}}}};
  markKind(schema, json::array({gvk(t.group, t.version, t.custom->listKind)}));
  return schema;
}

// Every schema the documents may refer to: the built-in ones with what the server adds, and the
// custom resources'.
json allComponents(const std::vector<ResourceType>& types) {
  json schemas = protobuf::openApiSchemas();
  schemas[kPatch] = {{"type", "object"},
                     {"description",
                      "The body of a PATCH request: a JSON patch, a merge patch or a strategic "
                      "merge patch, as its Content-Type says."}};
  std::set<std::string> groupVersions;
  std::set<std::pair<std::string, const detail::TypeMeta*>> seen;
  for (const ResourceType& t : types) {
    if (t.isCustom()) {
      schemas[schemaNameOf(t)] = customKindSchema(t);
      schemas[listSchemaNameOf(t)] = customListSchema(t);
      continue;
    }
    groupVersions.insert(t.apiVersion());
    const std::string name = schemaNameOf(t);
    if (name.empty()) continue;
    json& kind = schemas[name];
    markKind(kind, json::array({gvk(t.group, t.version, t.kind)}));
    describe(kind["properties"]["metadata"], kMetadataText);
    if (!t.createOnly) {
      json& list = schemas[listSchemaNameOf(t)];
      markKind(list, json::array({gvk(t.group, t.version, t.kind + "List")}));
      describe(list, t.kind + "List is a list of " + t.kind + ".");
      describe(list["properties"]["items"], "The " + t.resource + " of the list.");
      describe(list["properties"]["metadata"], kListMetadataText);
    }
    if (const detail::TypeMeta* patchMeta = detail::patchMetaForKind(t.kind)) {
      addPatchExtensions(schemas, name, *patchMeta, seen);
    }
  }
  // DeleteOptions and WatchEvent are registered in every built-in group-version, Status in the
  // core group only.
  json deleteOptions = json::array();
  json watchEvent = json::array();
  for (const std::string& apiVersion : groupVersions) {
    const std::size_t slash = apiVersion.find('/');
    const std::string group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
    const std::string version = apiVersion.substr(slash == std::string::npos ? 0 : slash + 1);
    deleteOptions.push_back(gvk(group, version, "DeleteOptions"));
    watchEvent.push_back(gvk(group, version, "WatchEvent"));
  }
  markKind(schemas[kDeleteOptions], deleteOptions);
  markKind(schemas[kStatus], json::array({gvk("", "v1", "Status")}));
  schemas[kWatchEvent]["x-kubernetes-group-version-kind"] = watchEvent;
  return schemas;
}

// --- Paths ---

struct Parameter {
  const char* name = "";
  const char* type = "string";
  const char* description = "";
};

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
const std::vector<Parameter> kNoParams = {};

// One operation of a path, as kubesim serves it.
struct Operation {
  const char* method = "";  // get, put, post, delete, patch
  const char* action = "";  // x-kubernetes-action
  const char* verb = "";    // the operation id's verb
  std::string description = {};
  const std::vector<Parameter>* query = &kNoParams;
  std::string requestSchema = {};  // the body's schema; kPatch for the patch media types
  std::vector<std::pair<int, std::string>> responses = {};  // code, schema
  bool watchable = false;  // a list: the watch stream media types too
};

struct Path {
  std::string path = {};
  bool namespaced = false;  // {namespace} in the path
  bool named = false;       // {name} in the path
  std::string subresource = {};
  bool allNamespaces = false;
  std::vector<Operation> operations = {};
};

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

json v3Document(const std::vector<const ResourceType*>& types, const json& components) {
  json paths = json::object();
  std::vector<std::string> roots;
  for (const ResourceType* t : types) {
    for (const Path& path : pathsOf(*t)) {
      paths[path.path] = v3PathItem(*t, path);
      collectReferences(paths[path.path], roots);
    }
  }
  const json bearerToken = {{"type", "apiKey"},
                            {"description", "A bearer token in the Authorization header."},
                            {"name", "authorization"},
                            {"in", "header"}};
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0-kubesim"}}},
          {"paths", paths},
          {"components",
           {{"schemas", reachable(components, roots)},
            {"securitySchemes", {{"BearerToken", bearerToken}}}}}};
}

// --- The v2 document: one Swagger 2.0 document of every group-version, which kubectl reads
// for client-side validation (of kinds without a PATCH operation) and as a fallback for
// patches. ---

std::string v2Ref(const json& ref) {
  const std::string name = referenced(ref);
  return name.empty() ? ref.get<std::string>() : "#/definitions/" + name;
}

// A built-in schema as the v2 document has it: a reference with siblings is the $ref itself (v2
// keeps the siblings), no defaults (pruned from v2) and no enums, Quantity and IntOrString as
// strings.
json v2Builtin(const json& schema) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    if (key == "default" || key == "enum") continue;
    if (key == "oneOf") {
      out["type"] = "string";
    } else if (key == "$ref") {
      out[key] = v2Ref(value);
    } else if (key == "allOf" && value.size() == 1 && value[0].size() == 1 &&
               value[0].contains("$ref")) {
      out["$ref"] = v2Ref(value[0]["$ref"]);
    } else if (key == "properties") {
      for (const auto& [name, property] : value.items()) out[key][name] = v2Builtin(property);
    } else if (key == "items" || key == "additionalProperties") {
      out[key] = v2Builtin(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

// A custom resource's schema as the apiextensions server converts it for v2: no allOf, anyOf,
// oneOf or not, no defaults; a nullable field loses its type (and is not required), a field
// that preserves unknown fields its properties and items, an array without items its type.
json v2Custom(const json& schema) {
  if (!schema.is_object()) return schema;
  json out = json::object();
  json required = schema.value("required", json::array());
  auto notRequired = [&](const std::string& name) {
    required.erase(std::remove(required.begin(), required.end(), name), required.end());
  };
  for (const auto& [key, value] : schema.items()) {
    if (key == "default" || key == "allOf" || key == "anyOf" || key == "oneOf" || key == "not" ||
        key == "required") {
      continue;
    }
    if (key == "$ref") {
      out[key] = v2Ref(value);
    } else if (key == "properties" && value.is_object()) {
      for (const auto& [name, property] : value.items()) {
        if (property.is_object() && property.value("nullable", false)) notRequired(name);
        out[key][name] = v2Custom(property);
      }
    } else if ((key == "items" || key == "additionalProperties") && value.is_object()) {
      if (key == "additionalProperties" && value.value("nullable", false)) {
        required = json::array();
      }
      out[key] = v2Custom(value);
    } else {
      out[key] = value;
    }
  }
  if (!required.empty()) out["required"] = required;
  if (out.value("nullable", false)) {
    for (const char* key : {"type", "items", "properties", "nullable"}) out.erase(key);
  }
  if (out.value("x-kubernetes-preserve-unknown-fields", false)) {
    out.erase("items");
    out.erase("properties");
    if (out.value("type", "") == "object") out.erase("type");
  }
  if (out.value("type", "") == "array" && !out.contains("items")) out.erase("type");
  return out;
}

json v2Parameter(const Parameter& p, const char* in, bool required) {
  json out = {{"name", p.name},
              {"in", in},
              {"description", p.description},
              {"type", p.type},
              {"uniqueItems", true}};
  if (required) out["required"] = true;
  return out;
}

json v2Operation(const ResourceType& t, const Path& path, const Operation& op) {
  json parameters = json::array();
  if (!op.requestSchema.empty()) {
    parameters.push_back({{"name", "body"},
                          {"in", "body"},
                          {"required", op.requestSchema != kDeleteOptions},
                          {"schema", {{"$ref", "#/definitions/" + op.requestSchema}}}});
  }
  for (const Parameter& p : *op.query) parameters.push_back(v2Parameter(p, "query", false));
  json responses = json::object();
  for (const auto& [code, schema] : op.responses) {
    responses[std::to_string(code)] = {{"description", responseText(code)},
                                       {"schema", {{"$ref", "#/definitions/" + schema}}}};
  }
  responses["401"] = {{"description", responseText(401)}};
  json out = {
      {"description", op.description},
      {"operationId", operationId(t, path, op)},
      {"tags", {groupTag(t.group) + "_" + t.version}},
      {"consumes", op.requestSchema == kPatch ? patchTypes(t) : std::vector<std::string>{"*/*"}},
      {"produces", producedTypes(t, op.watchable)},
      {"schemes", {"https"}},
      {"parameters", parameters},
      {"responses", responses},
      {"x-kubernetes-action", op.action},
      {"x-kubernetes-group-version-kind", operationKind(t, path)}};
  return out;
}

json v2PathItem(const ResourceType& t, const Path& path) {
  return pathItem(t, path, v2Parameter, v2Operation);
}

json v2Document(const std::vector<ResourceType>& types, const json& components) {
  json paths = json::object();
  std::vector<std::string> roots;
  std::set<std::string> customKinds;
  for (const ResourceType& t : types) {
    for (const Path& path : pathsOf(t)) {
      paths[path.path] = v2PathItem(t, path);
      collectReferences(v3PathItem(t, path), roots);
    }
    if (t.isCustom()) customKinds.insert(schemaNameOf(t));
  }
  json definitions = json::object();
  const json used = reachable(components, roots);
  for (const auto& [name, schema] : used.items()) {
    if (name.rfind("io.k8s.", 0) == 0) {
      definitions[name] = v2Builtin(schema);
    } else if (customKinds.count(name) != 0 &&
               schema.value("x-kubernetes-preserve-unknown-fields", false)) {
      definitions[name] = {
          {"type", "object"},
          {"x-kubernetes-group-version-kind", schema["x-kubernetes-group-version-kind"]}};
    } else {
      definitions[name] = v2Custom(schema);
    }
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0-kubesim"}}},
          {"paths", paths},
          {"definitions", definitions}};
}

std::shared_ptr<const OpenApiDocument> documentOf(const json& body) {
  auto doc = std::make_shared<OpenApiDocument>();
  doc->body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  doc->etag = http::ossl::sha512Hex(doc->body);
  for (char& c : doc->etag) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return doc;
}

// Whether an If-None-Match header names the ETag (or is "*"), as Go's ServeContent reads it.
bool matchesEtag(const std::string& ifNoneMatch, const std::string& quotedEtag) {
  std::size_t start = 0;
  while (start < ifNoneMatch.size()) {
    std::size_t comma = ifNoneMatch.find(',', start);
    if (comma == std::string::npos) comma = ifNoneMatch.size();
    std::string tag = ifNoneMatch.substr(start, comma - start);
    start = comma + 1;
    tag.erase(0, tag.find_first_not_of(" \t"));
    tag.erase(tag.find_last_not_of(" \t") + 1);
    if (tag.rfind("W/", 0) == 0) tag.erase(0, 2);
    if (tag == "*" || tag == quotedEtag) return true;
  }
  return false;
}

// A document with its ETag, or 304 when the client holds it already.
void sendDocument(const http::Request& request, http::ResponseWriter& out,
                  const OpenApiDocument& doc, http::Headers headers,
                  std::string_view contentType = "application/json") {
  const std::string etag = "\"" + doc.etag + "\"";
  headers.emplace_back("Etag", etag);
  if (matchesEtag(request.header("if-none-match"), etag)) {
    out.send(304, headers, "");
    return;
  }
  headers.emplace_back("Content-Type", std::string(contentType));
  out.send(200, headers, doc.body);
}

// Whether the Accept header takes JSON (an absent header takes anything).
bool acceptsJson(const http::Request& request) {
  if (request.header("accept").empty()) return true;
  for (const AcceptRange& range : acceptRanges(request)) {
    if (range.type == "application/json" || range.type == "application/*" || range.type == "*/*") {
      return true;
    }
  }
  return false;
}

}  // namespace

struct OpenApiDocuments::Set {
  std::uint64_t generation = 0;
  std::vector<ResourceType> types = {};
  json components = nullptr;
  std::shared_ptr<const OpenApiDocument> index = nullptr;
  std::map<std::string, std::shared_ptr<const OpenApiDocument>> v3 = {};
};

struct OpenApiDocuments::V2 {
  std::uint64_t generation = 0;
  std::shared_ptr<const OpenApiDocument> json = nullptr;
  std::shared_ptr<const OpenApiDocument> protobuf = nullptr;
};

OpenApiDocuments::OpenApiDocuments(const ResourceRegistry& registry) : registry_(registry) {}

std::shared_ptr<const OpenApiDocuments::Set> OpenApiDocuments::current() {
  std::lock_guard lock(mu_);
  const std::uint64_t generation = registry_.generation();
  if (set_ && set_->generation == generation) return set_;
  auto set = std::make_shared<Set>();
  set->generation = generation;
  set->types = registry_.all();
  set->components = allComponents(set->types);
  std::map<std::string, std::vector<const ResourceType*>> byGroupVersion;
  for (const ResourceType& t : set->types) byGroupVersion[gvPath(t)].push_back(&t);
  json index = json::object();
  for (const auto& [gv, members] : byGroupVersion) {
    set->v3[gv] = documentOf(v3Document(members, set->components));
    index[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + set->v3[gv]->etag}};
  }
  set->index = documentOf(json{{"paths", index}});
  set_ = set;
  return set_;
}

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::v3Index() { return current()->index; }

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::v3(const std::string& groupVersion) {
  const std::shared_ptr<const Set> set = current();
  auto it = set->v3.find(groupVersion);
  return it == set->v3.end() ? nullptr : it->second;
}

std::shared_ptr<const OpenApiDocuments::V2> OpenApiDocuments::currentV2() {
  const std::shared_ptr<const Set> set = current();
  std::lock_guard lock(mu_);
  if (v2_ && v2_->generation == set->generation) return v2_;
  const json document = v2Document(set->types, set->components);
  auto v2 = std::make_shared<V2>();
  v2->generation = set->generation;
  v2->json = documentOf(document);
  auto encoded = std::make_shared<OpenApiDocument>();
  encoded->body = protobuf::encodeOpenApiV2(document);
  encoded->etag = v2->json->etag;
  v2->protobuf = encoded;
  v2_ = v2;
  return v2_;
}

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::v2() { return currentV2()->json; }

std::shared_ptr<const OpenApiDocument> OpenApiDocuments::v2Protobuf() {
  return currentV2()->protobuf;
}

bool ApiServer::handleOpenApi(const http::Request& request, http::ResponseWriter& out) {
  if (request.method != "GET") return false;
  if (request.path == "/openapi/v2") {
    // JSON, or gnostic's protobuf (what kubectl asks for), in the order the client prefers.
    const std::vector<AcceptRange> ranges = acceptRanges(request);
    for (const AcceptRange& range : ranges) {
      if (range.type == protobuf::kOpenApiV2MediaType ||
          range.type == protobuf::kOpenApiV2LegacyMediaType) {
        sendDocument(request, out, *openApi_.v2Protobuf(),
                     {{"Vary", "Accept"}, {"Cache-Control", "no-cache, private"}},
                     protobuf::kOpenApiV2MediaType);
        return true;
      }
      if (range.type == "application/json" || range.type == "application/*" ||
          range.type == "*/*") {
        break;
      }
    }
    if (!acceptsJson(request)) {
      out.send(406, {{"Vary", "Accept"}}, "");
      return true;
    }
    sendDocument(request, out, *openApi_.v2(),
                 {{"Vary", "Accept"}, {"Cache-Control", "no-cache, private"}});
    return true;
  }
  constexpr std::string_view kV3 = "/openapi/v3";
  if (request.path.rfind(kV3, 0) != 0) return false;
  const std::string rest = request.path.substr(kV3.size());
  if (rest.empty() || rest == "/") {
    sendDocument(request, out, *openApi_.v3Index(), {{"Cache-Control", "no-cache, private"}});
    return true;
  }
  if (rest[0] != '/') return false;
  const std::string groupVersion = rest.substr(1);
  std::shared_ptr<const OpenApiDocument> doc = openApi_.v3(groupVersion);
  if (!doc) return false;
  if (!acceptsJson(request)) {
    out.send(406, {{"Vary", "Accept"}}, "");
    return true;
  }
  // A hashed URL is for ever: a client caches it, and a stale hash is sent to the current one.
  std::string cacheControl = "no-cache, private";
  if (std::optional<std::string> hash = request.queryParam("hash")) {
    if (*hash != doc->etag) {
      const std::string location = "/openapi/v3/" + groupVersion + "?hash=" + doc->etag;
      out.send(301,
               {{"Location", location},
                {"Vary", "Accept"},
                {"Content-Type", "text/html; charset=utf-8"}},
               "<a href=\"" + location + "\">Moved Permanently</a>.\n\n");
      return true;
    }
    cacheControl = "public, immutable";
  }
  sendDocument(request, out, *doc, {{"Vary", "Accept"}, {"Cache-Control", cacheControl}});
  return true;
}

}  // namespace hetbench::kubesim
