// JSON merge patch and JSON patch. The API server applies both with evanphx/json-patch v4, whose
// behaviour differs from RFC 6902 in places that clients can observe; this file keeps those
// differences (noted where they occur) and its error texts.

#include "apimachinery/patch.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetbench::kubesim {
namespace {

using common::invalidError;
using common::Result;
using common::Status;
using nlohmann::json;

// A failure inside one operation: the jsonpatch library's error text.
struct OpError {
  std::string message;
};

std::string goTypeName(const json& value) {
  if (value.is_boolean()) return "bool";
  return value.type_name();
}

// RFC 6901 unescaping in the library's order: "~1" first, then "~0".
std::string decodeKey(std::string_view part) {
  std::string once;
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '~' && i + 1 < part.size() && part[i + 1] == '1') {
      once += '/';
      ++i;
    } else {
      once += part[i];
    }
  }
  std::string out;
  for (std::size_t i = 0; i < once.size(); ++i) {
    if (once[i] == '~' && i + 1 < once.size() && once[i + 1] == '0') {
      out += '~';
      ++i;
    } else {
      out += once[i];
    }
  }
  return out;
}

// strconv.Atoi: an optional sign and decimal digits; the error text on failure.
bool atoi(const std::string& key, std::int64_t& out, std::string& error) {
  const char* begin = key.data() + (!key.empty() && key[0] == '+' ? 1 : 0);
  const char* end = key.data() + key.size();
  auto [ptr, ec] = std::from_chars(begin, end, out);
  bool digitsOnly = begin != end && ptr == end && (*begin != '-' || begin + 1 != end);
  if (ec == std::errc::result_out_of_range) {
    error = "strconv.Atoi: parsing \"" + key + "\": value out of range";
    return false;
  }
  if (ec != std::errc() || !digitsOnly) {
    error = "strconv.Atoi: parsing \"" + key + "\": invalid syntax";
    return false;
  }
  return true;
}

std::string invalidIndex(std::int64_t idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced";
}

