#include "event_fields.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "hetbench/common/field_errors.h"
#include "numbers.h"

namespace hetbench::results::internal {
namespace {

bool isInteger(const FlatValue& v) {
  return v.type == FlatType::kInteger || v.type == FlatType::kUnsigned;
}

bool isNumber(const FlatValue& v) { return isInteger(v) || v.type == FlatType::kFloat; }

double toDouble(const FlatValue& v) {
  switch (v.type) {
    case FlatType::kInteger:
      return static_cast<double>(v.integer);
    case FlatType::kUnsigned:
      return static_cast<double>(v.unsignedInteger);
    default:
      return v.number;
  }
}

// A number as nlohmann::json's dump() writes it.
std::string numberText(const FlatValue& v) {
  switch (v.type) {
    case FlatType::kInteger:
      return std::to_string(v.integer);
    case FlatType::kUnsigned:
      return std::to_string(v.unsignedInteger);
    default:
      return nlohmann::json(v.number).dump();
  }
}

// The JSON type of a value as common::typeName names it.
std::string_view typeName(const FlatValue& v) {
  switch (v.type) {
    case FlatType::kNull:
      return "null";
    case FlatType::kBoolean:
      return "boolean";
    case FlatType::kInteger:
    case FlatType::kUnsigned:
      return "integer";
    case FlatType::kFloat:
      return "number";
    case FlatType::kString:
      return "string";
    case FlatType::kArray:
      return "array";
    case FlatType::kObject:
      break;
  }
  return "object";
}

}  // namespace

EventFields::EventFields(FlatObject object) : object_(object), error_(&ownError_) {}

EventFields::EventFields(FlatObject object, std::string prefix, std::string* error)
    : object_(object), prefix_(std::move(prefix)), error_(error) {}

void EventFields::fail(std::string message) {
  if (error_->empty()) *error_ = std::move(message);
}

std::string EventFields::field(std::string_view name) const {
  return "field " + common::quote(prefix_ + std::string(name));
}

void EventFields::failType(std::string_view name, const FlatValue& value,
                           std::string_view expected) {
  fail(field(name) + " must be " + std::string(expected) + ", not " + std::string(typeName(value)));
}

const FlatValue* EventFields::find(std::string_view name, bool required) {
  if (!ok()) return nullptr;
  const FlatValue* v = object_.find(name);
  if (v == nullptr || v->type == FlatType::kNull) {
    if (required) fail("missing required " + field(name));
    return nullptr;
  }
  return v;
}

std::optional<std::int64_t> EventFields::checkedInteger(std::string_view name, const FlatValue& v,
                                                        std::int64_t min) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!isInteger(v)) {
    failType(name, v, "an integer");
    return std::nullopt;
  }
  if (v.type == FlatType::kUnsigned && v.unsignedInteger > kMax) {
    fail(field(name) + " is out of range: " + numberText(v));
    return std::nullopt;
  }
  const std::int64_t n =
      v.type == FlatType::kUnsigned ? static_cast<std::int64_t>(v.unsignedInteger) : v.integer;
  if (n < min) {
    fail(field(name) + " must be at least " + std::to_string(min) + ", not " + numberText(v));
    return std::nullopt;
  }
  return n;
}

std::optional<double> EventFields::checkedNumber(std::string_view name, const FlatValue& v,
                                                 double min, bool exclusive) {
  if (!isNumber(v)) {
    failType(name, v, "a number");
    return std::nullopt;
  }
  const double d = toDouble(v);
  if (!std::isfinite(d) || d < min || (exclusive && d == min)) {
    fail(field(name) + " must be " + (exclusive ? "greater than " : "at least ") +
         formatNumber(min) + ", not " + numberText(v));
    return std::nullopt;
  }
  return d;
}

std::optional<std::string_view> EventFields::checkedString(std::string_view name,
                                                           const FlatValue& v) {
  if (v.type != FlatType::kString) {
    failType(name, v, "a string");
    return std::nullopt;
  }
  return v.string;
}

std::int64_t EventFields::integer(std::string_view name, std::int64_t min) {
  const FlatValue* v = find(name, true);
  return v == nullptr ? min : checkedInteger(name, *v, min).value_or(min);
}

double EventFields::number(std::string_view name, double min, bool exclusive) {
  const FlatValue* v = find(name, true);
  return v == nullptr ? min : checkedNumber(name, *v, min, exclusive).value_or(min);
}

std::string_view EventFields::string(std::string_view name) {
  const FlatValue* v = find(name, true);
  return v == nullptr ? std::string_view() : checkedString(name, *v).value_or(std::string_view());
}

std::optional<std::int64_t> EventFields::optionalInteger(std::string_view name, std::int64_t min) {
  const FlatValue* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedInteger(name, *v, min);
}

std::optional<double> EventFields::optionalNumber(std::string_view name, double min) {
  const FlatValue* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedNumber(name, *v, min, false);
}

std::optional<double> EventFields::optionalShare(std::string_view name) {
  const std::optional<double> share = optionalNumber(name, 0);
  if (share && *share > 1) {
    fail(field(name) + " is a share: at most 1, not " + numberText(*find(name, false)));
    return std::nullopt;
  }
  return share;
}

std::optional<std::string_view> EventFields::optionalString(std::string_view name) {
  const FlatValue* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedString(name, *v);
}

std::optional<bool> EventFields::optionalBoolean(std::string_view name) {
  const FlatValue* v = find(name, false);
  if (v == nullptr) return std::nullopt;
  if (v->type != FlatType::kBoolean) {
    failType(name, *v, "a boolean");
    return std::nullopt;
  }
  return v->boolean;
}

EventFields EventFields::child(std::string_view name, bool required) {
  const FlatValue* v = find(name, required);
  if (v != nullptr && v->type != FlatType::kObject) {
    failType(name, *v, "an object");
    v = nullptr;
  }
  return EventFields(v == nullptr ? FlatObject() : object_.child(*v),
                     prefix_ + std::string(name) + ".", error_);
}

std::vector<std::int64_t> EventFields::integers(std::string_view name, std::int64_t min) {
  std::vector<std::int64_t> out;
  const FlatValue* v = find(name, false);
  if (v == nullptr) return out;
  if (v->type != FlatType::kArray) {
    failType(name, *v, "an array");
    return out;
  }
  std::size_t index = 0;
  for (const FlatMember& element : object_.child(*v).members()) {
    const std::string label = std::string(name) + "[" + std::to_string(index++) + "]";
    const std::optional<std::int64_t> value = checkedInteger(label, element.value, min);
    if (!value) return {};
    out.push_back(*value);
  }
  return out;
}

void EventFields::forEachObject(std::string_view name,
                                const std::function<void(EventFields&)>& read) {
  const FlatValue* v = find(name, false);
  if (v == nullptr) return;
  if (v->type != FlatType::kArray) {
    failType(name, *v, "an array");
    return;
  }
  const FlatObject elements = object_.child(*v);
  std::size_t index = 0;
  for (const FlatMember& element : elements.members()) {
    const std::string prefix = prefix_ + std::string(name) + "[" + std::to_string(index++) + "]";
    if (element.value.type != FlatType::kObject) {
      fail("field " + common::quote(prefix) + " must be an object, not " +
           std::string(typeName(element.value)));
      return;
    }
    EventFields fields(object_.child(element.value), prefix + ".", error_);
    read(fields);
    if (!ok()) return;
  }
}

}  // namespace hetbench::results::internal
