#pragma once

// The JSON object of a metrics line as the readers see it: members whose values are scalars or
// objects. FlatJson reads the usual line (a flat object, perhaps with objects of scalars in it)
// without building a DOM or allocating, and takes nlohmann::json's DOM for everything else.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::results::internal {

/// The kinds of value that nlohmann::json tells apart. An integer is kInteger when negative and
/// kUnsigned otherwise, and one beyond 64 bits is a kFloat, as nlohmann::json::parse stores them.
enum class FlatType : std::uint8_t {
  kNull,
  kBoolean,
  kInteger,
  kUnsigned,
  kFloat,
  kString,
  kArray,
  kObject
};

/// One value. `string` views the line, FlatJson's buffer of unescaped strings, or the DOM the
/// value was taken from. An array's elements are kept as members without keys, and only when
/// nlohmann::json read the line (the scanner leaves arrays to it).
struct FlatValue {
  FlatType type = FlatType::kNull;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsignedInteger = 0;
  double number = 0;
  std::string_view string;
  // kObject, kArray: its members (an array's without keys) are members[first, first + count) of
  // the FlatJson that read it.
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

struct FlatMember {
  std::string_view key;
  FlatValue value;
};

/// The members of one object, in the order written, duplicate keys included. Valid until its
/// FlatJson reads again.
class FlatObject {
 public:
  FlatObject() = default;

  /// The value of `key`, or nullptr. Of duplicate keys the last counts, as in nlohmann::json.
  const FlatValue* find(std::string_view key) const;
  /// The members of `object`, a kObject value of this object, or the elements of a kArray one.
  FlatObject child(const FlatValue& object) const;
  std::span<const FlatMember> members() const { return {all_ + first_, count_}; }

 private:
  friend class FlatJson;
  FlatObject(const FlatMember* all, std::uint32_t first, std::uint32_t count)
      : all_(all), first_(first), count_(count) {}

  const FlatMember* all_ = nullptr;
  std::uint32_t first_ = 0;
  std::uint32_t count_ = 0;
};

/// What FlatJson::scan made of a text.
enum class JsonScan {
  kObject,       // read, with the values nlohmann::json::parse gives
  kInvalid,      // not JSON: nlohmann::json::parse throws
  kUnsupported,  // beyond the scanner (see scan): ask nlohmann::json
};

/// Reads one JSON object at a time, reusing its buffers.
class FlatJson {
 public:
  /// Reads `text` as one JSON object, with whitespace around it. The scanner takes objects whose
  /// values are strings, numbers, booleans, null and objects of those; it leaves to
  /// nlohmann::json any other text (a top-level value that is not an object, arrays, objects
  /// nested deeper, a number beyond a double, a byte order mark, a NUL byte after the object),
  /// returning kUnsupported. It
  /// allocates nothing once its buffers have grown to the longest line.
  JsonScan scan(std::string_view text);

  /// Takes the members of `object`, an object of nlohmann::json, which must outlive root().
  void assign(const nlohmann::json& object);

  /// The object read by the last scan that returned kObject, or the last assign.
  FlatObject root() const { return {members_.data(), rootFirst_, rootCount_}; }

 private:
  std::uint32_t assignObject(const nlohmann::json& object);
  std::uint32_t assignArray(const nlohmann::json& array);
  FlatValue assignValue(const nlohmann::json& value);

  std::vector<FlatMember> members_;  // nested objects' members, then the root's
  std::vector<FlatMember> top_;      // the root's members while they are read
  std::string unescaped_;            // strings with escapes, unescaped
  std::uint32_t rootFirst_ = 0;
  std::uint32_t rootCount_ = 0;
};

}  // namespace hetbench::results::internal
