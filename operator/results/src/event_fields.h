#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flat_json.h"

namespace hetbench::results::internal {

/// Reads the fields of one JSON event (a metrics line). The first problem becomes the line's
/// error; after it, getters return defaults. A null field counts as absent; unknown fields
/// are ignored. Strings view the object's text, so they last as long as the object. Never throws.
class EventFields {
 public:
  explicit EventFields(FlatObject object);
  // Children share their parent's error by address.
  EventFields(const EventFields&) = delete;
  EventFields& operator=(const EventFields&) = delete;

  bool ok() const { return error_->empty(); }
  const std::string& error() const { return *error_; }
  /// Records `message` unless an error is recorded already.
  void fail(std::string message);

  std::int64_t integer(std::string_view name, std::int64_t min);
  /// A finite number at least `min`, or above it when `exclusive`.
  double number(std::string_view name, double min, bool exclusive = false);
  std::string_view string(std::string_view name);

  std::optional<std::int64_t> optionalInteger(std::string_view name, std::int64_t min);
  std::optional<double> optionalNumber(std::string_view name, double min);
  /// A number from 0 to 1.
  std::optional<double> optionalShare(std::string_view name);
  std::optional<std::string_view> optionalString(std::string_view name);
  std::optional<bool> optionalBoolean(std::string_view name);

  /// The fields of an object member, whose errors are this reader's errors and name the
  /// member ("accelerator.count"); an absent optional member reads as an empty object.
  EventFields child(std::string_view name, bool required);
  /// Calls `read` with the fields of each element of an optional array member, each an object
  /// whose errors name it ("gpus[1].device"), until the first error; absent, it has none.
  void forEachObject(std::string_view name, const std::function<void(EventFields&)>& read);
  /// The elements of an optional array member of integers, each at least `min` ("xids[0]" names
  /// one in an error); absent, none.
  std::vector<std::int64_t> integers(std::string_view name, std::int64_t min);

 private:
  EventFields(FlatObject object, std::string prefix, std::string* error);

  const FlatValue* find(std::string_view name, bool required);
  std::optional<std::int64_t> checkedInteger(std::string_view name, const FlatValue& v,
                                             std::int64_t min);
  std::optional<double> checkedNumber(std::string_view name, const FlatValue& v, double min,
                                      bool exclusive);
  std::optional<std::string_view> checkedString(std::string_view name, const FlatValue& v);
  std::string field(std::string_view name) const;
  void failType(std::string_view name, const FlatValue& value, std::string_view expected);

  FlatObject object_;
  std::string prefix_;
  std::string ownError_;
  std::string* error_;
};

}  // namespace hetbench::results::internal
