#include "event_fields.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "hetbench/common/field_errors.h"
#include "numbers.h"

namespace hetbench::results::internal {
namespace {

const nlohmann::json& emptyObject() {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  return kEmpty;
}

}  // namespace

EventFields::EventFields(const nlohmann::json& object) : object_(&object), error_(&ownError_) {}

EventFields::EventFields(const nlohmann::json& object, std::string prefix, std::string* error)
    : object_(&object), prefix_(std::move(prefix)), error_(error) {}

void EventFields::fail(std::string message) {
  if (error_->empty()) *error_ = std::move(message);
}

std::string EventFields::field(std::string_view name) const {
  return "field " + common::quote(prefix_ + std::string(name));
}

void EventFields::failType(std::string_view name, const nlohmann::json& value,
                           std::string_view expected) {
  fail(field(name) + " must be " + std::string(expected) + ", not " + common::typeName(value));
}

const nlohmann::json* EventFields::find(std::string_view name, bool required) {
  if (!ok()) return nullptr;
  const auto it = object_->find(name);
  if (it == object_->end() || it->is_null()) {
    if (required) fail("missing required " + field(name));
    return nullptr;
  }
  return &*it;
}

std::optional<std::int64_t> EventFields::checkedInteger(std::string_view name,
                                                        const nlohmann::json& v, std::int64_t min) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!v.is_number_integer()) {
    failType(name, v, "an integer");
    return std::nullopt;
  }
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > kMax) {
    fail(field(name) + " is out of range: " + v.dump());
    return std::nullopt;
  }
  const auto n = v.get<std::int64_t>();
  if (n < min) {
    fail(field(name) + " must be at least " + std::to_string(min) + ", not " + v.dump());
    return std::nullopt;
  }
  return n;
}

std::optional<double> EventFields::checkedNumber(std::string_view name, const nlohmann::json& v,
                                                 double min, bool exclusive) {
  if (!v.is_number()) {
    failType(name, v, "a number");
    return std::nullopt;
  }
  const auto d = v.get<double>();
  if (!std::isfinite(d) || d < min || (exclusive && d == min)) {
    fail(field(name) + " must be " + (exclusive ? "greater than " : "at least ") +
         formatNumber(min) + ", not " + v.dump());
    return std::nullopt;
  }
  return d;
}

std::optional<std::string> EventFields::checkedString(std::string_view name,
                                                      const nlohmann::json& v) {
  if (!v.is_string()) {
    failType(name, v, "a string");
    return std::nullopt;
  }
  return v.get<std::string>();
}

std::int64_t EventFields::integer(std::string_view name, std::int64_t min) {
  const nlohmann::json* v = find(name, true);
  return v == nullptr ? min : checkedInteger(name, *v, min).value_or(min);
}

double EventFields::number(std::string_view name, double min, bool exclusive) {
  const nlohmann::json* v = find(name, true);
  return v == nullptr ? min : checkedNumber(name, *v, min, exclusive).value_or(min);
}

std::string EventFields::string(std::string_view name) {
  const nlohmann::json* v = find(name, true);
  return v == nullptr ? std::string() : checkedString(name, *v).value_or(std::string());
}

std::optional<std::int64_t> EventFields::optionalInteger(std::string_view name, std::int64_t min) {
  const nlohmann::json* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedInteger(name, *v, min);
}

std::optional<double> EventFields::optionalNumber(std::string_view name, double min) {
  const nlohmann::json* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedNumber(name, *v, min, false);
}

std::optional<std::string> EventFields::optionalString(std::string_view name) {
  const nlohmann::json* v = find(name, false);
  return v == nullptr ? std::nullopt : checkedString(name, *v);
}

std::optional<bool> EventFields::optionalBoolean(std::string_view name) {
  const nlohmann::json* v = find(name, false);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    failType(name, *v, "a boolean");
    return std::nullopt;
  }
  return v->get<bool>();
}

EventFields EventFields::child(std::string_view name, bool required) {
  const nlohmann::json* v = find(name, required);
  if (v != nullptr && !v->is_object()) {
    failType(name, *v, "an object");
    v = nullptr;
  }
  return EventFields(v == nullptr ? emptyObject() : *v, prefix_ + std::string(name) + ".", error_);
}

}  // namespace hetbench::results::internal
