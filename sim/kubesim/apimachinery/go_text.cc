#include "apimachinery/go_text.h"

#include <cstdio>

namespace hetbench::kubesim {
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

}  // namespace hetbench::kubesim
