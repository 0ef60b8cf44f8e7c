#include "server/object_meta.h"

#include <algorithm>
#include <set>

#include "apimachinery/selectors.h"
#include "hetbench/common/base64.h"
#include "server/scale.h"
#include "server/strategy.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

std::string metaString(const json& object, const char* field) {
  const json& meta = object.value("metadata", json::object());
  auto it = meta.find(field);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<common::StatusCause> validateMetadata(const ResourceType& type, const json& object) {
  std::vector<common::StatusCause> causes;
  const json& meta = object["metadata"];
  const std::string name = metaString(object, "name");
  if (name.empty()) {
    causes.push_back(common::requiredCause("metadata.name", "name or generateName is required"));
  } else {
    std::vector<common::StatusCause> nameCauses =
        validateName("metadata.name", name, strategyFor(type).nameFormat);
    causes.insert(causes.end(), nameCauses.begin(), nameCauses.end());
  }
  if (meta.contains("labels") && !meta["labels"].is_null()) {
    if (!meta["labels"].is_object()) {
      causes.push_back(common::invalidCause("metadata.labels", meta["labels"],
                                            "labels must be a map of strings"));
    } else {
      for (const auto& [key, value] : meta["labels"].items()) {
        if (!value.is_string()) {
          causes.push_back(common::invalidCause("metadata.labels", value, "must be a string"));
          continue;
        }
        for (const std::string& message : validateLabel(key, value.get<std::string>())) {
          causes.push_back({"metadata.labels", "FieldValueInvalid", message});
        }
      }
    }
  }
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    std::size_t total = 0;
    for (const auto& [key, value] : meta["annotations"].items()) {
      total += key.size() + (value.is_string() ? value.get<std::string>().size() : 0);
    }
    if (total > 256 * 1024) {
      causes.push_back({"metadata.annotations", "FieldValueTooLong",
                        "Too long: must have at most 262144 bytes"});
    }
  }
  if (meta.contains("ownerReferences") && meta["ownerReferences"].is_array()) {
    int controllers = 0;
    const json& refs = meta["ownerReferences"];
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const std::string field = "metadata.ownerReferences[" + std::to_string(i) + "]";
      const json& ref = refs[i];
      for (const char* key : {"apiVersion", "kind", "name", "uid"}) {
        if (!ref.contains(key) || !ref[key].is_string() || ref[key].get<std::string>().empty()) {
          causes.push_back(
              common::invalidCause(field + "." + key, "", std::string(key) + " must not be empty"));
        }
      }
      if (ref.value("controller", false)) ++controllers;
    }
    if (controllers > 1) {
      causes.push_back(common::invalidCause("metadata.ownerReferences", refs,
                                            "Only one reference can have Controller set to true"));
    }
  }
  return causes;
}

}  // namespace

const char* const kContinueExpired =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

std::string encodeContinue(const ContinueToken& token) {
  const json j = {
      {"v", "meta.k8s.io/v1"}, {"rv", token.resourceVersion}, {"start", token.startAfter}};
  return common::base64Encode(j.dump());
}

std::optional<ContinueToken> decodeContinue(const std::string& text) {
  std::optional<std::string> raw = common::base64Decode(text);
  if (!raw) return std::nullopt;
  json j = json::parse(*raw, nullptr, false);
  if (!j.is_object() || !j.contains("rv") || !j["rv"].is_number_unsigned() ||
      !j.contains("start") || !j["start"].is_string()) {
    return std::nullopt;
  }
  return ContinueToken{j["rv"].get<std::uint64_t>(), j["start"].get<std::string>()};
}

