#pragma once

// Reading a spec from untrusted JSON: typed fields, every problem a StatusCause worded as the API
// server words its field errors (field_errors.h), collected in the order the fields are read.
// Shared by the BenchmarkRun and BenchmarkSchedule spec parsers and the workload renderer.

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "hetbench/common/duration.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/status.h"

namespace hetbench::common {

// Whether `value` nests at most `limit` arrays or objects deep; iterative, so that the check
// itself cannot exhaust the stack.
inline bool nestsWithin(const nlohmann::json& value, std::size_t limit) {
  std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&value, 0}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth == limit) return false;
    for (const nlohmann::json& child : *node) pending.emplace_back(&child, depth + 1);
  }
  return true;
}

/// Reads the fields of a spec, collecting one cause per problem in the order they are read.
class SpecReader {
 public:
  std::vector<StatusCause>& causes() { return causes_; }
  void add(StatusCause cause) { causes_.push_back(std::move(cause)); }

  std::optional<std::string> string(const std::string& field, const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    add(schemaTypeCause(field, v, "string"));
    return std::nullopt;
  }

  /// A string that must not be empty.
  std::optional<std::string> name(const std::string& field, const nlohmann::json& v) {
    std::optional<std::string> s = string(field, v);
    if (s && s->empty()) {
      add(requiredCause(field));
      return std::nullopt;
    }
    return s;
  }

  /// An array of strings; nullopt when any item is not one.
  std::optional<std::vector<std::string>> strings(const std::string& field,
                                                  const nlohmann::json& v) {
    if (array(field, v) == nullptr) return std::nullopt;
    std::vector<std::string> out;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::optional<std::string> s = string(field + "[" + std::to_string(i) + "]", v[i]);
      if (s) out.push_back(std::move(*s));
      ok = ok && s.has_value();
    }
    if (!ok) return std::nullopt;
    return out;
  }

  std::optional<bool> boolean(const std::string& field, const nlohmann::json& v) {
    if (v.is_boolean()) return v.get<bool>();
    add(schemaTypeCause(field, v, "boolean"));
    return std::nullopt;
  }

  const nlohmann::json* object(const std::string& field, const nlohmann::json& v) {
    if (v.is_object()) return &v;
    add(schemaTypeCause(field, v, "object"));
    return nullptr;
  }

  const nlohmann::json* array(const std::string& field, const nlohmann::json& v) {
    if (v.is_array()) return &v;
    add(schemaTypeCause(field, v, "array"));
    return nullptr;
  }

  /// A JSON integer, or a number with no fraction as a Go decoder may hand it over; values
  /// beyond int64 saturate so that the range check rejects them, showing their own text.
  std::optional<std::int64_t> integer(const std::string& field, const nlohmann::json& v) {
    if (std::optional<std::int64_t> n = integralValue(v)) return n;
    add(schemaTypeCause(field, v, "integer"));
    return std::nullopt;
  }

  std::optional<std::int64_t> integerIn(
      const std::string& field, const nlohmann::json& v, std::int64_t min,
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    const std::optional<std::int64_t> n = integer(field, v);
    if (!n) return std::nullopt;
    if (*n < min) {
      add(invalidCause(field, v, "must be greater than or equal to " + std::to_string(min)));
      return std::nullopt;
    }
    if (*n > max) {
      add(invalidCause(field, v, "must be less than or equal to " + std::to_string(max)));
      return std::nullopt;
    }
    return n;
  }

  /// A Go duration greater than zero.
  std::optional<std::chrono::nanoseconds> duration(const std::string& field,
                                                   const nlohmann::json& v) {
    const std::optional<std::string> text = string(field, v);
    if (!text) return std::nullopt;
    const Result<std::chrono::nanoseconds> d = parseDuration(*text);
    if (!d.isOk()) {
      add(invalidCause(field, *text, d.status().message()));
      return std::nullopt;
    }
    if (d->count() <= 0) {
      add(invalidCause(field, *text, "must be greater than zero"));
      return std::nullopt;
    }
    return *d;
  }

  /// One of `values`, matched by their toString() spelling.
  template <typename Values>
  auto oneOf(const std::string& field, const nlohmann::json& v, const Values& values)
      -> std::optional<std::decay_t<decltype(*std::begin(values))>> {
    std::vector<std::string> spellings;
    for (const auto& e : values) {
      spellings.push_back(toString(e));
      if (v.is_string() && spellings.back() == v.get_ref<const std::string&>()) return e;
    }
    add(v.is_string() ? notSupportedCause(field, v, spellings)
                      : schemaTypeCause(field, v, "string"));
    return std::nullopt;
  }

  /// One of the strings `supported`.
  std::optional<std::string> oneOf(const std::string& field, const nlohmann::json& v,
                                   std::initializer_list<std::string_view> supported) {
    std::optional<std::string> s = string(field, v);
    if (!s) return std::nullopt;
    for (std::string_view allowed : supported) {
      if (*s == allowed) return s;
    }
    add(notSupportedCause(field, v, {supported.begin(), supported.end()}));
    return std::nullopt;
  }

  /// An int-or-string field as Kubernetes quantities of items take it: an integer, or a string
  /// of decimal digits, at least `minimum`.
  std::optional<std::int64_t> intOrString(const std::string& field, const nlohmann::json& v,
                                          std::int64_t minimum) {
    constexpr std::string_view kTooLarge = "must be no more than 9223372036854775807";
    std::int64_t n = 0;
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      add(invalidCause(field, v, kTooLarge));
      return std::nullopt;
    }
    if (v.is_number_integer()) {
      n = v.get<std::int64_t>();
    } else if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
        add(invalidCause(field, v, "must be an integer or a string of decimal digits"));
        return std::nullopt;
      }
      if (std::from_chars(s.data(), s.data() + s.size(), n).ec != std::errc()) {
        add(invalidCause(field, v, kTooLarge));
        return std::nullopt;
      }
    } else {
      add(schemaTypeCause(field, v, "integer or string"));
      return std::nullopt;
    }
    if (n < minimum) {
      add(invalidCause(field, n, "must be greater than or equal to " + std::to_string(minimum)));
      return std::nullopt;
    }
    return n;
  }

  /// An object whose values satisfy `valueOk`, else a type cause per value naming `type`.
  template <typename Pred>
  bool mapOf(const std::string& field, const nlohmann::json& v, Pred valueOk,
             std::string_view type) {
    if (object(field, v) == nullptr) return false;
    bool ok = true;
    for (const auto& [key, value] : v.items()) {
      if (valueOk(value)) continue;
      add(schemaTypeCause(field + "[" + key + "]", value, type));
      ok = false;
    }
    return ok;
  }

  /// An array of objects.
  bool objects(const std::string& field, const nlohmann::json& v) {
    if (array(field, v) == nullptr) return false;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i)
      ok = object(field + "[" + std::to_string(i) + "]", v[i]) != nullptr && ok;
    return ok;
  }

  /// An object or array that nests at most `limit` deep.
  bool shallow(const std::string& field, const nlohmann::json& v, std::size_t limit) {
    if (nestsWithin(v, limit)) return true;
    add(forbiddenCause(field, "must not nest more than " + std::to_string(limit) + " levels deep"));
    return false;
  }

 private:
  std::vector<StatusCause> causes_;
};

}  // namespace hetbench::common
