// Strategic merge patch as k8s.io/apimachinery/pkg/util/strategicpatch applies it on the server
// (StrategicMergeMapPatch: parallel lists merged, unmatched nulls ignored). The structure follows
// the upstream functions so that the order of list items, which clients observe, comes out the
// same; error texts are those of the mergepatch package.
//
// Two deliberate differences, both invisible once the API server has decoded the result into its
// typed object: values taken over wholesale from the patch lose their null fields and directive
// keys (upstream keeps them raw and the typed decode drops them), and a "$"-key that is no known
// directive is rejected instead of being dropped as an unknown field.

#include <string>
#include <utility>
#include <vector>

#include "apimachinery/patch.h"
#include "apimachinery/patch_meta.h"

namespace hetbench::kubesim {
namespace {

using common::invalidError;
using common::Result;
using common::Status;
using detail::FieldMeta;
using detail::TypeMeta;
using nlohmann::json;

constexpr std::string_view kDirectiveMarker = "$patch";
constexpr std::string_view kRetainKeysDirective = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

const char* const kBadRetainKeys = "invalid patch format of retainKeys";
const char* const kBadPrimitiveList = "invalid patch format of primitive list";
const char* const kBadSetElementOrder = "invalid patch format of setElementOrder list";

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Go's %v of a decoded JSON value: map[k:v ...] with sorted keys, [a b], <nil>.
std::string goFormat(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "<nil>";
    case json::value_t::string:
      return v.get<std::string>();
    case json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? " " : "") + goFormat(v[i]);
      return out + "]";
    }
    case json::value_t::object: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, item] : v.items()) {
        out += (first ? "" : " ") + k + ":" + goFormat(item);
        first = false;
      }
      return out + "]";
    }
    default:
      return v.dump();
  }
}

// reflect.TypeOf(...).String() for a decoded JSON value (integers stay int64 on the server).
std::string goTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "<nil>";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::number_float:
      return "float64";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "int64";
    case json::value_t::array:
      return "[]interface {}";
    default:
      return "map[string]interface {}";
  }
}

// The dynamic type of a value as Go's interface comparison sees it.
int goKind(const json& v) {
  switch (v.type()) {
    case json::value_t::number_unsigned:
      return static_cast<int>(json::value_t::number_integer);
    default:
      return static_cast<int>(v.type());
  }
}

// Go's == on two interface values holding decoded JSON scalars.
bool goEqual(const json& a, const json& b) { return goKind(a) == goKind(b) && a == b; }

Status badArgType(const char* expected, const json& actual) {
  return invalidError("expected a " + std::string(expected) + ", but received a " +
                      goTypeName(actual));
}

Status noMergeKey(const json& m, const std::string& key) {
  return invalidError("map: " + goFormat(m) + " does not contain declared merge key: " + key);
}

Status badPatchType(const json& directive, const json& m) {
  return invalidError("unknown patch type: " + goFormat(directive) + " in map: " + goFormat(m));
}

// extractKey: "<prefix>/<field>" to "<field>".
Result<std::string> extractKey(std::string_view key, std::string_view prefix, const char* error) {
  std::size_t slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) return invalidError(error);
  return std::string(key.substr(slash + 1));
}

bool isKnownDirective(std::string_view key) {
  return key == kDirectiveMarker || key == kRetainKeysDirective ||
         startsWith(key, kDeleteFromPrimitiveListPrefix) || startsWith(key, kSetElementOrderPrefix);
}

// Prepares a value that goes into the result without merging: drops null fields and directive
// keys (see the file comment), rejects unknown "$" keys.
Status sanitize(json& value) {
  if (value.is_array()) {
    for (auto& item : value) HETBENCH_RETURN_IF_ERROR(sanitize(item));
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (startsWith(it.key(), "$") && !isKnownDirective(it.key())) {
        return invalidError("unknown directive \"" + it.key() + "\" in strategic merge patch");
      }
      if (it->is_null() || startsWith(it.key(), "$")) {
        it = value.erase(it);
        continue;
      }
      HETBENCH_RETURN_IF_ERROR(sanitize(*it));
      ++it;
    }
  }
  return common::okStatus();
}

