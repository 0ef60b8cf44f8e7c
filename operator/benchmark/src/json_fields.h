#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "hetbench/common/json_fields.h"

namespace hetbench::benchmark::internal {

using common::intMember;
using common::member;
using common::stringMember;

/// The first condition of `type` in status.conditions whose status is "True"; null if none.
inline const nlohmann::json& trueCondition(const nlohmann::json& status, std::string_view type) {
  static const nlohmann::json kNull;
  const nlohmann::json& conditions = member(status, "conditions");
  if (!conditions.is_array()) return kNull;
  for (const nlohmann::json& c : conditions) {
    if (stringMember(c, "type") == type && stringMember(c, "status") == "True") return c;
  }
  return kNull;
}

}  // namespace hetbench::benchmark::internal
