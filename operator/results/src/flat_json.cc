#include "flat_json.h"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

namespace hetbench::results::internal {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The bytes a string may hold as they are: not '"', '\\', a control character or a byte of a
// multi-byte UTF-8 sequence, each of which needs a closer look.
constexpr std::array<bool, 256> kPlainStringBytes = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();
bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// One scan of one text. Each reader returns false once the scan has failed, `failure_` saying
// how; the grammar and its limits are those of RFC 8259 as nlohmann::json's lexer applies them.
class Scanner {
 public:
  Scanner(std::string_view text, std::vector<FlatMember>& members, std::vector<FlatMember>& top,
          std::string& unescaped)
      : p_(text.data()),
        end_(text.data() + text.size()),
        members_(members),
        top_(top),
        unescaped_(unescaped) {}

  JsonScan run() {
    skipSpace();
    if (p_ == end_ || *p_ != '{') return JsonScan::kUnsupported;
    if (!object(top_, false)) return failure_;
    skipSpace();
    if (p_ == end_) return JsonScan::kObject;
    // nlohmann::json ends its input at a NUL byte: what follows is not read, and the readers'
    // depth check has its say on it first.
    return *p_ == '\0' ? JsonScan::kUnsupported : JsonScan::kInvalid;
  }

 private:
  bool fail(JsonScan how) {
    failure_ = how;
    return false;
  }
  bool invalid() { return fail(JsonScan::kInvalid); }

  void skipSpace() {
    while (p_ != end_ && isSpace(*p_)) ++p_;
  }

  // At '{'; a nested object's members go to members_, where they stay together since no
  // object nests in it.
  bool object(std::vector<FlatMember>& out, bool nested) {
    ++p_;
    skipSpace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    while (true) {
      FlatMember member;
      if (p_ == end_ || *p_ != '"') return invalid();
      if (!string(member.key)) return false;
      skipSpace();
      if (p_ == end_ || *p_ != ':') return invalid();
      ++p_;
      skipSpace();
      if (!value(member.value, nested)) return false;
      out.push_back(member);
      skipSpace();
      if (p_ == end_) return invalid();
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return invalid();
      ++p_;
      skipSpace();
    }
  }

  bool value(FlatValue& v, bool nested) {
    if (p_ == end_) return invalid();
    switch (*p_) {
      case '"':
        v.type = FlatType::kString;
        return string(v.string);
      case '{': {
        if (nested) return fail(JsonScan::kUnsupported);
        const std::size_t first = members_.size();
        if (!object(members_, true)) return false;
        v.type = FlatType::kObject;
        v.first = static_cast<std::uint32_t>(first);
        v.count = static_cast<std::uint32_t>(members_.size() - first);
        return true;
      }
      case '[':
        return fail(JsonScan::kUnsupported);
      case 't':
        v.type = FlatType::kBoolean;
        v.boolean = true;
        return literal("true");
      case 'f':
        v.type = FlatType::kBoolean;
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number(v);
    }
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::string_view(p_, word.size()) != word) {
      return invalid();
    }
    p_ += word.size();
    return true;
  }

