#include "hetbench/common/go_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace hetbench::common {
namespace {

std::string hexEscape(const char* prefix, unsigned value, int width) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%s%0*x", prefix, width, value);
  return buf;
}

}  // namespace

std::size_t decodeUtf8(std::string_view s, std::size_t i, char32_t* rune) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  char32_t r = 0;
  if (b0 < 0x80) {
    *rune = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    r = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    r = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    r = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    r = (r << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (r < kMin[len] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return 0;
  *rune = r;
  return len;
}

std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    char32_t r = 0;
    const std::size_t len = decodeUtf8(s, i, &r);
    if (len == 0) {
      out += hexEscape("\\x", static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    switch (r) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        if (r < 0x20 || r == 0x7F) {
          out += hexEscape("\\x", static_cast<unsigned>(r), 2);
        } else if ((r >= 0x80 && r < 0xA0) || r == 0xAD || r == 0x2028 || r == 0x2029 ||
                   r == 0xFEFF) {
          out += hexEscape("\\u", static_cast<unsigned>(r), 4);
        } else {
          out.append(s.substr(i, len));
        }
    }
    i += len;
  }
  return out + "\"";
}

namespace {

// The longest prefix of `text` of at most `maxBytes` bytes that does not split a rune.
std::string_view runePrefix(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  std::size_t end = maxBytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

std::string cutText(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return std::string(text);
  return std::string(runePrefix(text, maxBytes)) + "...";
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 80;
  if (text.size() <= kMaxShown) return goQuote(text);
  return goQuote(runePrefix(text, kMaxShown)) + "...";
}

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

std::string goNumber(const nlohmann::json& v) {
  if (v.is_number_integer() && !v.is_number_unsigned())
    return std::to_string(v.get<std::int64_t>());
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::to_string(u);
    }
  }
  return goFloat(v.get<double>());
}

std::string goSharpV(const nlohmann::json& v) {
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

}  // namespace hetbench::common