// sliceElementType: the common kind of the elements of both lists.
Result<int> sliceElementKind(const json& a, const json& b) {
  int kind = -1;
  for (const json* list : {&a, &b}) {
    for (const auto& v : *list) {
      if (kind == -1) {
        if (v.is_array()) return invalidError("lists of lists are not supported");
        kind = goKind(v);
      } else if (kind != goKind(v)) {
        return invalidError("list element types are not identical: [" + goFormat(a) + " " +
                            goFormat(b) + "]");
      }
    }
  }
  if (kind == -1) return invalidError("no elements in any of the given slices");
  return kind;
}

const int kMapKind = static_cast<int>(json::value_t::object);

// index: the position of `item` in `list`, by merge key value for maps.
long indexOf(const json& list, const json& item, const std::string& mergeKey, int kind) {
  auto key = [&](const json& v) -> json {
    if (kind != kMapKind) return v;
    if (!v.is_object()) return nullptr;
    auto it = v.find(mergeKey);
    return it == v.end() ? json(nullptr) : *it;
  };
  json wanted = key(item);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (goEqual(key(list[i]), wanted)) return static_cast<long>(i);
  }
  return -1;
}

Status validateMergeKeys(const std::string& mergeKey, const json& list) {
  for (const auto& item : list) {
    if (!item.is_object()) return badArgType("map[string]interface {}", item);
    if (!item.contains(mergeKey)) return noMergeKey(item, mergeKey);
  }
  return common::okStatus();
}

bool isDeleteItem(const json& v) {
  auto it = v.find(kDirectiveMarker);
  return it != v.end() && *it == "delete";
}

// normalizeSliceOrder: sorts `toSort` by the positions in `order`. Go sorts small lists with an
// insertion sort and a comparator that says "less" whenever an item is missing from `order`;
// reproducing that sort keeps the same result for such items.
Result<json> normalizeSliceOrder(json toSort, const json& order, const std::string& mergeKey,
                                 int kind) {
  json toDelete = json::array();
  if (kind == kMapKind) {
    HETBENCH_RETURN_IF_ERROR(validateMergeKeys(mergeKey, toSort));
    HETBENCH_RETURN_IF_ERROR(validateMergeKeys(mergeKey, order));
    json keep = json::array();
    for (auto& v : toSort) (isDeleteItem(v) ? toDelete : keep).push_back(std::move(v));
    toSort = std::move(keep);
  }
  auto less = [&](const json& a, const json& b) {
    long ia = indexOf(order, a, mergeKey, kind);
    long ib = indexOf(order, b, mergeKey, kind);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  for (std::size_t i = 1; i < toSort.size(); ++i) {
    for (std::size_t j = i; j > 0 && less(toSort[j], toSort[j - 1]); --j) {
      std::swap(toSort[j], toSort[j - 1]);
    }
  }
  for (auto& v : toDelete) toSort.push_back(std::move(v));
  return toSort;
}

// mergeSortedSlice: interleaves server-only items (left) into patch items (right), taking a
// server item first only when both are in the live list and it came earlier there.
json mergeSortedSlice(const json& left, const json& right, const json& serverOrder,
                      const std::string& mergeKey, int kind) {
  json out = json::array();
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < left.size() || j < right.size()) {
    bool takeLeft = j >= right.size();
    if (i < left.size() && j < right.size()) {
      long li = indexOf(serverOrder, left[i], mergeKey, kind);
      long ri = indexOf(serverOrder, right[j], mergeKey, kind);
      takeLeft = li >= 0 && ri >= 0 && li < ri;
    }
    out.push_back(takeLeft ? left[i++] : right[j++]);
  }
  return out;
}

Result<json> normalizeElementOrder(const json& patchItems, const json& serverOnly,
                                   const json& patchOrder, const json& serverOrder,
                                   const std::string& mergeKey, int kind) {
  HETBENCH_ASSIGN_OR_RETURN(json patch,
                            normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind));
  HETBENCH_ASSIGN_OR_RETURN(json server,
                            normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind));
  return mergeSortedSlice(server, patch, serverOrder, mergeKey, kind);
}

