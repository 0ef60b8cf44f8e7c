// The checks the API server runs on a CRD version's openAPIV3Schema: the API-level rules of
// apiextensions/validation (forbidden keywords, list/map extensions), the structural invariants
// of apiserver/schema/validation.go (sorted, as the server sorts them), and, when both pass,
// that every default is pruned and valid.

#include <algorithm>
#include <set>

#include "schema/schema_internal.h"

namespace hetbench::kubesim::internal {
namespace {

enum class Level { kRoot, kItem, kField };

std::string child(const std::string& path, const std::string& name) { return path + "." + name; }
std::string key(const std::string& path, const std::string& k) {
  return path + ".properties[" + k + "]";
}
std::string index(const std::string& path, const std::string& name, std::size_t i) {
  return path + "." + name + "[" + std::to_string(i) + "]";
}

std::string typeOf(const Json& s) {
  return s.contains("type") && s["type"].is_string() ? s["type"].get<std::string>() : "";
}
bool flag(const Json& s, const char* name) { return s.value(name, false); }
bool nonEmpty(const Json& s, const char* name) {
  return s.contains(name) && !s[name].is_null() && !s[name].empty();
}
const Json& properties(const Json& s) {
  static const Json kEmpty = Json::object();
  return s.contains("properties") && s["properties"].is_object() ? s["properties"] : kEmpty;
}
bool isMetaField(const std::string& k) {
  return k == "apiVersion" || k == "kind" || k == "metadata";
}

// %#v of a Go []string, as x-kubernetes-list-map-keys values are printed.
common::StatusCause invalidStrings(std::string field, const Json& values,
                                   const std::string& detail) {
  std::string shown = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    shown +=
        (i > 0 ? ", " : "") + goQuote(values[i].is_string() ? values[i].get<std::string>() : "");
  }
  return {std::move(field), "FieldValueInvalid", "Invalid value: " + shown + "}: " + detail};
}

// API-level rules (ValidateCustomResourceDefinitionOpenAPISchema and specStandardValidatorV3).
void apiChecks(const Json& s, const std::string& path, bool isRoot, bool insideMeta,
               const std::string& defaultsReason, Causes& out) {
  if (!s.is_object()) return;
  const std::string type = typeOf(s);
  static const std::set<std::string> kTypes = {"array",  "boolean", "integer",
                                               "number", "object",  "string"};
  if (!type.empty() && type != "null" && !kTypes.count(type)) {
    out.push_back(notSupportedCause(child(path, "type"), type,
                                    {"array", "boolean", "integer", "number", "object", "string"}));
  }
  if (s.contains("default") && !defaultsReason.empty()) {
    out.push_back(forbiddenCause(child(path, "default"), "must not be set " + defaultsReason));
  }
  if (s.contains("id") && s["id"] != "")
    out.push_back(forbiddenCause(child(path, "id"), "id is not supported"));
  if (s.contains("additionalItems")) {
    out.push_back(
        forbiddenCause(child(path, "additionalItems"), "additionalItems is not supported"));
  }
  if (nonEmpty(s, "patternProperties")) {
    out.push_back(
        forbiddenCause(child(path, "patternProperties"), "patternProperties is not supported"));
  }
  if (nonEmpty(s, "definitions")) {
    out.push_back(forbiddenCause(child(path, "definitions"), "definitions is not supported"));
  }
  if (s.contains("dependencies")) {
    out.push_back(forbiddenCause(child(path, "dependencies"), "dependencies is not supported"));
  }
  if (s.contains("$ref"))
    out.push_back(forbiddenCause(child(path, "$ref"), "$ref is not supported"));
  if (type == "null") {
    out.push_back(forbiddenCause(child(path, "type"),
                                 "type cannot be set to null, use nullable as an alternative"));
  }
  if (s.contains("items") && s["items"].is_array() && !s["items"].empty()) {
    out.push_back(
        forbiddenCause(child(path, "items"), "items must be a schema object and not an array"));
  }
  if (insideMeta && flag(s, "x-kubernetes-embedded-resource")) {
    out.push_back(forbiddenCause(child(path, "x-kubernetes-embedded-resource"),
                                 "must not be used inside of resource meta"));
  }
  if (flag(s, "uniqueItems")) {
    out.push_back(forbiddenCause(
        child(path, "uniqueItems"),
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  }
  if (s.contains("additionalProperties")) {
    const Json& ap = s["additionalProperties"];
    if (!properties(s).empty() && (ap.is_object() || ap == false)) {
      out.push_back(forbiddenCause(child(path, "additionalProperties"),
                                   "additionalProperties and properties are mutual exclusive"));
    }
    const std::string reason =
        insideMeta ? "inside additionalProperties applying to object metadata" : defaultsReason;
    apiChecks(ap, child(path, "additionalProperties"), false, insideMeta, reason, out);
  }
  for (const auto& [k, sub] : properties(s).items()) {
    const bool meta = (isRoot || flag(s, "x-kubernetes-embedded-resource")) && isMetaField(k);
    const std::string reason = meta && isRoot ? "in top-level " + k : defaultsReason;
    apiChecks(sub, key(path, k), false, insideMeta || meta, reason, out);
  }
  if (s.contains("not"))
    apiChecks(s["not"], child(path, "not"), false, insideMeta, defaultsReason, out);
  for (const char* junctor : {"allOf", "oneOf", "anyOf"}) {
    if (!s.contains(junctor) || !s[junctor].is_array()) continue;
    for (std::size_t i = 0; i < s[junctor].size(); ++i) {
      apiChecks(s[junctor][i], index(path, junctor, i), false, insideMeta, defaultsReason, out);
    }
  }
  if (s.contains("items") && s["items"].is_object()) {
    apiChecks(s["items"], child(path, "items"), false, insideMeta, defaultsReason, out);
  }
  if (s.contains("x-kubernetes-preserve-unknown-fields") &&
      s["x-kubernetes-preserve-unknown-fields"] == false) {
    out.push_back(invalidCause(child(path, "x-kubernetes-preserve-unknown-fields"), false,
                               "must be true or undefined"));
  }
  if (s.contains("x-kubernetes-map-type")) {
    const std::string detail = "must be object if x-kubernetes-map-type is specified";
    if (type.empty()) {
      out.push_back(requiredCause(child(path, "type"), detail));
    } else if (type != "object") {
      out.push_back(invalidCause(child(path, "type"), type, detail));
    }
    const Json& mapType = s["x-kubernetes-map-type"];
    if (mapType != "atomic" && mapType != "granular") {
      out.push_back(
          notSupportedCause(child(path, "x-kubernetes-map-type"), mapType, {"atomic", "granular"}));
    }
  }
  const bool hasListType = s.contains("x-kubernetes-list-type");
  const Json listType = hasListType ? s["x-kubernetes-list-type"] : Json();
  if (hasListType && type != "array") {
    const std::string detail = "must be array if x-kubernetes-list-type is specified";
    out.push_back(type.empty() ? requiredCause(child(path, "type"), detail)
                               : invalidCause(child(path, "type"), type, detail));
  }
  if (hasListType && listType != "atomic" && listType != "set" && listType != "map") {
    out.push_back(notSupportedCause(child(path, "x-kubernetes-list-type"), listType,
                                    {"atomic", "set", "map"}));
  }
  if (nonEmpty(s, "x-kubernetes-list-map-keys")) {
    const std::string detail = "must be map if x-kubernetes-list-map-keys is non-empty";
    if (!hasListType) {
      out.push_back(requiredCause(child(path, "x-kubernetes-list-type"), detail));
    } else if (listType != "map") {
      out.push_back(invalidCause(child(path, "x-kubernetes-list-type"), listType, detail));
    }
  }
  if (listType == "map") {
    const Json keys = s.value("x-kubernetes-list-map-keys", Json::array());
    if (keys.empty()) {
      out.push_back(requiredCause(child(path, "x-kubernetes-list-map-keys"),
                                  "must not be empty if x-kubernetes-list-type is map"));
    }
    if (!s.contains("items")) {
      out.push_back(requiredCause(child(path, "items"),
                                  "must have a schema if x-kubernetes-list-type is map"));
    } else if (s["items"].is_object()) {
      const Json& items = s["items"];
      if (typeOf(items) != "object") {
        out.push_back(
            invalidCause(child(path, "items.type"), typeOf(items),
                         "must be object if parent array's x-kubernetes-list-type is map"));
      } else {
        std::set<std::string> seen;
        for (const auto& k : keys) {
          const std::string name = k.is_string() ? k.get<std::string>() : "";
          if (properties(items).contains(name)) {
            const std::string t = typeOf(properties(items)[name]);
            if (t == "array" || t == "object") {
              out.push_back(invalidCause(
                  child(key(child(path, "items"), name), "type"), "object",
                  "must be a scalar type if parent array's x-kubernetes-list-type is map"));
            }
          } else {
            out.push_back(invalidStrings(child(path, "x-kubernetes-list-map-keys"), keys,
                                         "entries must all be names of item properties"));
          }
          if (!seen.insert(name).second) {
            out.push_back(invalidStrings(child(path, "x-kubernetes-list-map-keys"), keys,
                                         "must not contain duplicate entries"));
          }
        }
      }
    }
  }
}

void patternCheck(const Json& s, const std::string& path, Causes& out) {
  if (!s.contains("pattern") || !s["pattern"].is_string()) return;
  std::string error;
  if (compiledPattern(s["pattern"].get<std::string>(), &error) == nullptr) {
    out.push_back(invalidCause(child(path, "pattern"), s["pattern"],
                               "must be a valid regular expression, but isn't: " + error));
  }
}

bool isIntOrStringAnyOf(const Json& anyOf) {
  return anyOf.is_array() && anyOf.size() == 2 && anyOf[0] == Json{{"type", "integer"}} &&
         anyOf[1] == Json{{"type", "string"}};
}

void valueValidation(const Json& s, bool skipAnyOf, bool skipFirstAllOfAnyOf,
                     const std::string& path, Causes& out);

// Schemas under allOf/anyOf/oneOf/not may only validate values, never add structure.
void nested(const Json& s, bool skipAnyOf, const std::string& path, Causes& out) {
  if (!s.is_object()) return;
  valueValidation(s, skipAnyOf, false, path, out);
  if (s.contains("items") && s["items"].is_object())
    nested(s["items"], false, child(path, "items"), out);
  for (const auto& [k, sub] : properties(s).items()) nested(sub, false, key(path, k), out);
  struct Rule {
    const char* name;
    const char* detail;
  };
  static constexpr Rule kForbidden[] = {
      {"type", "must be empty to be structural"},
      {"additionalProperties", "must be undefined to be structural"},
      {"default", "must be undefined to be structural"},
      {"title", "must be empty to be structural"},
      {"description", "must be empty to be structural"},
      {"nullable", "must be false to be structural"},
      {"externalDocs", "must be undefined to be structural"},
      {"x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
      {"x-kubernetes-embedded-resource", "must be false to be structural"},
      {"x-kubernetes-int-or-string", "must be false to be structural"},
      {"x-kubernetes-list-map-keys", "must be empty to be structural"},
      {"x-kubernetes-list-type", "must be undefined to be structural"},
      {"x-kubernetes-map-type", "must be undefined to be structural"},
      {"x-kubernetes-validations", "must be empty to be structural"},
  };
  for (const auto& rule : kForbidden) {
    if (!s.contains(rule.name)) continue;
    const Json& v = s[rule.name];
    if (v.is_null() || v == false || v == "" || (v.is_array() && v.empty())) continue;
    out.push_back(forbiddenCause(child(path, rule.name), rule.detail));
  }
  if (properties(s).contains("metadata")) {
    out.push_back(
        forbiddenCause(key(path, "metadata"), "must not be specified in a nested context"));
  }
}

void valueValidation(const Json& s, bool skipAnyOf, bool skipFirstAllOfAnyOf,
                     const std::string& path, Causes& out) {
  if (!skipAnyOf && s.contains("anyOf") && s["anyOf"].is_array()) {
    for (std::size_t i = 0; i < s["anyOf"].size(); ++i)
      nested(s["anyOf"][i], false, index(path, "anyOf", i), out);
  }
  if (s.contains("allOf") && s["allOf"].is_array()) {
    for (std::size_t i = 0; i < s["allOf"].size(); ++i) {
      nested(s["allOf"][i], skipFirstAllOfAnyOf && i == 0, index(path, "allOf", i), out);
    }
  }
  if (s.contains("oneOf") && s["oneOf"].is_array()) {
    for (std::size_t i = 0; i < s["oneOf"].size(); ++i)
      nested(s["oneOf"][i], false, index(path, "oneOf", i), out);
  }
  if (s.contains("not")) nested(s["not"], false, child(path, "not"), out);
  patternCheck(s, path, out);
}

void metadataInvariants(const Json& m, bool checkMetadata, Level level, const std::string& path,
                        Causes& out) {
  if (checkMetadata && typeOf(m) != "object") {
    out.push_back(invalidCause(child(path, "type"), typeOf(m), "must be object"));
  }
  if (level != Level::kRoot || !m.is_object()) return;
  bool onlyNames = true;
  for (const auto& [k, v] : m.items()) {
    if (k == "type" || k == "default") continue;
    if (k == "properties" && v.is_object()) {
      for (const auto& [p, unused] : v.items()) {
        if (p != "name" && p != "generateName") onlyNames = false;
      }
      continue;
    }
    onlyNames = false;
  }
  if (!onlyNames) {
    out.push_back(forbiddenCause(path,
                                 "must not specify anything other than name and generateName, "
                                 "but metadata is implicitly specified"));
  }
}

// validateStructuralInvariants.
void structural(const Json& s, Level level, const std::string& path, Causes& out) {
  if (!s.is_object()) return;
  const std::string type = typeOf(s);
  const bool embedded = flag(s, "x-kubernetes-embedded-resource");
  const bool intOrString = flag(s, "x-kubernetes-int-or-string");
  const bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
  if (type == "array" && !s.contains("items"))
    out.push_back(requiredCause(child(path, "items"), "must be specified"));
  if (s.contains("items") && s["items"].is_object())
    structural(s["items"], Level::kItem, child(path, "items"), out);
  for (const auto& [k, sub] : properties(s).items())
    structural(sub, Level::kField, key(path, k), out);
  if (s.contains("additionalProperties")) {
    if (level == Level::kRoot) {
      out.push_back(
          forbiddenCause(child(path, "additionalProperties"), "must not be used at the root"));
    }
    if (s["additionalProperties"].is_object()) {
      structural(s["additionalProperties"], Level::kField, child(path, "additionalProperties"),
                 out);
    }
  }
  if (intOrString && preserve) {
    out.push_back(invalidCause(child(path, "x-kubernetes-preserve-unknown-fields"), true,
                               "must be false if x-kubernetes-int-or-string is true"));
  }
  if (intOrString && embedded) {
    out.push_back(invalidCause(child(path, "x-kubernetes-embedded-resource"), true,
                               "must be false if x-kubernetes-int-or-string is true"));
  }
  const bool skipAnyOf = s.contains("anyOf") && isIntOrStringAnyOf(s["anyOf"]);
  const bool skipFirstAllOfAnyOf = s.contains("allOf") && s["allOf"].is_array() &&
                                   !s["allOf"].empty() && s["allOf"][0].contains("anyOf") &&
                                   isIntOrStringAnyOf(s["allOf"][0]["anyOf"]);
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, path, out);

  if (embedded && type != "object") {
    const std::string detail = "must be object if x-kubernetes-embedded-resource is true";
    out.push_back(type.empty() ? requiredCause(child(path, "type"), detail)
                               : invalidCause(child(path, "type"), type, detail));
  } else if (type.empty() && !intOrString && !preserve) {
    static constexpr const char* kDetail[] = {"must not be empty at the root",
                                              "must not be empty for specified array items",
                                              "must not be empty for specified object fields"};
    out.push_back(requiredCause(child(path, "type"), kDetail[static_cast<int>(level)]));
  }
  if (embedded && s.contains("additionalProperties")) {
    out.push_back(forbiddenCause(child(path, "additionalProperties"),
                                 "must not be used if x-kubernetes-embedded-resource is set"));
  }
  if (level == Level::kRoot && !type.empty() && type != "object") {
    out.push_back(invalidCause(child(path, "type"), type, "must be object at the root"));
  }
  const bool checkMetadata = level == Level::kRoot || embedded;
  for (const char* meta : {"kind", "apiVersion"}) {
    if (checkMetadata && properties(s).contains(meta) && typeOf(properties(s)[meta]) != "string") {
      out.push_back(invalidCause(child(key(path, meta), "type"), typeOf(properties(s)[meta]),
                                 "must be string"));
    }
  }
  if (properties(s).contains("metadata")) {
    metadataInvariants(properties(s)["metadata"], checkMetadata, level, key(path, "metadata"), out);
  }
  if (embedded && !preserve && properties(s).empty()) {
    out.push_back(
        requiredCause(child(path, "properties"),
                      "must not be empty if x-kubernetes-embedded-resource is true without "
                      "x-kubernetes-preserve-unknown-fields"));
  }
}

// structuraldefaulting.ValidateDefaults: defaults must survive pruning and validate.
void defaults(const Json& s, const std::string& path, bool isRoot, Causes& out) {
  if (!s.is_object()) return;
  if (s.contains("default") && !isRoot) {
    const Json& value = s["default"];
    Json pruned = value;
    std::vector<std::string> unused;
    pruneValue(pruned, &s, flag(s, "x-kubernetes-embedded-resource"), "", unused);
    if (pruned != value) {
      out.push_back(invalidCause(child(path, "default"), value, "must not have unknown fields"));
    }
    validateValue(s, value, "", child(path, "default"), out);
  }
  for (const auto& [k, sub] : properties(s).items()) {
    if (isRoot && isMetaField(k)) continue;
    defaults(sub, key(path, k), false, out);
  }
  if (s.contains("items") && s["items"].is_object())
    defaults(s["items"], child(path, "items"), false, out);
  if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
    defaults(s["additionalProperties"], child(path, "additionalProperties"), false, out);
  }
}

}  // namespace

Causes compileChecks(const Json& schema, const std::string& prefix) {
  Causes out;
  if (!schema.is_object()) {
    out.push_back(requiredCause(prefix, "must be an object"));
    return out;
  }
  apiChecks(schema, prefix, true, false, "", out);
  Causes invariants;
  structural(schema, Level::kRoot, prefix, invariants);
  std::sort(invariants.begin(), invariants.end(), [](const auto& a, const auto& b) {
    return a.field + ": " + a.message < b.field + ": " + b.message;
  });
  out.insert(out.end(), invariants.begin(), invariants.end());
  if (out.empty()) defaults(schema, prefix, true, out);
  return out;
}

}  // namespace hetbench::kubesim::internal
