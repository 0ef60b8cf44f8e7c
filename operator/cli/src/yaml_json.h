#pragma once

// YAML documents as JSON, with the YAML 1.2 core schema's plain scalars (null, booleans,
// integers, floats; everything else, and every quoted scalar, a string), as Kubernetes clients
// turn manifests into JSON. Internal to the CLI.

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::cli::internal {

/// Every document of `text`; Invalid with the parser's line and column for malformed YAML.
common::Result<std::vector<nlohmann::json>> yamlDocuments(std::string_view text);

}  // namespace hetbench::cli::internal
