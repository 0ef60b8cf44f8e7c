// Server-side Table output for custom resources (apiextensions tableconvertor plus the
// includeObject handling of the generic API handler).

#include <cmath>
#include <limits>

#include "hetbench/common/time.h"
#include "schema/jsonpath.h"
#include "schema/schema_internal.h"

namespace hetbench::kubesim {
namespace {

using Json = nlohmann::json;

const char kNameDescription[] =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

const char kCreationTimestampDescription[] =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

// k8s.io/apimachinery/pkg/util/duration.HumanDuration.
std::string humanDuration(std::chrono::nanoseconds d) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const auto minutes = seconds / 60;
  if (minutes < 10) {
    const auto s = seconds % 60;
    return std::to_string(minutes) + "m" + (s == 0 ? "" : std::to_string(s) + "s");
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const auto hours = seconds / 3600;
  if (hours < 8) {
    const auto m = minutes % 60;
    return std::to_string(hours) + "h" + (m == 0 ? "" : std::to_string(m) + "m");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const auto h = hours % 24;
    return std::to_string(hours / 24) + "d" + (h == 0 ? "" : std::to_string(h) + "h");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const auto days = (hours / 24) % 365;
    return std::to_string(hours / 24 / 365) + "y" + (days == 0 ? "" : std::to_string(days) + "d");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

// A float64 cell encodes like Go's encoding/json: integral values without a fraction.
Json floatCell(double v) {
  if (std::trunc(v) == v && std::abs(v) < 1e15) return static_cast<std::int64_t>(v);
  return v;
}

Json cellFor(const std::string& type, const Json& value, common::WallTime now) {
  if (value.is_null()) return nullptr;
  if (type == "string") {
    if (value.is_string()) return value;
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number()) return internal::goNumber(value);
    return value.dump();
  }
  if (type == "integer" && value.is_number()) {
    if (value.is_number_float()) return static_cast<std::int64_t>(value.get<double>());
    return value;
  }
  if (type == "number" && value.is_number()) return floatCell(internal::asDouble(value));
  if (type == "boolean" && value.is_boolean()) return value;
  if (type == "date" && value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text.empty() || text == "null") return "<unknown>";
    auto parsed = common::parseRfc3339(text);
    if (!parsed.isOk()) return "<invalid>";
    return humanDuration(now - *parsed);
  }
  return nullptr;
}

Json rowObject(const Json& object, std::string_view includeObject) {
  if (includeObject == "Object") return object;
  if (includeObject == "None") return nullptr;
  return Json{{"kind", "PartialObjectMetadata"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", object.value("metadata", Json::object())}};
}

}  // namespace

common::Result<nlohmann::json> buildCustomResourceTable(const std::vector<PrinterColumn>& columns,
                                                        const std::vector<nlohmann::json>& objects,
                                                        const nlohmann::json& listMeta,
                                                        std::string_view includeObject,
                                                        common::WallTime now) {
  if (includeObject != "" && includeObject != "Metadata" && includeObject != "Object" &&
      includeObject != "None") {
    return common::invalidError("unrecognized includeObject value: " +
                                internal::goQuote(includeObject));
  }
  std::vector<PrinterColumn> effective = columns;
  if (effective.empty()) {
    effective.push_back(
        {"Age", "date", "", kCreationTimestampDescription, 0, ".metadata.creationTimestamp"});
  }
  try {
    Json definitions = Json::array();
    definitions.push_back({{"name", "Name"},
                           {"type", "string"},
                           {"format", "name"},
                           {"description", kNameDescription},
                           {"priority", 0}});
    std::vector<JsonPath> paths;
    for (const auto& column : effective) {
      auto path = JsonPath::parse(column.jsonPath);
      if (!path.isOk()) {
        return common::invalidError("unrecognized column definition " +
                                    internal::goQuote(column.jsonPath));
      }
      paths.push_back(std::move(path).value());
      const std::string description =
          column.description.empty()
              ? "Custom resource definition column (in JSONPath format): " + column.jsonPath
              : column.description;
      definitions.push_back({{"name", column.name},
                             {"type", column.type},
                             {"format", column.format},
                             {"description", description},
                             {"priority", column.priority}});
    }
    Json rows = Json::array();
    for (const auto& object : objects) {
      Json cells = Json::array();
      const Json& metadata = object.contains("metadata") ? object["metadata"] : Json::object();
      cells.push_back(metadata.is_object() ? metadata.value("name", "") : "");
      for (std::size_t i = 0; i < effective.size(); ++i) {
        const auto results = paths[i].evaluate(object);
        cells.push_back(results.empty() ? Json() : cellFor(effective[i].type, results[0], now));
      }
      rows.push_back({{"cells", std::move(cells)}, {"object", rowObject(object, includeObject)}});
    }
    Json meta = Json::object();
    if (listMeta.is_object()) {
      for (const char* key : {"resourceVersion", "continue", "remainingItemCount"}) {
        if (listMeta.contains(key) && !listMeta[key].is_null() && listMeta[key] != "") {
          meta[key] = listMeta[key];
        }
      }
    }
    return Json{{"kind", "Table"},
                {"apiVersion", "meta.k8s.io/v1"},
                {"metadata", std::move(meta)},
                {"columnDefinitions", std::move(definitions)},
                {"rows", std::move(rows)}};
  } catch (const nlohmann::json::exception& e) {
    return common::internalError(std::string("building table: ") + e.what());
  }
}

}  // namespace hetbench::kubesim
