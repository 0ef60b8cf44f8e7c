#pragma once

// What the OpenAPI documents are built from, in both versions (server/openapi.cc writes the v3
// documents and serves both; server/openapi_v2.cc writes the v2 one): the names of schemas, the
// paths and operations kubesim serves with their v3 path items, and the schemas a document
// reaches. Internal to the server.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/resource_type.h"

namespace hetbench::kubesim::openapi {

inline constexpr std::string_view kRefPrefix = "#/components/schemas/";
inline const std::string kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
inline const std::string kObjectMeta = kMeta + "ObjectMeta";
inline const std::string kListMeta = kMeta + "ListMeta";
inline const std::string kStatus = kMeta + "Status";
inline const std::string kDeleteOptions = kMeta + "DeleteOptions";
inline const std::string kWatchEvent = kMeta + "WatchEvent";
inline const std::string kPatch = kMeta + "Patch";

// kubesim's descriptions of the fields every object has.
inline constexpr const char* kApiVersionText =
    "The API group and version the object is written in, such as v1 or apps/v1.";
inline constexpr const char* kKindText = "The kind of the object, such as Pod, in CamelCase.";
inline constexpr const char* kMetadataText =
    "The object's metadata: name, namespace, labels, annotations, owners, finalizers, and what "
    "the system records (uid, resourceVersion, creationTimestamp, ...).";
inline constexpr const char* kListMetadataText =
    "The list's metadata: its resourceVersion, and the continue token of a paged list.";

/// "#/components/schemas/NAME".
std::string refTo(const std::string& name);
/// The first letter upper-cased.
std::string capitalized(std::string s);
/// A group as the API server writes it in tags and operation ids: "core" for the core group,
/// the rest without ".k8s.io" in camel case ("rbac.authorization.k8s.io": "rbacAuthorization").
std::string groupTag(const std::string& group);
/// "api/v1" or "apis/GROUP/VERSION".
std::string gvPath(const ResourceType& t);
/// A custom resource's schema name, its group reversed ("graphcore.ai" "v1alpha1" "IPUJob":
/// "ai.graphcore.v1alpha1.IPUJob"), as the apiextensions server names it.
std::string customSchemaName(const ResourceType& t, const std::string& kind);
/// The schema name of a reference ("" for anything else that a "$ref" key may hold).
std::string referenced(const nlohmann::json& ref);
std::string schemaNameOf(const ResourceType& t);
std::string listSchemaNameOf(const ResourceType& t);
nlohmann::json gvk(const std::string& group, const std::string& version, const std::string& kind);

struct Parameter {
  const char* name = "";
  const char* type = "string";
  const char* description = "";
};

inline const std::vector<Parameter> kNoParams = {};

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

/// The description of a response code in an operation.
const char* responseText(int code);
/// The paths of one resource: its collection (and, namespaced, its collection across
/// namespaces), its objects, their status, and a ServiceAccount's token.
std::vector<Path> pathsOf(const ResourceType& t);
/// The group-version-kind an operation acts on: a token request is authentication.k8s.io's.
nlohmann::json operationKind(const ResourceType& t, const Path& path);
std::string operationId(const ResourceType& t, const Path& path, const Operation& op);
/// The media types kubesim answers with: JSON, and protobuf for the built-in kinds.
std::vector<std::string> producedTypes(const ResourceType& t, bool watchable);
/// The patch types kubesim accepts: server-side apply, JSON and merge patches, and strategic
/// merge for the built-in kinds only.
std::vector<std::string> patchTypes(const ResourceType& t);
/// A path's item in either version: its path parameters, `pretty`, and its operations, each
/// written by that version's builders.
nlohmann::json pathItem(const ResourceType& t, const Path& path,
                        nlohmann::json (*parameter)(const Parameter&, const char* in,
                                                    bool required),
                        nlohmann::json (*operation)(const ResourceType&, const Path&,
                                                    const Operation&));
/// A path's item in the v3 document.
nlohmann::json v3PathItem(const ResourceType& t, const Path& path);
/// Adds the names `schema` refers to.
void collectReferences(const nlohmann::json& schema, std::vector<std::string>& out);
/// The schemas of `all` that `roots` reach, themselves included.
nlohmann::json reachable(const nlohmann::json& all, std::vector<std::string> roots);

/// The v2 document (Swagger 2.0) of every group-version of `types`, from the v3 `components`.
nlohmann::json v2Document(const std::vector<ResourceType>& types, const nlohmann::json& components);

}  // namespace hetbench::kubesim::openapi
