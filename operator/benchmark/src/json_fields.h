#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hetbench::benchmark::internal {

/// Accessors that never throw: objects read here come from users or other controllers and may
/// hold anything. A missing member, or a parent that is not an object, reads as null.
inline const nlohmann::json& member(const nlohmann::json& object, std::string_view name) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

inline std::string stringMember(const nlohmann::json& object, std::string_view name) {
  const nlohmann::json& v = member(object, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}

/// Integers only (a float or a string reads as 0), as status counters are written.
inline std::int64_t intMember(const nlohmann::json& object, std::string_view name) {
  const nlohmann::json& v = member(object, name);
  return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

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
