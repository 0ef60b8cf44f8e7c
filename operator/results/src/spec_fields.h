#pragma once

// What the readers of spec.metrics and spec.references share.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::results::internal {

inline constexpr std::string_view kMetricNameRule =
    "a metric name must start with a letter or '_', contain only letters, digits and '_', and "
    "have at most 63 characters";

/// A member of an object; nullptr when absent or null (common::presentMember).
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  return common::presentMember(object, key);
}

/// The one of `values` whose toString() spelling `v` is; else a cause (not supported, or not a
/// string) and nullopt.
template <typename Enum, std::size_t N>
std::optional<Enum> oneOf(const nlohmann::json& v, const Enum (&values)[N],
                          const std::string& field, std::vector<common::StatusCause>& causes) {
  std::vector<std::string> spellings;
  for (Enum e : values) {
    spellings.push_back(toString(e));
    if (v.is_string() && v == spellings.back()) return e;
  }
  causes.push_back(v.is_string() ? common::notSupportedCause(field, v, spellings)
                                 : common::schemaTypeCause(field, v, "string"));
  return std::nullopt;
}

}  // namespace hetbench::results::internal
