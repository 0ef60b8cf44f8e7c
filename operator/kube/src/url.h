#pragma once

#include <string>
#include <string_view>

namespace hetbench::kube {

/// Percent-encodes everything but RFC 3986's unreserved characters.
inline std::string percentEncode(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

/// A query string built from the parameters that are set.
class Query {
 public:
  void add(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    text_ += text_.empty() ? "?" : "&";
    text_ += percentEncode(name) + "=" + percentEncode(value);
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace hetbench::kube
