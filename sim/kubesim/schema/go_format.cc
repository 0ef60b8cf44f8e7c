#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "schema/schema_internal.h"

namespace hetbench::kubesim::internal {

std::string goFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);
  const std::size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exp = std::stoi(sci.substr(e + 1));
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {
    // Go's %v switches to %e for the shortest representation outside [1e-4, 1e6).
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char tail[16];
    std::snprintf(tail, sizeof(tail), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + tail;
  }
  if (exp < 0) return out + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  const auto intDigits = static_cast<std::size_t>(exp + 1);
  if (digits.size() <= intDigits) return out + digits + std::string(intDigits - digits.size(), '0');
  return out + digits.substr(0, intDigits) + "." + digits.substr(intDigits);
}

std::string goNumber(const Json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned())
    return std::to_string(v.get<std::int64_t>());
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::to_string(u);
    }
  }
  return goFloat(asDouble(v));
}

std::string goSharpV(const Json& v) {
  if (v.is_null()) return "interface {}(nil)";
  if (v.is_string()) return goQuote(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return goNumber(v);
  std::string out;
  if (v.is_array()) {
    out = "[]interface {}{";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ", ";
      out += goSharpV(v[i]);
    }
    return out + "}";
  }
  out = "map[string]interface {}{";
  bool first = true;
  for (const auto& [key, item] : v.items()) {
    if (!first) out += ", ";
    first = false;
    out += goQuote(key) + ":" + goSharpV(item);
  }
  return out + "}";
}

std::string badValue(const Json& v) {
  if (v.is_null()) return goQuote("null");
  if (v.is_string()) return goQuote(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return goNumber(v);
  return goSharpV(v);
}

std::string dataType(const Json& v) {
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

bool isJsonInteger(const Json& v) {
  if (dataType(v) == "integer") return true;
  if (!v.is_number()) return false;
  const double d = asDouble(v);
  return std::isfinite(d) && std::trunc(d) == d;
}

double asDouble(const Json& v) {
  if (v.is_number_float()) return v.get<double>();
  if (v.is_number_unsigned()) return static_cast<double>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return static_cast<double>(v.get<std::int64_t>());
  return 0;
}

std::int64_t runeCount(std::string_view s) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t r = 0;
    const std::size_t len = decodeUtf8(s, i, &r);
    i += len == 0 ? 1 : len;
    ++n;
  }
  return n;
}

std::string joinPath(const std::string& parent, const std::string& child) {
  if (parent.empty()) return child;
  if (child.empty()) return parent;
  return parent + "." + child;
}

namespace {
common::StatusCause cause(std::string field, const char* reason, std::string message) {
  return {std::move(field), reason, std::move(message)};
}
std::string withDetail(std::string body, const std::string& detail) {
  return detail.empty() ? body : body + ": " + detail;
}
}  // namespace

common::StatusCause requiredCause(std::string field, const std::string& detail) {
  return cause(std::move(field), "FieldValueRequired", withDetail("Required value", detail));
}

common::StatusCause forbiddenCause(std::string field, const std::string& detail) {
  return cause(std::move(field), "FieldValueForbidden", withDetail("Forbidden", detail));
}

common::StatusCause invalidCause(std::string field, const Json& value, const std::string& detail) {
  return cause(std::move(field), "FieldValueInvalid",
               withDetail("Invalid value: " + badValue(value), detail));
}

common::StatusCause typeInvalidCause(std::string field, const Json& value,
                                     const std::string& detail) {
  return cause(std::move(field), "FieldValueTypeInvalid",
               withDetail("Invalid value: " + badValue(value), detail));
}

common::StatusCause notSupportedCause(std::string field, const Json& value,
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

common::StatusCause tooLongCause(std::string field, std::int64_t max) {
  // Since Kubernetes 1.32 field.TooLong omits the value and speaks of bytes.
  const std::string detail =
      max >= 0 ? "may not be more than " + std::to_string(max) + " bytes" : "value is too long";
  return cause(std::move(field), "FieldValueTooLong", "Too long: " + detail);
}

common::StatusCause tooManyCause(std::string field, std::int64_t actual, std::int64_t max) {
  std::string body = "Too many";
  if (actual >= 0) body += ": " + std::to_string(actual);
  body +=
      max >= 0 ? ": must have at most " + std::to_string(max) + " items" : ": has too many items";
  return cause(std::move(field), "FieldValueTooMany", body);
}

common::StatusCause duplicateCause(std::string field, const Json& value) {
  return cause(std::move(field), "FieldValueDuplicate", "Duplicate value: " + badValue(value));
}

}  // namespace hetbench::kubesim::internal
