#include "server/scale.h"

#include <cstdint>
#include <limits>

#include "apimachinery/selectors.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

// What ScaleREST passes through a patch when a custom resource has no spec replicas: the
// smallest int32, which no client sends on purpose.
constexpr std::int64_t kUnsetReplicas = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMaxReplicas = std::numeric_limits<std::int32_t>::max();

// Where a resource keeps what its Scale shows.
struct ScaleFields {
  std::string specReplicas;    // ".spec.replicas"
  std::string statusReplicas;  // ".status.replicas"
  std::string labelSelector;   // a custom resource's selector string; empty: none
  bool builtin = false;        // a Deployment or ReplicaSet: spec.selector is a LabelSelector
};

std::optional<ScaleFields> scaleFieldsOf(const ResourceType& type) {
  if (!type.isCustom()) {
    if (type.group == "apps" &&
        (type.resource == "deployments" || type.resource == "replicasets")) {
      return ScaleFields{".spec.replicas", ".status.replicas", "", true};
    }
    return std::nullopt;
  }
  if (!type.custom || !type.custom->scale) return std::nullopt;
  const CustomResourceScale& scale = *type.custom->scale;
  return ScaleFields{scale.specReplicasPath, scale.statusReplicasPath, scale.labelSelectorPath,
                     false};
}

// A path as the CRD writes it, ".spec.replicas", as the fields it names.
std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> fields;
  std::size_t start = path.empty() || path[0] != '.' ? 0 : 1;
  while (true) {
    const std::size_t dot = path.find('.', start);
    fields.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) return fields;
    start = dot + 1;
  }
}

std::string jsonPath(const std::vector<std::string>& fields, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += "." + fields[i];
  return out;
}

// A JSON value as Go's %v and %T show it once decoded into an interface{}.
std::string goValue(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "<nil>";
  return v.dump();
}
std::string goType(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "int64";
  if (v.is_number()) return "float64";
  if (v.is_object()) return "map[string]interface {}";
  if (v.is_array()) return "[]interface {}";
  return "<nil>";
}

// unstructured.NestedFieldNoCopy: the value at `path`, nullptr when absent, or the accessor
// error when the path crosses something that is not an object.
common::Result<const json*> nestedField(const json& object, const std::string& path) {
  const std::vector<std::string> fields = splitPath(path);
  const json* value = &object;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (value->is_null()) return static_cast<const json*>(nullptr);
    if (!value->is_object()) {
      return common::internalError(jsonPath(fields, i + 1) + " accessor error: " + goValue(*value) +
                                   " is of the type " + goType(*value) +
                                   ", expected map[string]interface{}");
    }
    auto it = value->find(fields[i]);
    if (it == value->end()) return static_cast<const json*>(nullptr);
    value = &*it;
  }
  return value;
}

// unstructured.NestedInt64: nullopt when absent.
common::Result<std::optional<std::int64_t>> nestedInt(const json& object, const std::string& path) {
  common::Result<const json*> value = nestedField(object, path);
  if (!value.isOk()) return value.status();
  if (*value == nullptr) return std::optional<std::int64_t>();
  if (!(*value)->is_number_integer()) {
    return common::internalError(jsonPath(splitPath(path), splitPath(path).size()) +
                                 " accessor error: " + goValue(**value) + " is of the type " +
                                 goType(**value) + ", expected int64");
  }
  return std::optional<std::int64_t>((*value)->get<std::int64_t>());
}

// unstructured.NestedString: "" when absent.
common::Result<std::string> nestedString(const json& object, const std::string& path) {
  common::Result<const json*> value = nestedField(object, path);
  if (!value.isOk()) return value.status();
  if (*value == nullptr) return std::string();
  if (!(*value)->is_string()) {
    return common::internalError(jsonPath(splitPath(path), splitPath(path).size()) +
                                 " accessor error: " + goValue(**value) + " is of the type " +
                                 goType(**value) + ", expected string");
  }
  return (*value)->get<std::string>();
}

// The Scale of `object`; `unsetReplicas` is the spec.replicas of a custom resource without
// them.
ApiResult<json> buildScale(const ResourceType& type, const json& object,
                           std::optional<std::int64_t> unsetReplicas) {
  const std::optional<ScaleFields> fields = scaleFieldsOf(type);
  if (!fields) return errors::pathNotFound();
  std::int64_t specReplicas = 0;
  std::int64_t statusReplicas = 0;
  std::string selector;
  if (fields->builtin) {
    const json& spec = common::member(object, "spec");
    specReplicas = common::integralValue(common::member(spec, "replicas")).value_or(1);
    statusReplicas = common::intMember(common::member(object, "status"), "replicas");
    common::Result<LabelSelector> parsed =
        LabelSelector::fromJson(common::member(spec, "selector"));
    if (!parsed.isOk()) return errors::internal(parsed.status().message());
    selector = parsed->toString();
  } else {
    common::Result<std::optional<std::int64_t>> spec = nestedInt(object, fields->specReplicas);
    if (!spec.isOk()) return errors::internal(spec.status().message());
    if (!*spec && !unsetReplicas) {
      return errors::internal("the spec replicas field \"" + fields->specReplicas +
                              "\" does not exist");
    }
    specReplicas = spec->value_or(unsetReplicas.value_or(0));
    common::Result<std::optional<std::int64_t>> status = nestedInt(object, fields->statusReplicas);
    if (!status.isOk()) return errors::internal(status.status().message());
    statusReplicas = status->value_or(0);
    if (!fields->labelSelector.empty()) {
      common::Result<std::string> text = nestedString(object, fields->labelSelector);
      if (!text.isOk()) return errors::internal(text.status().message());
      selector = *text;
    }
  }
  const json& meta = common::member(object, "metadata");
  json scaleMeta = json::object();
  for (const char* field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(field)) scaleMeta[field] = meta[field];
  }
  // ScaleSpec.replicas is omitempty; ScaleStatus.replicas is not.
  json spec = json::object();
  if (specReplicas != 0) spec["replicas"] = specReplicas;
  json status = {{"replicas", statusReplicas}};
  if (!selector.empty()) status["selector"] = selector;
  return json{{"kind", "Scale"},
              {"apiVersion", "autoscaling/v1"},
              {"metadata", scaleMeta},
              {"spec", spec},
              {"status", status}};
}