// The parent container of the path's last segment and that segment, as findObject finds them;
// nullptr when an intermediate segment is missing or not a container. Like the library, the text
// before the first '/' is ignored.
json* findObject(json& doc, const std::string& path, std::string& key) {
  std::vector<std::string> split;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = path.find('/', start);
    split.push_back(path.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (split.size() < 2) return nullptr;
  json* node = &doc;
  for (std::size_t i = 1; i + 1 < split.size(); ++i) {
    std::string part = decodeKey(split[i]);
    json* next = nullptr;
    if (node->is_object()) {
      auto it = node->find(part);
      if (it != node->end()) next = &*it;
    } else {
      std::int64_t idx = 0;
      std::string ignored;
      if (atoi(part, idx, ignored) && idx >= 0 && static_cast<std::size_t>(idx) < node->size()) {
        next = &(*node)[static_cast<std::size_t>(idx)];
      }
    }
    if (next == nullptr || !(next->is_object() || next->is_array())) return nullptr;
    node = next;
  }
  key = decodeKey(split.back());
  return node;
}

// partialArray.get / partialDoc.get. A missing object key is not an error: it yields nullptr.
bool containerGet(json& con, const std::string& key, json*& out, std::string& error) {
  out = nullptr;
  if (con.is_object()) {
    auto it = con.find(key);
    if (it != con.end() && !it->is_null()) out = &*it;
    return true;
  }
  std::int64_t idx = 0;
  if (!atoi(key, idx, error)) return false;
  if (idx < 0 || static_cast<std::size_t>(idx) >= con.size()) {
    error = invalidIndex(idx);
    return false;
  }
  json& element = con[static_cast<std::size_t>(idx)];
  if (!element.is_null()) out = &element;
  return true;
}

bool containerAdd(json& con, const std::string& key, json value, std::string& error) {
  if (con.is_object()) {
    con[key] = std::move(value);
    return true;
  }
  if (key == "-") {
    con.push_back(std::move(value));
    return true;
  }
  std::int64_t idx = 0;
  if (!atoi(key, idx, error)) {
    error = "value was not a proper array index: '" + key + "': " + error;
    return false;
  }
  auto size = static_cast<std::int64_t>(con.size()) + 1;
  // Negative indices count from the end, a library extension the API server keeps enabled.
  if (idx >= size || idx < -size) {
    error = invalidIndex(idx);
    return false;
  }
  if (idx < 0) idx += size;
  con.insert(con.begin() + idx, std::move(value));
  return true;
}

bool containerRemove(json& con, const std::string& key, std::string& error) {
  if (con.is_object()) {
    if (con.erase(key) == 0) {
      error = "Unable to remove nonexistent key: " + key + ": missing value";
      return false;
    }
    return true;
  }
  std::int64_t idx = 0;
  if (!atoi(key, idx, error)) return false;
  auto size = static_cast<std::int64_t>(con.size());
  if (idx >= size || idx < -size) {
    error = invalidIndex(idx);
    return false;
  }
  if (idx < 0) idx += size;
  con.erase(con.begin() + idx);
  return true;
}

// lazyNode.equal: objects only check that every key of the document's value is in the patch's
// value (a library quirk), arrays compare element-wise, scalars by their compact JSON text.
bool libraryEqual(const json& docValue, const json& patchValue) {
  if (docValue.is_object()) {
    if (!patchValue.is_object()) return false;
    for (const auto& [k, v] : docValue.items()) {
      auto it = patchValue.find(k);
      if (it == patchValue.end()) return false;
      if (v.is_null() && it->is_null()) continue;
      if (v.is_null() || !libraryEqual(v, *it)) return false;
    }
    return true;
  }
  if (docValue.is_array()) {
    if (!patchValue.is_array() || docValue.size() != patchValue.size()) return false;
    for (std::size_t i = 0; i < docValue.size(); ++i) {
      if (!libraryEqual(docValue[i], patchValue[i])) return false;
    }
    return true;
  }
  return docValue.dump() == patchValue.dump();
}

// Operation.Path / Operation.From: the string field, or the error text the library gives.
bool stringField(const json& op, const char* name, std::string& out, std::string& error) {
  auto it = op.find(name);
  if (it == op.end() || it->is_null()) {
    error = std::string(name) == "path" ? "operation missing path field: missing value"
                                        : "operation, missing from field: missing value";
    return false;
  }
  if (!it->is_string()) {
    error = "json: cannot unmarshal " + goTypeName(*it) + " into Go value of type string";
    return false;
  }
  out = it->get<std::string>();
  return true;
}

std::optional<OpError> applyOperation(json& doc, const json& op) {
  auto kindIt = op.find("op");
  std::string kind =
      kindIt != op.end() && kindIt->is_string() ? kindIt->get<std::string>() : "unknown";
  auto valueIt = op.find("value");
  bool hasValue = valueIt != op.end();
  json value = hasValue ? *valueIt : json(nullptr);
  std::string path, from, key, error;
  json* con = nullptr;
  json* found = nullptr;

  if (kind == "add") {
    if (!stringField(op, "path", path, error))
      return OpError{"add operation failed to decode path: missing value"};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"add operation does not apply: doc is missing path: \"" + path +
                     "\": missing value"};
    }
    if (!containerAdd(*con, key, value, error)) {
      return OpError{"error in add for path: '" + path + "': " + error};
    }
    return std::nullopt;
  }
  if (kind == "remove") {
    if (!stringField(op, "path", path, error))
      return OpError{"remove operation failed to decode path: missing value"};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"remove operation does not apply: doc is missing path: \"" + path +
                     "\": missing value"};
    }
    if (!containerRemove(*con, key, error)) {
      return OpError{"error in remove for path: '" + path + "': " + error};
    }
    return std::nullopt;
  }
  if (kind == "replace") {
    if (!stringField(op, "path", path, error))
      return OpError{"replace operation failed to decode path: " + error};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"replace operation does not apply: doc is missing path: " + path +
                     ": missing value"};
    }
    // A missing object key is no error in library v4: replace then behaves like add.
    if (!containerGet(*con, key, found, error)) {
      return OpError{"replace operation does not apply: doc is missing key: " + path +
                     ": missing value"};
    }
    if (con->is_object()) {
      (*con)[key] = value;
    } else {
      std::int64_t idx = 0;
      atoi(key, idx, error);
      (*con)[static_cast<std::size_t>(idx)] = value;
    }
    return std::nullopt;
  }
  if (kind == "move") {
    if (!stringField(op, "from", from, error))
      return OpError{"move operation failed to decode from: " + error};
    if ((con = findObject(doc, from, key)) == nullptr) {
      return OpError{"move operation does not apply: doc is missing from path: " + from +
                     ": missing value"};
    }
    if (!containerGet(*con, key, found, error)) {
      return OpError{"error in move for path: '" + key + "': " + error};
    }
    json moved = found != nullptr ? *found : json(nullptr);
    if (!containerRemove(*con, key, error)) {
      return OpError{"error in move for path: '" + key + "': " + error};
    }
    if (!stringField(op, "path", path, error))
      return OpError{"move operation failed to decode path: " + error};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"move operation does not apply: doc is missing destination path: " + path +
                     ": missing value"};
    }
    if (!containerAdd(*con, key, std::move(moved), error)) {
      return OpError{"error in move for path: '" + path + "': " + error};
    }
    return std::nullopt;
  }
  if (kind == "copy") {
    if (!stringField(op, "from", from, error))
      return OpError{"copy operation failed to decode from: " + error};
    if ((con = findObject(doc, from, key)) == nullptr) {
      return OpError{"copy operation does not apply: doc is missing from path: " + from +
                     ": missing value"};
    }
    if (!containerGet(*con, key, found, error)) {
      return OpError{"error in copy for from: '" + from + "': " + error};
    }
    // Copying a missing object key copies null, as the library does.
    json copied = found != nullptr ? *found : json(nullptr);
    if (!stringField(op, "path", path, error))
      return OpError{"copy operation failed to decode path: missing value"};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"copy operation does not apply: doc is missing destination path: " + path +
                     ": missing value"};
    }
    if (!containerAdd(*con, key, std::move(copied), error)) {
      return OpError{"error while adding value during copy: " + error};
    }
    return std::nullopt;
  }
  if (kind == "test") {
    if (!stringField(op, "path", path, error))
      return OpError{"test operation failed to decode path: " + error};
    if ((con = findObject(doc, path, key)) == nullptr) {
      return OpError{"test operation does not apply: is missing path: " + path + ": missing value"};
    }
    if (!containerGet(*con, key, found, error)) {
      return OpError{"error in test for path: '" + path + "': " + error};
    }
    // A missing or null target passes only against an explicit null value.
    bool passed =
        found == nullptr ? hasValue && value.is_null() : hasValue && libraryEqual(*found, value);
    if (!passed) return OpError{"testing value " + path + " failed: test failed"};
    return std::nullopt;
  }
  return OpError{"Unexpected kind: " + kind};
}

}  // namespace

json applyMergePatch(const json& target, const json& patch) {
  json result = target;
  result.merge_patch(patch);
  return result;
}

// A malformed document is a 400 in the API server (Invalid here, with its decoder's message); an
// operation that fails is a 422 whose message is generic and whose cause carries the detail.
Result<json> applyJsonPatch(const json& target, const json& patch) {
  if (patch.is_null()) return target;
  if (!patch.is_array()) {
    return invalidError("json: cannot unmarshal " + goTypeName(patch) +
                        " into Go value of type jsonpatch.Patch");
  }
  for (const auto& op : patch) {
    if (!op.is_object() && !op.is_null()) {
      return invalidError("json: cannot unmarshal " + goTypeName(op) +
                          " into Go value of type jsonpatch.Operation");
    }
  }
  json doc = target;
  for (const auto& op : patch) {
    auto failure = applyOperation(doc, op.is_null() ? json::object() : op);
    if (failure) {
      return Status(common::StatusCode::kInvalid,
                    "the server rejected our request due to an error in our request",
                    {{"", "UnexpectedServerResponse", failure->message}});
    }
  }
  return doc;
}

}  // namespace hetbench::kubesim
