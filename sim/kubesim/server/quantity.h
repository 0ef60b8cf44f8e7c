#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace hetbench::kubesim {

/// A resource.Quantity ("500m", "2", "1Gi", "1.5G", "1e3") in thousandths of a unit, the
/// resolution the scheduler needs for CPU; nullopt when malformed or out of range.
std::optional<std::int64_t> parseQuantityMilli(std::string_view text);
/// The same for a JSON value (a string, or a number as YAML may give).
std::optional<std::int64_t> quantityMilli(const nlohmann::json& value);

}  // namespace hetbench::kubesim
