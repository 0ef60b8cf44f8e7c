#include "hetbench/common/json_fields.h"

#include <cmath>
#include <limits>

#include "hetbench/common/time.h"

namespace hetbench::common {

using nlohmann::json;

const json& member(const json& object, std::string_view name) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

const json& arrayMember(const json& object, std::string_view name) {
  static const json kEmpty = json::array();
  const json& v = member(object, name);
  return v.is_array() ? v : kEmpty;
}

std::string stringMember(const json& object, std::string_view name) {
  const json& v = member(object, name);
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool boolMember(const json& object, std::string_view name) {
  const json& v = member(object, name);
  return v.is_boolean() && v.get<bool>();
}

std::vector<std::string> stringList(const json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const json& item : value)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::int64_t intMember(const json& object, std::string_view name) {
  const json& v = member(object, name);
  return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

const json* presentMember(const json& object, std::string_view name) {
  const json& v = member(object, name);
  return v.is_null() ? nullptr : &v;
}

std::optional<std::int64_t> integralValue(const json& v) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(kMax) ? kMax : static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_number_float()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::trunc(d)) return std::nullopt;
  // -2^63 and 2^63 are exact doubles; every integral double between them fits.
  if (d < -9223372036854775808.0) return kMin;
  if (d >= 9223372036854775808.0) return kMax;
  return static_cast<std::int64_t>(d);
}

std::optional<WallTime> timeMember(const json& object, std::string_view name) {
  const std::string text = stringMember(object, name);
  if (text.empty()) return std::nullopt;
  Result<WallTime> parsed = parseRfc3339(text);
  if (!parsed.isOk()) return std::nullopt;
  return parsed.value();
}

}  // namespace hetbench::common
