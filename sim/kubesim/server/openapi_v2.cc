#include <algorithm>
#include <set>

#include "server/openapi_build.h"

namespace hetbench::kubesim::openapi {
namespace {

using nlohmann::json;

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

}  // namespace

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

}  // namespace hetbench::kubesim::openapi
