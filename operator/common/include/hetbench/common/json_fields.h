#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"

namespace hetbench::common {

// Accessors that never throw: the objects read through them come from users, other
// controllers or the API server, and may hold anything.

/// A member of an object; null when it is absent or `object` is not an object.
const nlohmann::json& member(const nlohmann::json& object, std::string_view name);
/// An array member; an empty array when it is absent or not an array.
const nlohmann::json& arrayMember(const nlohmann::json& object, std::string_view name);
/// A string member, or "" when it is absent or not a string.
std::string stringMember(const nlohmann::json& object, std::string_view name);
/// A boolean member, or false when it is absent or not a boolean.
bool boolMember(const nlohmann::json& object, std::string_view name);
/// The strings of an array, other items skipped; empty when `value` is not an array.
std::vector<std::string> stringList(const nlohmann::json& value);
/// An integer member, or 0 when it is absent or not an integer (a float or a string).
std::int64_t intMember(const nlohmann::json& object, std::string_view name);
/// A member that is present and not null, else nullptr: the API server drops the nulls of
/// fields that are not nullable, so spec readers treat a null as absent.
const nlohmann::json* presentMember(const nlohmann::json& object, std::string_view name);
/// A JSON integer, or a number with no fraction as a Go decoder may hand it over; values
/// beyond int64 saturate (so that a range check rejects them). nullopt for anything else.
std::optional<std::int64_t> integralValue(const nlohmann::json& v);
/// An RFC 3339 time member (metav1.Time), or nullopt when it is absent or not such a time.
std::optional<WallTime> timeMember(const nlohmann::json& object, std::string_view name);

}  // namespace hetbench::common
