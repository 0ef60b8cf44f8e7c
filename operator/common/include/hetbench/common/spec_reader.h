#pragma once

// Reading a spec from untrusted JSON: typed fields, every problem a StatusCause worded as the API
// server words its field errors, collected in the order the fields are read. Shared by the
// BenchmarkRun and BenchmarkSchedule spec parsers.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
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

  const std::string* string(const std::string& field, const nlohmann::json& v) {
    if (v.is_string()) return &v.get_ref<const std::string&>();
    add(typeInvalidCause(field, v, "string"));
    return nullptr;
  }

  std::optional<bool> boolean(const std::string& field, const nlohmann::json& v) {
    if (v.is_boolean()) return v.get<bool>();
    add(typeInvalidCause(field, v, "boolean"));
    return std::nullopt;
  }

  const nlohmann::json* object(const std::string& field, const nlohmann::json& v) {
    if (v.is_object()) return &v;
    add(typeInvalidCause(field, v, "object"));
    return nullptr;
  }

  const nlohmann::json* array(const std::string& field, const nlohmann::json& v) {
    if (v.is_array()) return &v;
    add(typeInvalidCause(field, v, "array"));
    return nullptr;
  }

  /// A JSON integer, or a number with no fraction as a Go decoder may hand it over; values
  /// beyond int64 saturate so that the range check rejects them, showing their own text.
  std::optional<std::int64_t> integer(const std::string& field, const nlohmann::json& v) {
    if (std::optional<std::int64_t> n = integralValue(v)) return n;
    add(typeInvalidCause(field, v, "integer"));
    return std::nullopt;
  }

  std::optional<std::int64_t> integerIn(
      const std::string& field, const nlohmann::json& v, std::int64_t min,
      std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
    const std::optional<std::int64_t> n = integer(field, v);
    if (!n) return std::nullopt;
    if (*n < min) {
      add(invalidCause(field, v.dump(), "must be greater than or equal to " + std::to_string(min)));
      return std::nullopt;
    }
    if (*n > max) {
      add(invalidCause(field, v.dump(), "must be less than or equal to " + std::to_string(max)));
      return std::nullopt;
    }
    return n;
  }

  /// A Go duration greater than zero.
  std::optional<std::chrono::nanoseconds> duration(const std::string& field,
                                                   const nlohmann::json& v) {
    const std::string* text = string(field, v);
    if (text == nullptr) return std::nullopt;
    const Result<std::chrono::nanoseconds> d = parseDuration(*text);
    if (!d.isOk()) {
      add(invalidCause(field, quote(*text), d.status().message()));
      return std::nullopt;
    }
    if (d->count() <= 0) {
      add(invalidCause(field, quote(*text), "must be greater than zero"));
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
                      : typeInvalidCause(field, v, "string"));
    return std::nullopt;
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
