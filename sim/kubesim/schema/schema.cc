#include "schema/schema.h"

#include <algorithm>

#include "schema/schema_internal.h"

namespace hetbench::kubesim {

common::Result<StructuralSchema> StructuralSchema::compile(const nlohmann::json& openApiV3Schema,
                                                           const std::string& fieldPrefix) {
  std::vector<common::StatusCause> causes;
  try {
    causes = internal::compileChecks(openApiV3Schema, fieldPrefix);
  } catch (const nlohmann::json::exception& e) {
    return common::invalidError(fieldPrefix + ": malformed schema: " + e.what());
  }
  if (!causes.empty()) {
    std::string message;
    for (const auto& cause : causes) {
      message += (message.empty() ? "" : ", ") + cause.field + ": " + cause.message;
    }
    if (causes.size() > 1) message = "[" + message + "]";
    return common::invalidError(message, std::move(causes));
  }
  StructuralSchema schema;
  schema.schema_ = std::make_shared<const nlohmann::json>(openApiV3Schema);
  return schema;
}

void StructuralSchema::applyDefaults(nlohmann::json& object) const {
  if (!schema_) return;
  try {
    internal::defaultValue(object, schema_.get());
  } catch (const nlohmann::json::exception&) {
    // A schema that compiled has the shapes the walker expects; nothing to report here.
  }
}

std::vector<std::string> StructuralSchema::prune(nlohmann::json& object) const {
  std::vector<std::string> pruned;
  try {
    internal::pruneValue(object, schema_.get(), true, "", pruned);
    // The server walks Go maps in random order; a sorted list keeps responses stable.
    std::sort(pruned.begin(), pruned.end());
  } catch (const nlohmann::json::exception&) {
    return pruned;
  }
  return pruned;
}

std::vector<common::StatusCause> StructuralSchema::validate(const nlohmann::json& object) const {
  std::vector<common::StatusCause> causes;
  if (!schema_) return causes;
  try {
    internal::validateValue(*schema_, object, "", "", causes);
    internal::validateListTypes(*schema_, object, "", causes);
  } catch (const nlohmann::json::exception& e) {
    causes.push_back({"", "InternalError", std::string("Internal error: ") + e.what()});
  }
  return causes;
}

const nlohmann::json* StructuralSchema::at(const std::string& dottedPath) const {
  const nlohmann::json* node = schema_.get();
  std::size_t start = 0;
  while (node != nullptr && start <= dottedPath.size() && !dottedPath.empty()) {
    const std::size_t dot = dottedPath.find('.', start);
    const std::string part =
        dottedPath.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const auto props = node->find("properties");
    if (props != node->end() && props->is_object() && props->contains(part)) {
      node = &(*props)[part];
    } else if (node->contains("additionalProperties") &&
               (*node)["additionalProperties"].is_object()) {
      node = &(*node)["additionalProperties"];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

}  // namespace hetbench::kubesim
