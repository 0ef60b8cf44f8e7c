#pragma once

// Field errors worded as the Kubernetes API server words its StatusCauses (apimachinery's
// field.Error), so that a spec the controller rejects reads like one the server rejected.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::common {

/// `text` as a double-quoted JSON string (close to Go's %q), cut at a UTF-8 boundary after
/// 80 bytes so that a hostile value cannot blow up a condition message; invalid UTF-8 is
/// replaced, never thrown on.
inline std::string quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 80;
  std::string shown;
  if (text.size() <= kMaxShown) {
    shown = text;
  } else {
    std::size_t end = kMaxShown;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    shown = text.substr(0, end);
    shown += "...";
  }
  return nlohmann::json(std::move(shown))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The JSON type of a value as the API server names it in type errors.
inline std::string typeName(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_float()) return "number";
  if (v.is_number()) return "integer";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "binary";
}

/// A value in a message: strings quoted, numbers and booleans as JSON writes them, containers
/// by their type.
inline std::string shown(const nlohmann::json& v) {
  if (v.is_string()) return quote(v.get_ref<const std::string&>());
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return quote(typeName(v));
}

inline std::string withDetail(std::string head, std::string_view detail) {
  if (!detail.empty()) {
    head += ": ";
    head += detail;
  }
  return head;
}

inline StatusCause requiredCause(std::string field, std::string_view detail = {}) {
  return {std::move(field), "FieldValueRequired", withDetail("Required value", detail)};
}

inline StatusCause forbiddenCause(std::string field, std::string_view detail) {
  return {std::move(field), "FieldValueForbidden", withDetail("Forbidden", detail)};
}

/// `shownValue` is already formatted (see shown() and quote()).
inline StatusCause invalidCause(std::string field, const std::string& shownValue,
                                std::string_view detail) {
  return {std::move(field), "FieldValueInvalid",
          withDetail("Invalid value: " + shownValue, detail)};
}

/// `expected` is the type the field needs ("integer", "integer or string").
inline StatusCause typeInvalidCause(std::string field, const nlohmann::json& value,
                                    std::string_view expected) {
  return {
      std::move(field), "FieldValueTypeInvalid",
      "Invalid value: " + quote(typeName(value)) + ": must be of type " + std::string(expected)};
}

inline StatusCause notSupportedCause(std::string field, const nlohmann::json& value,
                                     const std::vector<std::string>& supported) {
  std::string detail = "supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += quote(supported[i]);
  }
  return {std::move(field), "FieldValueNotSupported",
          withDetail("Unsupported value: " + shown(value), detail)};
}

inline StatusCause duplicateCause(std::string field, const std::string& shownValue) {
  return {std::move(field), "FieldValueDuplicate", "Duplicate value: " + shownValue};
}

inline StatusCause tooLongCause(std::string field, std::size_t maxBytes) {
  return {std::move(field), "FieldValueTooLong",
          "Too long: may not be more than " + std::to_string(maxBytes) + " bytes"};
}

/// Invalid with one cause per problem; the message lists them as the API server does
/// ("f: m" for one, "[f: m, g: n]" for several).
inline Status invalidStatus(std::vector<StatusCause> causes) {
  std::string message;
  for (const StatusCause& cause : causes) {
    if (!message.empty()) message += ", ";
    message += cause.field + ": " + cause.message;
  }
  if (causes.size() > 1) message = "[" + message + "]";
  return invalidError(std::move(message), std::move(causes));
}

}  // namespace hetbench::common
