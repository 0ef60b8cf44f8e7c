#include "hetbench/data/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hetbench::data {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

/// Reads the header's Python dict literal: {'descr': '<i2', 'fortran_order': False,
/// 'shape': (128, 128, 128, 4), }. Keys in any order; nothing else is accepted.
class DictParser {
 public:
  DictParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  NpyHeader parse() {
    NpyHeader header;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        header.descr = quoted();
        haveDescr = true;
      } else if (key == "fortran_order") {
        header.fortranOrder = boolean();
        haveOrder = true;
      } else if (key == "shape") {
        header.shape = tuple();
        haveShape = true;
      } else {
        bad("unknown header key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') ++pos_;
    }
    if (!haveDescr || !haveOrder || !haveShape) {
      bad("the header lacks descr, fortran_order or shape");
    }
    return header;
  }

 private:
  [[noreturn]] void bad(const std::string& what) { fail(name_, "malformed .npy header: " + what); }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  char peek() {
    if (pos_ >= text_.size()) bad("it ends early");
    return text_[pos_];
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string quoted() {
    skipSpace();
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad("expected a string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) bad("an unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skipSpace();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad("fortran_order is neither True nor False");
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> values;
    while (true) {
      skipSpace();
      if (peek() == ')') break;
      int64_t v = 0;
      size_t digits = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (v > (INT64_MAX - 9) / 10) bad("a dimension is too large");
        v = v * 10 + (text_[pos_++] - '0');
        ++digits;
      }
      if (digits == 0) bad("the shape holds something other than integers");
      values.push_back(v);
      skipSpace();
      if (peek() == ',') ++pos_;
    }
    ++pos_;
    return values;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

template <typename T>
void convert(const char* data, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    out[i] = static_cast<float>(v);
  }
}

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

}  // namespace

NpyHeader parseNpyHeader(const std::string& bytes, const std::string& name) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    fail(name, "not an .npy file (no \\x93NUMPY magic)");
  }
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  const int major = byte(6);
  size_t headerLength = 0;
  size_t start = 0;
  if (major == 1) {
    headerLength = byte(8) | (static_cast<size_t>(byte(9)) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(name, "the .npy header ends early");
    headerLength = byte(8) | (static_cast<size_t>(byte(9)) << 8) |
                   (static_cast<size_t>(byte(10)) << 16) | (static_cast<size_t>(byte(11)) << 24);
    start = 12;
  } else {
    fail(name, ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (bytes.size() < start + headerLength) fail(name, "the .npy header ends early");
  NpyHeader header = DictParser(std::string_view(bytes).substr(start, headerLength), name).parse();
  header.dataOffset = static_cast<int64_t>(start + headerLength);
  if (header.fortranOrder) fail(name, "Fortran-ordered arrays are not supported");
  for (const int64_t d : header.shape) {
    if (d < 0) fail(name, "a negative dimension");
  }
  static const std::vector<std::pair<std::string, int>> kTypes = {
      {"|i1", 1}, {"|u1", 1}, {"<i2", 2}, {"<u2", 2}, {"<i4", 4},
      {"<u4", 4}, {"<i8", 8}, {"<u8", 8}, {"<f4", 4}, {"<f8", 8}};
  for (const auto& [descr, size] : kTypes) {
    if (header.descr == descr) header.itemSize = size;
  }
  if (header.itemSize == 0) {
    fail(name,
         "dtype '" + header.descr + "' is not supported (little-endian integers and floats only)");
  }
  return header;
}

void npyToFloat(const NpyHeader& h, const char* data, int64_t count, float* out) {
  const std::string& t = h.descr;
  if (t == "|i1") return convert<int8_t>(data, count, out);
  if (t == "|u1") return convert<uint8_t>(data, count, out);
  if (t == "<i2") return convert<int16_t>(data, count, out);
  if (t == "<u2") return convert<uint16_t>(data, count, out);
  if (t == "<i4") return convert<int32_t>(data, count, out);
  if (t == "<u4") return convert<uint32_t>(data, count, out);
  if (t == "<i8") return convert<int64_t>(data, count, out);
  if (t == "<u8") return convert<uint64_t>(data, count, out);
  if (t == "<f4") return convert<float>(data, count, out);
  if (t == "<f8") return convert<double>(data, count, out);
  throw std::logic_error("npyToFloat: unchecked dtype " + t);
}

NpyArray readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  std::ostringstream content;
  content << in.rdbuf();
  const std::string bytes = content.str();
  const NpyHeader header = parseNpyHeader(bytes, path);
  const int64_t count = elements(header.shape);
  const int64_t available = static_cast<int64_t>(bytes.size()) - header.dataOffset;
  if (available < count * header.itemSize) {
    fail(path, "truncated: the shape needs " + std::to_string(count * header.itemSize) +
                   " bytes of data, the file has " + std::to_string(available));
  }
  NpyArray array{header.shape, std::vector<float>(static_cast<size_t>(count))};
  npyToFloat(header, bytes.data() + header.dataOffset, count, array.values.data());
  return array;
}

std::string encodeNpy(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                      size_t bytes) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // NumPy pads the header with spaces and a newline so that the data is 64-byte aligned.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

}  // namespace hetbench::data
