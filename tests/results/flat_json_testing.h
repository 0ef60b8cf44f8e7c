#pragma once

// Comparing two read JSON objects as nlohmann::json would see them: by the value each key ends
// up with, whatever the order and duplicates of the members. Shared by the unit tests and the
// fuzz targets.

#include <cmath>
#include <set>
#include <string>
#include <string_view>

#include "flat_json.h"

namespace hetbench::results::internal {

inline std::string differences(FlatObject a, FlatObject b, const std::string& path = "");

/// "" when `a` and `b` are the same value, else what differs.
inline std::string valueDifferences(const FlatValue& a, FlatObject aParent, const FlatValue& b,
                                    FlatObject bParent, const std::string& path) {
  if (a.type != b.type) return path + ": types differ";
  bool same = true;
  switch (a.type) {
    case FlatType::kBoolean:
      same = a.boolean == b.boolean;
      break;
    case FlatType::kInteger:
      same = a.integer == b.integer;
      break;
    case FlatType::kUnsigned:
      same = a.unsignedInteger == b.unsignedInteger;
      break;
    case FlatType::kFloat:
      same = a.number == b.number && std::signbit(a.number) == std::signbit(b.number);
      break;
    case FlatType::kString:
      same = a.string == b.string;
      break;
    case FlatType::kObject:
      return differences(aParent.child(a), bParent.child(b), path + ".");
    case FlatType::kNull:
    case FlatType::kArray:
      break;
  }
  return same ? std::string() : path + ": values differ";
}

inline std::string differences(FlatObject a, FlatObject b, const std::string& path) {
  std::set<std::string_view> keys;
  for (const FlatMember& m : a.members()) keys.insert(m.key);
  for (const FlatMember& m : b.members()) keys.insert(m.key);
  for (std::string_view key : keys) {
    const FlatValue* va = a.find(key);
    const FlatValue* vb = b.find(key);
    const std::string where = path + std::string(key);
    if (va == nullptr || vb == nullptr) return where + ": present on one side only";
    if (std::string d = valueDifferences(*va, a, *vb, b, where); !d.empty()) return d;
  }
  return {};
}

}  // namespace hetbench::results::internal