// findMapInSliceBasedOnKeyValue: the index of the map whose merge key equals `value`, or -1.
Result<long> findByKey(const json& list, const std::string& key, const json& value) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return invalidError("value for key " + std::to_string(i) + " is not a map.");
    }
    auto it = list[i].find(key);
    if (it != list[i].end() && goEqual(*it, value)) return static_cast<long>(i);
  }
  return -1L;
}

// Splits `merged` into items present in `partitionBy` and server-only items.
Status partition(const json& merged, const json& partitionBy, const std::string& mergeKey,
                 json& present, json& serverOnly) {
  present = json::array();
  serverOnly = json::array();
  for (const auto& v : merged) {
    bool found = false;
    if (mergeKey.empty()) {
      for (const auto& p : partitionBy) found = found || goEqual(p, v);
    } else {
      if (!v.is_object()) return badArgType("map[string]interface {}", v);
      auto key = v.find(mergeKey);
      if (key == v.end()) return noMergeKey(v, mergeKey);
      HETBENCH_ASSIGN_OR_RETURN(long at, findByKey(partitionBy, mergeKey, *key));
      found = at >= 0;
    }
    (found ? present : serverOnly).push_back(v);
  }
  return common::okStatus();
}

Result<json> mergeMap(json original, json patch, const TypeMeta* type);

