#pragma once

// The workload reader of render.cc: typed fields read from untrusted JSON, every problem a
// StatusCause worded as the API server's OpenAPI validator and field.Error word theirs, so that
// a workload rejected after substitution reads like one the API server rejected.

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::benchmark::internal {

using common::StatusCause;
using nlohmann::json;

// Field errors worded as Kubernetes' field.Error prints them, so that a run rejected here reads
// like one the API server rejected.

// A value as Go's %q shows it (bytes from 0x80 up pass through).
inline std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      std::array<char, 5> hex{};
      std::snprintf(hex.data(), hex.size(), "\\x%02x", c);
      out += hex.data();
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

inline std::string shown(const json& value) {
  if (value.is_string()) return goQuote(value.get_ref<const std::string&>());
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

inline std::string typeName(const json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

inline StatusCause requiredCause(std::string field, std::string_view detail = {}) {
  std::string message = "Required value";
  if (!detail.empty()) message += ": " + std::string(detail);
  return {std::move(field), "FieldValueRequired", std::move(message)};
}

inline StatusCause invalidCause(std::string field, const json& value, std::string_view detail) {
  return {std::move(field), "FieldValueInvalid",
          "Invalid value: " + shown(value) + ": " + std::string(detail)};
}

// The OpenAPI validator's wording, as for a CRD field of the wrong type.
inline StatusCause typeCause(std::string field, const json& value, std::string_view type) {
  const std::string got = goQuote(typeName(value));
  std::string message = "Invalid value: " + got + ": " + field + " in body must be of type " +
                        std::string(type) + ": " + got;
  return {std::move(field), "FieldValueTypeInvalid", std::move(message)};
}

inline StatusCause notSupportedCause(std::string field, const json& value,
                                     const std::vector<std::string_view>& supported) {
  std::string message = "Unsupported value: " + shown(value) + ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) message += ", ";
    message += goQuote(supported[i]);
  }
  return {std::move(field), "FieldValueNotSupported", std::move(message)};
}

inline StatusCause forbiddenCause(std::string field, std::string_view detail) {
  return {std::move(field), "FieldValueForbidden", "Forbidden: " + std::string(detail)};
}

inline StatusCause duplicateCause(std::string field, const json& value) {
  return {std::move(field), "FieldValueDuplicate", "Duplicate value: " + shown(value)};
}

inline common::Status invalidFields(const std::string& path, std::vector<StatusCause> causes) {
  return common::invalidError(path + " is invalid", std::move(causes));
}

inline std::string indexed(const std::string& field, std::size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

// Reads typed fields and collects a cause for every problem rather than stopping at the first.
// Each reader takes a value that is present (not null) and answers nullopt after adding a cause.
class FieldReader {
 public:
  std::vector<StatusCause>& causes() { return causes_; }
  void add(StatusCause cause) { causes_.push_back(std::move(cause)); }

  bool object(const json& v, const std::string& field) {
    if (v.is_object()) return true;
    add(typeCause(field, v, "object"));
    return false;
  }

  bool array(const json& v, const std::string& field) {
    if (v.is_array()) return true;
    add(typeCause(field, v, "array"));
    return false;
  }

  std::optional<std::string> string(const json& v, const std::string& field) {
    if (v.is_string()) return v.get<std::string>();
    add(typeCause(field, v, "string"));
    return std::nullopt;
  }

  std::optional<bool> boolean(const json& v, const std::string& field) {
    if (v.is_boolean()) return v.get<bool>();
    add(typeCause(field, v, "boolean"));
    return std::nullopt;
  }

  // A string that must not be empty.
  std::optional<std::string> name(const json& v, const std::string& field) {
    std::optional<std::string> s = string(v, field);
    if (s && s->empty()) {
      add(requiredCause(field));
      return std::nullopt;
    }
    return s;
  }

  std::optional<std::string> oneOf(const json& v, const std::string& field,
                                   const std::vector<std::string_view>& supported) {
    std::optional<std::string> s = string(v, field);
    if (!s) return std::nullopt;
    for (std::string_view allowed : supported) {
      if (*s == allowed) return s;
    }
    add(notSupportedCause(field, v, supported));
    return std::nullopt;
  }

  // An int-or-string field: an integer, or a string of decimal digits.
  std::optional<std::int64_t> integer(const json& v, const std::string& field,
                                      std::int64_t minimum) {
    std::int64_t n = 0;
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      add(invalidCause(field, v, "must be no more than 9223372036854775807"));
      return std::nullopt;
    }
    if (v.is_number_integer()) {
      n = v.get<std::int64_t>();
    } else if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
      if (!digits) {
        add(invalidCause(field, v, "must be an integer or a string of decimal digits"));
        return std::nullopt;
      }
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (ec != std::errc()) {
        add(invalidCause(field, v, "must be no more than 9223372036854775807"));
        return std::nullopt;
      }
    } else {
      add(typeCause(field, v, "integer or string"));
      return std::nullopt;
    }
    if (n < minimum) {
      add(invalidCause(field, n, "must be greater than or equal to " + std::to_string(minimum)));
      return std::nullopt;
    }
    return n;
  }

  std::optional<std::vector<std::string>> strings(const json& v, const std::string& field) {
    if (!array(v, field)) return std::nullopt;
    std::vector<std::string> out;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::optional<std::string> s = string(v[i], indexed(field, i));
      if (s) out.push_back(std::move(*s));
      ok = ok && s.has_value();
    }
    if (!ok) return std::nullopt;
    return out;
  }

  // An object whose values satisfy `valueOk` (else a type cause naming `type`).
  template <typename Pred>
  bool mapOf(const json& v, const std::string& field, Pred valueOk, std::string_view type) {
    if (!object(v, field)) return false;
    bool ok = true;
    for (const auto& [key, value] : v.items()) {
      if (valueOk(value)) continue;
      add(typeCause(field + "[" + key + "]", value, type));
      ok = false;
    }
    return ok;
  }

  // An array of objects.
  bool objects(const json& v, const std::string& field) {
    if (!array(v, field)) return false;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) ok = object(v[i], indexed(field, i)) && ok;
    return ok;
  }

 private:
  std::vector<StatusCause> causes_;
};

}  // namespace hetbench::benchmark::internal
