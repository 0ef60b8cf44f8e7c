#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::common {

/// How YAML scalars become JSON.
enum class YamlScalars {
  /// Plain scalars by the YAML 1.2 core schema (null, booleans, integers, floats), as Kubernetes
  /// clients turn manifests into JSON; quoted or tagged ones stay strings.
  kTyped,
  /// Every scalar a string, for formats that read their values themselves.
  kStrings,
};

/// Every non-empty document of `text` (documents separated by `---`) as JSON. Invalid with the
/// parser's message, which names the line and column, when `text` is not YAML. Never throws.
Result<std::vector<nlohmann::json>> yamlDocuments(std::string_view text,
                                                  YamlScalars scalars = YamlScalars::kTyped);

}  // namespace hetbench::common