  bool digits() {
    if (p_ == end_ || !isDigit(*p_)) return invalid();
    while (p_ != end_ && isDigit(*p_)) ++p_;
    return true;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, converted as nlohmann::json converts it:
  // an integer that fits 64 bits is one, anything else a double.
  bool number(FlatValue& v) {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_ || !isDigit(*p_)) return invalid();
    if (*p_ == '0') {
      ++p_;
    } else if (!digits()) {
      return false;
    }
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (!digits()) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) return false;
    }
    if (integral) {
      if (*start == '-') {
        if (std::from_chars(start, p_, v.integer).ec == std::errc()) {
          v.type = FlatType::kInteger;
          return true;
        }
      } else if (std::from_chars(start, p_, v.unsignedInteger).ec == std::errc()) {
        v.type = FlatType::kUnsigned;
        return true;
      }
    }
    // Beyond a double (nlohmann::json refuses an overflow and keeps an underflow's rounding):
    // nlohmann::json decides.
    const auto [end, error] = std::from_chars(start, p_, v.number);
    if (error != std::errc() || end != p_ || !std::isfinite(v.number)) {
      return fail(JsonScan::kUnsupported);
    }
    v.type = FlatType::kFloat;
    return true;
  }

  // At '"'. A string without escapes is viewed where it is; one with escapes is unescaped into
  // unescaped_, whose capacity was reserved for the whole text so that earlier views stay valid.
  bool string(std::string_view& out) {
    ++p_;
    const char* start = p_;
    const char* copied = p_;  // raw bytes before this are in unescaped_ (when escaped)
    const std::size_t offset = unescaped_.size();
    bool escaped = false;
    while (p_ != end_) {
      while (p_ != end_ && kPlainStringBytes[static_cast<unsigned char>(*p_)]) ++p_;
      if (p_ == end_) break;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        if (escaped) {
          unescaped_.append(copied, p_);
          out = std::string_view(unescaped_).substr(offset);
        } else {
          out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        }
        ++p_;
        return true;
      }
      if (c == '\\') {
        unescaped_.append(copied, p_);
        escaped = true;
        if (!escape()) return false;
        copied = p_;
      } else if (c < 0x20) {
        return invalid();
      } else if (!utf8()) {
        return false;
      }
    }
    return invalid();
  }

  // At '\\': appends the escaped character to unescaped_.
  bool escape() {
    ++p_;
    if (p_ == end_) return invalid();
    const char c = *p_++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        unescaped_ += c;
        return true;
      case 'b':
        unescaped_ += '\b';
        return true;
      case 'f':
        unescaped_ += '\f';
        return true;
      case 'n':
        unescaped_ += '\n';
        return true;
      case 'r':
        unescaped_ += '\r';
        return true;
      case 't':
        unescaped_ += '\t';
        return true;
      case 'u':
        break;
      default:
        return invalid();
    }
    std::uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return invalid();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      std::uint32_t low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return invalid();
      p_ += 2;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return invalid();
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(unescaped_, cp);
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (end_ - p_ < 4) return invalid();
    for (int i = 0; i < 4; ++i) {
      const int d = hexDigit(*p_++);
      if (d < 0) return invalid();
      out = out * 16 + static_cast<std::uint32_t>(d);
    }
    return true;
  }

  // At a byte above 0x7F: one well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
  // surrogates, nothing above U+10FFFF).
  bool utf8() {
    const auto lead = static_cast<unsigned char>(*p_);
    int continuation = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      continuation = 1;
    } else if (lead == 0xE0) {
      continuation = 2;
      low = 0xA0;
    } else if (lead == 0xED) {
      continuation = 2;
      high = 0x9F;
    } else if (lead >= 0xE1 && lead <= 0xEF) {
      continuation = 2;
    } else if (lead == 0xF0) {
      continuation = 3;
      low = 0x90;
    } else if (lead == 0xF4) {
      continuation = 3;
      high = 0x8F;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
      continuation = 3;
    } else {
      return invalid();
    }
    ++p_;
    for (int i = 0; i < continuation; ++i) {
      if (p_ == end_) return invalid();
      const auto byte = static_cast<unsigned char>(*p_);
      if (byte < low || byte > high) return invalid();
      low = 0x80;
      high = 0xBF;
      ++p_;
    }
    return true;
  }

  const char* p_;
  const char* end_;
  std::vector<FlatMember>& members_;
  std::vector<FlatMember>& top_;
  std::string& unescaped_;
  JsonScan failure_ = JsonScan::kInvalid;
};

}  // namespace

const FlatValue* FlatObject::find(std::string_view key) const {
  for (std::uint32_t i = count_; i > 0; --i) {
    const FlatMember& member = all_[first_ + i - 1];
    if (member.key == key) return &member.value;
  }
  return nullptr;
}

FlatObject FlatObject::child(const FlatValue& object) const {
  return {all_, object.first, object.count};
}

JsonScan FlatJson::scan(std::string_view text) {
  members_.clear();
  top_.clear();
  unescaped_.clear();
  unescaped_.reserve(text.size());
  const JsonScan result = Scanner(text, members_, top_, unescaped_).run();
  if (result != JsonScan::kObject) return result;
  rootFirst_ = static_cast<std::uint32_t>(members_.size());
  rootCount_ = static_cast<std::uint32_t>(top_.size());
  members_.insert(members_.end(), top_.begin(), top_.end());
  return result;
}

void FlatJson::assign(const nlohmann::json& object) {
  members_.clear();
  rootCount_ = static_cast<std::uint32_t>(object.size());
  rootFirst_ = assignObject(object);
}

std::uint32_t FlatJson::assignObject(const nlohmann::json& object) {
  const auto first = static_cast<std::uint32_t>(members_.size());
  members_.resize(members_.size() + object.size());
  std::uint32_t i = first;
  for (auto it = object.begin(); it != object.end(); ++it, ++i) {
    const FlatValue value = assignValue(it.value());
    members_[i] = {it.key(), value};
  }
  return first;
}

std::uint32_t FlatJson::assignArray(const nlohmann::json& array) {
  const auto first = static_cast<std::uint32_t>(members_.size());
  members_.resize(members_.size() + array.size());
  std::uint32_t i = first;
  for (const nlohmann::json& element : array) {
    const FlatValue value = assignValue(element);
    members_[i++] = {{}, value};
  }
  return first;
}

FlatValue FlatJson::assignValue(const nlohmann::json& value) {
  FlatValue v;
  if (value.is_boolean()) {
    v.type = FlatType::kBoolean;
    v.boolean = value.get<bool>();
  } else if (value.is_number_unsigned()) {
    v.type = FlatType::kUnsigned;
    v.unsignedInteger = value.get<std::uint64_t>();
  } else if (value.is_number_integer()) {
    v.type = FlatType::kInteger;
    v.integer = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    v.type = FlatType::kFloat;
    v.number = value.get<double>();
  } else if (value.is_string()) {
    v.type = FlatType::kString;
    v.string = value.get_ref<const std::string&>();
  } else if (value.is_array()) {
    v.type = FlatType::kArray;
    v.count = static_cast<std::uint32_t>(value.size());
    v.first = assignArray(value);
  } else if (value.is_object()) {
    v.type = FlatType::kObject;
    v.count = static_cast<std::uint32_t>(value.size());
    v.first = assignObject(value);
  }
  return v;
}

}  // namespace hetbench::results::internal
