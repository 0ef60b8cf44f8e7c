#include "hetbench/data/npy.h"

#include <cstring>
#include <stdexcept>
#include <string_view>

#include "readers.h"

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

/// A dtype this reader takes: NumPy's name, bytes per element, conversion to float.
struct NpyType {
  std::string_view descr;
  int size;
  void (*toFloat)(const char*, int64_t, float*);
};

constexpr NpyType kNpyTypes[] = {{"|i1", 1, convert<int8_t>},  {"|u1", 1, convert<uint8_t>},
                                 {"<i2", 2, convert<int16_t>}, {"<u2", 2, convert<uint16_t>},
                                 {"<i4", 4, convert<int32_t>}, {"<u4", 4, convert<uint32_t>},
                                 {"<i8", 8, convert<int64_t>}, {"<u8", 8, convert<uint64_t>},
                                 {"<f4", 4, convert<float>},   {"<f8", 8, convert<double>}};

const NpyType* npyType(std::string_view descr) {
  for (const NpyType& type : kNpyTypes) {
    if (type.descr == descr) return &type;
  }
  return nullptr;
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
  const NpyType* type = npyType(header.descr);
  if (type == nullptr) {
    fail(name,
         "dtype '" + header.descr + "' is not supported (little-endian integers and floats only)");
  }
  header.itemSize = type->size;
  return header;
}

void npyToFloat(const NpyHeader& h, const char* data, int64_t count, float* out) {
  const NpyType* type = npyType(h.descr);
  if (type == nullptr) throw std::logic_error("npyToFloat: unchecked dtype " + h.descr);
  type->toFloat(data, count, out);
}

const char* npyData(const NpyHeader& header, const std::string& bytes, const std::string& name) {
  const int64_t count = elements(header.shape);
  const int64_t available = static_cast<int64_t>(bytes.size()) - header.dataOffset;
  if (available < count * header.itemSize) {
    fail(name, "truncated: the shape needs " + std::to_string(count * header.itemSize) +
                   " bytes of data, the file has " + std::to_string(available));
  }
  return bytes.data() + header.dataOffset;
}

NpyArray readNpy(const std::string& path) {
  const std::string bytes = readFile(path);
  const NpyHeader header = parseNpyHeader(bytes, path);
  const char* data = npyData(header, bytes, path);
  const int64_t count = elements(header.shape);
  NpyArray array{header.shape, std::vector<float>(static_cast<size_t>(count))};
  npyToFloat(header, data, count, array.values.data());
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