std::string newUid(common::RandomSource& random) {
  const std::uint64_t a = random.next();
  const std::uint64_t b = random.next();
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string generatedSuffix(common::RandomSource& random) {
  return common::shortId(random).substr(0, 5);
}

json presentObject(const ResourceType& type, json object) {
  object["kind"] = type.kind;
  object["apiVersion"] = type.apiVersion();
  return object;
}

json presentListItem(const ResourceType& type, json object) {
  if (type.isCustom()) return presentObject(type, std::move(object));
  object.erase("kind");
  object.erase("apiVersion");
  return object;
}

ApiResult<std::vector<std::string>> checkTypeMeta(const ResourceType& type, json& body) {
  if (!body.is_object()) {
    return errors::badRequest("the body of the request was in an unknown format");
  }
  const std::string kind = body.value("kind", "");
  const std::string apiVersion = body.value("apiVersion", "");
  if (type.isCustom() && kind.empty()) {
    return errors::badRequest("Object 'Kind' is missing in '" + body.dump() + "'");
  }
  if (!kind.empty() && kind != type.kind) {
    return errors::badRequest("the object provided is unrecognized (must be of type " + type.kind +
                              "): kind " + kind);
  }
  if (!apiVersion.empty() && apiVersion != type.apiVersion()) {
    return errors::badRequest("the API version in the data (" + apiVersion +
                              ") does not match the expected API version (" + type.apiVersion() +
                              ")");
  }
  body["kind"] = type.kind;
  body["apiVersion"] = type.apiVersion();
  return std::vector<std::string>{};
}

ApiResult<std::vector<std::string>> admit(const ResourceType& type, json& object, const json* old,
                                          const std::string& subresource,
                                          const WriteOptions& options, const common::Clock& clock) {
  std::vector<std::string> warnings;
  std::vector<common::StatusCause> causes;
  const std::string name = metaString(object, "name");
  if (type.isCustom()) {
    if (type.custom && type.custom->schema) {
      const StructuralSchema& schema = *type.custom->schema;
      std::vector<std::string> unknown = schema.prune(object);
      if (!unknown.empty() && options.fieldValidation != "Ignore") {
        std::string list;
        for (const std::string& path : unknown) {
          if (!list.empty()) list += ", ";
          list += "unknown field \"" + path + "\"";
          warnings.push_back("unknown field \"" + path + "\"");
        }
        if (options.fieldValidation == "Strict") {
          return errors::badRequest(type.kind + " in version \"" + type.version +
                                    "\" cannot be handled as a " + type.kind +
                                    ": strict decoding error: " + list);
        }
      }
      schema.applyDefaults(object);
      causes = schema.validate(object);
    }
    std::vector<common::StatusCause> scale =
        validateCustomResourceScale(type, object, subresource == "status");
    causes.insert(causes.end(), scale.begin(), scale.end());
    if (old == nullptr && type.hasSubresource("status")) object.erase("status");
  } else {
    const Strategy& strategy = strategyFor(type);
    if (strategy.applyDefaults != nullptr) strategy.applyDefaults(object);
    if (old == nullptr && strategy.prepareForCreate != nullptr) {
      static std::uint64_t serial = 0;
      strategy.prepareForCreate(object, AdmissionContext{clock, ++serial});
    }
    if (strategy.validate != nullptr) causes = strategy.validate(object);
    if (old != nullptr && strategy.validateUpdate != nullptr) {
      std::vector<common::StatusCause> more = strategy.validateUpdate(object, *old);
      causes.insert(causes.end(), more.begin(), more.end());
    }
  }
  std::vector<common::StatusCause> metaCauses = validateMetadata(type, object);
  metaCauses.insert(metaCauses.end(), causes.begin(), causes.end());
  if (!metaCauses.empty()) return errors::invalid(type, name, metaCauses);
  return warnings;
}

std::string newFinalizers(const json& now, const json& old) {
  std::set<std::string> before;
  for (const json& f : old["metadata"].value("finalizers", json::array())) {
    if (f.is_string()) before.insert(f.get<std::string>());
  }
  // Go's %#v of the sorted []string the API server reports.
  std::set<std::string> added;
  for (const json& f : now["metadata"].value("finalizers", json::array())) {
    if (f.is_string() && !before.count(f.get<std::string>())) added.insert(f.get<std::string>());
  }
  std::string out;
  for (const std::string& f : added) {
    if (!out.empty()) out += ", ";
    out += json(f).dump();
  }
  return "[]string{" + out + "}";
}

std::int64_t podGracePeriod(const json& pod, const DeleteOptions& options) {
  const json& spec = pod.value("spec", json::object());
  const std::string phase = pod.value("status", json::object()).value("phase", "");
  if (spec.value("nodeName", "").empty() || phase == "Succeeded" || phase == "Failed") return 0;
  if (options.gracePeriodSeconds) return *options.gracePeriodSeconds;
  return spec.value("terminationGracePeriodSeconds", std::int64_t{30});
}

}  // namespace hetbench::kubesim
