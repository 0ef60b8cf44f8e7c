#include "server/openapi.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "apimachinery/patch_meta.h"
#include "hetbench/http/openssl_util.h"
#include "protobuf/openapi.h"
#include "protobuf/openapi_v2.h"
#include "server/http_api.h"
#include "server/openapi_build.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace openapi;

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
