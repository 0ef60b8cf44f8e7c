#include "hetbench/common/field_errors.h"

#include <cstddef>
#include <limits>
#include <utility>

namespace hetbench::common {

std::string badValue(const nlohmann::json& v) {
  if (v.is_null()) return goQuote("null");
  if (v.is_string()) return goQuote(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return goNumber(v);
  return goSharpV(v);
}

std::string dataType(const nlohmann::json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_float()) return "number";
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return "number";
  }
  if (v.is_number()) return "integer";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

namespace {
StatusCause cause(std::string field, const char* reason, std::string message) {
  return {std::move(field), reason, std::move(message)};
}

std::string withDetail(std::string body, std::string_view detail) {
  if (detail.empty()) return body;
  body += ": ";
  body += detail;
  return body;
}
}  // namespace

StatusCause requiredCause(std::string field, std::string_view detail) {
  return cause(std::move(field), "FieldValueRequired", withDetail("Required value", detail));
}

StatusCause forbiddenCause(std::string field, std::string_view detail) {
  return cause(std::move(field), "FieldValueForbidden", withDetail("Forbidden", detail));
}

StatusCause invalidCause(std::string field, const nlohmann::json& value, std::string_view detail) {
  return cause(std::move(field), "FieldValueInvalid",
               withDetail("Invalid value: " + badValue(value), detail));
}

StatusCause typeInvalidCause(std::string field, const nlohmann::json& value,
                             std::string_view detail) {
  return cause(std::move(field), "FieldValueTypeInvalid",
               withDetail("Invalid value: " + badValue(value), detail));
}

StatusCause notSupportedCause(std::string field, const nlohmann::json& value,
                              const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += goQuote(supported[i]);
    }
  }
  return cause(std::move(field), "FieldValueNotSupported",
               withDetail("Unsupported value: " + badValue(value), detail));
}

StatusCause tooLongCause(std::string field, std::int64_t max) {
  // Since Kubernetes 1.32 field.TooLong omits the value and speaks of bytes.
  const std::string detail =
      max >= 0 ? "may not be more than " + std::to_string(max) + " bytes" : "value is too long";
  return cause(std::move(field), "FieldValueTooLong", "Too long: " + detail);
}

StatusCause tooManyCause(std::string field, std::int64_t actual, std::int64_t max) {
  std::string body = "Too many";
  if (actual >= 0) body += ": " + std::to_string(actual);
  body +=
      max >= 0 ? ": must have at most " + std::to_string(max) + " items" : ": has too many items";
  return cause(std::move(field), "FieldValueTooMany", body);
}

StatusCause duplicateCause(std::string field, const nlohmann::json& value) {
  return cause(std::move(field), "FieldValueDuplicate", "Duplicate value: " + badValue(value));
}

StatusCause schemaTypeCause(std::string field, const nlohmann::json& value,
                            std::string_view expected) {
  const std::string got = dataType(value);
  std::string detail = field + " in body must be of type ";
  detail += expected;
  detail += ": " + goQuote(got);
  return typeInvalidCause(std::move(field), got, detail);
}

Status invalidStatus(std::vector<StatusCause> causes) {
  std::string message;
  for (const StatusCause& c : causes) {
    if (!message.empty()) message += ", ";
    message += c.field + ": " + c.message;
  }
  if (causes.size() > 1) message = "[" + message + "]";
  return invalidError(std::move(message), std::move(causes));
}

}  // namespace hetbench::common