// mergeSlice for a list with the merge strategy (or a $deleteFromPrimitiveList list).
Result<json> mergeSlice(json original, json patch, const FieldMeta& field, bool isDeleteList) {
  if (original.empty() && patch.empty()) return original;
  HETBENCH_ASSIGN_OR_RETURN(int kind, sliceElementKind(original, patch));
  const std::string& mergeKey = field.mergeKey;
  json merged = json::array();
  if (kind != kMapKind) {
    if (isDeleteList) {
      for (const auto& v : original) {
        bool deleted = false;
        for (const auto& d : patch) deleted = deleted || goEqual(d, v);
        if (!deleted) merged.push_back(v);
      }
      return merged;
    }
    for (const json* list : {&original, &patch}) {
      for (const auto& v : *list) {
        bool seen = false;
        for (const auto& m : merged) seen = seen || goEqual(m, v);
        if (!seen) merged.push_back(v);
      }
    }
  } else {
    if (mergeKey.empty()) return invalidError("cannot merge lists without merge key");
    // mergeSliceWithSpecialElements: $patch directives inside list items.
    json plain = json::array();
    bool replace = false;
    for (const auto& v : patch) {
      auto directive = v.find(kDirectiveMarker);
      if (directive == v.end()) {
        plain.push_back(v);
      } else if (*directive == "delete") {
        auto key = v.find(mergeKey);
        if (key == v.end()) return noMergeKey(v, mergeKey);
        while (true) {
          HETBENCH_ASSIGN_OR_RETURN(long at, findByKey(original, mergeKey, *key));
          if (at < 0) break;
          original.erase(original.begin() + at);
        }
      } else if (*directive == "replace") {
        replace = true;
      } else if (*directive == "merge") {
        return invalidError("merging lists cannot yet be specified in the patch");
      } else {
        return badPatchType(*directive, v);
      }
    }
    if (replace) {
      HETBENCH_RETURN_IF_ERROR(sanitize(plain));
      original = std::move(plain);
      patch = json::array();
    } else {
      patch = std::move(plain);
    }
    // mergeSliceWithoutSpecialElements: merge items with the same key, append the others.
    merged = original;
    for (const auto& v : patch) {
      auto key = v.find(mergeKey);
      if (key == v.end()) return noMergeKey(v, mergeKey);
      HETBENCH_ASSIGN_OR_RETURN(long at, findByKey(merged, mergeKey, *key));
      if (at >= 0) {
        HETBENCH_ASSIGN_OR_RETURN(merged[static_cast<std::size_t>(at)],
                                  mergeMap(merged[static_cast<std::size_t>(at)], v, field.type));
      } else {
        json added = v;
        HETBENCH_RETURN_IF_ERROR(sanitize(added));
        merged.push_back(std::move(added));
      }
    }
  }
  json patchItems;
  json serverOnly;
  HETBENCH_RETURN_IF_ERROR(partition(merged, patch, mergeKey, patchItems, serverOnly));
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

Result<json> mergeSliceHandler(json original, json patch, const FieldMeta& field,
                               bool isDeleteList) {
  if (field.merge || isDeleteList) {
    return mergeSlice(std::move(original), std::move(patch), field, isDeleteList);
  }
  HETBENCH_RETURN_IF_ERROR(sanitize(patch));
  return patch;
}

// $retainKeys: clears the original's fields that the list does not name.
Status applyRetainKeys(json& original, json& patch) {
  auto it = patch.find(kRetainKeysDirective);
  if (it == patch.end()) return common::okStatus();
  json retain = *it;
  patch.erase(it);
  if (!retain.is_array()) return invalidError(kBadRetainKeys);
  auto retained = [&](const std::string& key) {
    for (const auto& r : retain) {
      if (r == key) return true;
    }
    return false;
  };
  for (const auto& [k, v] : patch.items()) {
    if (v.is_null() || startsWith(k, kDeleteFromPrimitiveListPrefix) ||
        startsWith(k, kSetElementOrderPrefix)) {
      continue;
    }
    if (!retained(k)) return invalidError(kBadRetainKeys);
  }
  for (auto o = original.begin(); o != original.end();) {
    o = retained(o.key()) ? std::next(o) : original.erase(o);
  }
  return common::okStatus();
}

// validatePatchWithSetOrderList: the patch's items must appear in the order list, in its order.
Status validateWithSetOrder(const json& patchList, const json& order, const std::string& key) {
  if (order.empty() || patchList.empty()) return common::okStatus();
  json items = json::array();
  for (const auto& v : patchList) {
    if (key.empty()) {
      items.push_back(v);
      continue;
    }
    if (!v.is_object()) return badArgType("map[string]interface {}", v);
    if (!isDeleteItem(v)) items.push_back(v);
  }
  std::size_t p = 0;
  std::size_t s = 0;
  while (p < items.size() && s < order.size()) {
    if (items[p].is_object() && items[p].contains(kDirectiveMarker)) {
      ++p;
      continue;
    }
    bool equal = false;
    if (key.empty()) {
      equal = goEqual(items[p], order[s]);
    } else {
      if (!items[p].is_object()) return badArgType("map[string]interface {}", items[p]);
      if (!order[s].is_object()) return badArgType("map[string]interface {}", order[s]);
      auto left = items[p].find(key);
      if (left == items[p].end()) return noMergeKey(items[p], key);
      auto right = order[s].find(key);
      if (right == order[s].end()) return noMergeKey(order[s], key);
      equal = goEqual(*left, *right);
    }
    if (equal) ++p;
    ++s;
  }
  if (p < items.size()) {
    return invalidError("The order in patch list:\n" + goFormat(patchList) +
                        "\n doesn't match $setElementOrder list:\n" + goFormat(order) + "\n");
  }
  return common::okStatus();
}

// mergePatchIntoOriginal: each $setElementOrder/<field> merges that list (if patched) and puts
// the result in the given order, server-only items interleaved by their live positions.
Status applySetElementOrder(json& original, json& patch, const TypeMeta* type) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : patch.items()) {
    if (startsWith(k, kSetElementOrderPrefix)) keys.push_back(k);
  }
  for (const auto& key : keys) {
    json order = patch[key];
    patch.erase(key);
    if (!order.is_array()) return badArgType("[]interface {}", order);
    HETBENCH_ASSIGN_OR_RETURN(std::string field,
                              extractKey(key, kSetElementOrderPrefix, kBadSetElementOrder));
    auto originalIt = original.find(field);
    auto patchIt = patch.find(field);
    bool foundOriginal = originalIt != original.end();
    bool foundPatch = patchIt != patch.end();
    json originalList = foundOriginal ? *originalIt : json::array();
    json patchList = foundPatch ? *patchIt : json::array();
    if (foundOriginal && !originalList.is_array())
      return badArgType("[]interface {}", originalList);
    if (foundPatch && !patchList.is_array()) return badArgType("[]interface {}", patchList);
    FieldMeta meta = type != nullptr ? type->lookup(field) : FieldMeta{};
    HETBENCH_RETURN_IF_ERROR(validateWithSetOrder(patchList, order, meta.mergeKey));
    if (!foundOriginal && !foundPatch) continue;
    json merged;
    if (foundOriginal && foundPatch) {
      HETBENCH_ASSIGN_OR_RETURN(merged, mergeSliceHandler(originalList, patchList, meta, false));
    } else if (foundPatch) {
      merged = patchList;
      HETBENCH_RETURN_IF_ERROR(sanitize(merged));
    } else {
      merged = originalList;
    }
    json present;
    json serverOnly;
    HETBENCH_RETURN_IF_ERROR(partition(merged, order, meta.mergeKey, present, serverOnly));
    HETBENCH_ASSIGN_OR_RETURN(int kind, sliceElementKind(originalList, patchList));
    HETBENCH_ASSIGN_OR_RETURN(
        original[field],
        normalizeElementOrder(present, serverOnly, order, originalList, meta.mergeKey, kind));
    patch.erase(field);
  }
  return common::okStatus();
}