// How encoding/json names a JSON value that does not fit an int32.
std::string unmarshalled(const json& v) {
  if (v.is_number()) return "number " + v.dump();
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  return "object";
}

}  // namespace

ResourceType scaleType(const ResourceType& parent) {
  ResourceType t;
  t.group = "autoscaling";
  t.version = "v1";
  t.resource = parent.resource;
  t.kind = "Scale";
  t.singular = "scale";
  t.namespaced = parent.namespaced;
  return t;
}

ApiResult<json> scaleOf(const ResourceType& type, const json& object) {
  return buildScale(type, object, std::nullopt);
}

ApiResult<json> scaleForUpdate(const ResourceType& type, const json& object) {
  return buildScale(type, object, kUnsetReplicas);
}

std::optional<ApiError> validateScale(const ResourceType& type, const std::string& name,
                                      const json& scale) {
  const json& replicas = common::member(common::member(scale, "spec"), "replicas");
  if (replicas.is_null()) return std::nullopt;
  if (!replicas.is_number_integer() || replicas.get<std::int64_t>() < kUnsetReplicas ||
      replicas.get<std::int64_t>() > kMaxReplicas) {
    return errors::badRequest(
        "Scale in version \"v1\" cannot be handled as a Scale: json: "
        "cannot unmarshal " +
        unmarshalled(replicas) + " into Go struct field ScaleSpec.spec.replicas of type int32");
  }
  const std::int64_t value = replicas.get<std::int64_t>();
  // A custom resource's ScaleREST leaves the rest to the resource's own validation.
  if (type.isCustom()) {
    if (value != kUnsetReplicas) return std::nullopt;
    return errors::badRequest("the spec replicas field \"" + scaleFieldsOf(type)->specReplicas +
                              "\" cannot be empty");
  }
  if (value >= 0) return std::nullopt;
  return errors::invalid(
      scaleType(type), name,
      {common::invalidCause("spec.replicas", value, "must be greater than or equal to 0")});
}

std::optional<ApiError> setReplicasFromScale(const ResourceType& type, const json& scale,
                                             json& object) {
  const std::optional<ScaleFields> fields = scaleFieldsOf(type);
  if (!fields) return errors::pathNotFound();
  const json& replicas = common::member(common::member(scale, "spec"), "replicas");
  const std::int64_t value = replicas.is_number_integer() ? replicas.get<std::int64_t>() : 0;
  // unstructured.SetNestedField: missing or null objects on the way are created.
  const std::vector<std::string> path = splitPath(fields->specReplicas);
  json* at = &object;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    json& next = (*at)[path[i]];
    if (next.is_null()) next = json::object();
    if (!next.is_object()) {
      return errors::internal("value cannot be set because " + jsonPath(path, i + 1) +
                              " is not a map[string]interface{}");
    }
    at = &next;
  }
  (*at)[path.back()] = value;
  return std::nullopt;
}

std::vector<common::StatusCause> validateCustomResourceScale(const ResourceType& type,
                                                             const json& object, bool statusOnly) {
  std::vector<common::StatusCause> causes;
  const std::optional<ScaleFields> fields = scaleFieldsOf(type);
  if (!fields || fields->builtin) return causes;
  auto checkReplicas = [&](const std::string& path) {
    common::Result<std::optional<std::int64_t>> value = nestedInt(object, path);
    if (!value.isOk()) {
      causes.push_back(common::invalidCause(path, 0, value.status().message()));
    } else if (value->value_or(0) < 0) {
      causes.push_back(common::invalidCause(path, **value, "should be a non-negative integer"));
    } else if (value->value_or(0) > kMaxReplicas) {
      causes.push_back(
          common::invalidCause(path, **value, "should be less than or equal to 2147483647"));
    }
  };
  if (!statusOnly) checkReplicas(fields->specReplicas);
  checkReplicas(fields->statusReplicas);
  if (!fields->labelSelector.empty()) {
    common::Result<std::string> selector = nestedString(object, fields->labelSelector);
    if (!selector.isOk()) {
      causes.push_back(
          common::invalidCause(fields->labelSelector, "", selector.status().message()));
    }
  }
  return causes;
}

}  // namespace hetbench::kubesim