Result<json> mergeMap(json original, json patch, const TypeMeta* type) {
  if (auto directive = patch.find(kDirectiveMarker); directive != patch.end()) {
    if (*directive == "replace") {
      patch.erase(directive);
      HETBENCH_RETURN_IF_ERROR(sanitize(patch));
      return patch;
    }
    if (*directive == "delete") return json::object();
    return badPatchType(*directive, patch);
  }
  if (!original.is_object()) original = json::object();
  HETBENCH_RETURN_IF_ERROR(applyRetainKeys(original, patch));
  HETBENCH_RETURN_IF_ERROR(applySetElementOrder(original, patch, type));

  for (auto& [patchKey, patchValue] : patch.items()) {
    std::string key = patchKey;
    bool isDeleteList = false;
    if (startsWith(key, kDeleteFromPrimitiveListPrefix)) {
      HETBENCH_ASSIGN_OR_RETURN(key,
                                extractKey(key, kDeleteFromPrimitiveListPrefix, kBadPrimitiveList));
      isDeleteList = true;
    } else if (startsWith(key, "$")) {
      return invalidError("unknown directive \"" + key + "\" in strategic merge patch");
    }
    if (patchValue.is_null()) {
      original.erase(key);
      continue;
    }
    auto current = original.find(key);
    bool sameShape =
        current != original.end() && ((current->is_object() && patchValue.is_object()) ||
                                      (current->is_array() && patchValue.is_array()));
    if (!sameShape) {
      // Absent or of another type: the patch value replaces it (a deletion list only deletes).
      if (!isDeleteList) {
        json value = patchValue;
        HETBENCH_RETURN_IF_ERROR(sanitize(value));
        original[key] = std::move(value);
      }
      continue;
    }
    FieldMeta field = type != nullptr ? type->lookup(key) : FieldMeta{};
    if (patchValue.is_object()) {
      HETBENCH_ASSIGN_OR_RETURN(*current, mergeMap(*current, patchValue, field.type));
    } else {
      HETBENCH_ASSIGN_OR_RETURN(*current,
                                mergeSliceHandler(*current, patchValue, field, isDeleteList));
    }
  }
  return original;
}

}  // namespace

// A kind without a table gets no tags at all: every list is replaced and every map merged, so
// patches that rely on merge keys (containers by name) replace those lists wholesale.
Result<json> applyStrategicMergePatch(std::string_view kind, const json& target,
                                      const json& patch) {
  if (patch.is_null()) return target;
  if (!patch.is_object()) {
    return invalidError("json: cannot unmarshal " + std::string(patch.type_name()) +
                        " into Go value of type map[string]interface {}");
  }
  if (!target.is_object()) return invalidError("invalid JSON document");
  try {
    return mergeMap(target, patch, detail::patchMetaForKind(kind));
  } catch (const json::exception& e) {
    return common::internalError(std::string("strategic merge patch: ") + e.what());
  }
}

}  // namespace hetbench::kubesim
