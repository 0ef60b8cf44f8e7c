// Pruning and defaulting as apiextensions-apiserver applies them to decoded custom resources
// (pruning/algorithm.go, defaulting/prunenulls.go and defaulting/algorithm.go).

#include <set>

#include "schema/schema_internal.h"

namespace hetbench::kubesim::internal {
namespace {

bool isMetaField(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

bool flag(const Json* s, const char* name) {
  return s != nullptr && s->is_object() && s->value(name, false);
}

const Json* property(const Json* s, const std::string& key) {
  if (s == nullptr || !s->is_object()) return nullptr;
  auto props = s->find("properties");
  if (props == s->end() || !props->is_object()) return nullptr;
  auto it = props->find(key);
  return it == props->end() ? nullptr : &*it;
}

// additionalProperties: `true`/`false` keep the key (validation rejects `false`), a schema
// keeps it and prunes below; nullptr as schema means "keep key, prune everything below".
bool additional(const Json* s, const Json** schema) {
  *schema = nullptr;
  if (s == nullptr || !s->is_object() || !s->contains("additionalProperties")) return false;
  const Json& ap = (*s)["additionalProperties"];
  if (ap.is_object()) *schema = &ap;
  return true;
}

const Json* items(const Json* s) {
  if (s == nullptr || !s->is_object()) return nullptr;
  auto it = s->find("items");
  return it != s->end() && it->is_object() ? &*it : nullptr;
}

class Pruner {
 public:
  explicit Pruner(std::vector<std::string>& pruned) : pruned_(pruned) {}

  void prune(Json& x, const Json* s, bool embedded, const std::string& path) {
    if (flag(s, "x-kubernetes-preserve-unknown-fields")) {
      skipPrune(x, s, embedded, path);
      return;
    }
    embedded = embedded || flag(s, "x-kubernetes-embedded-resource");
    if (x.is_object()) {
      std::vector<std::string> drop;
      for (auto& [key, v] : x.items()) {
        if (s != nullptr && embedded && isMetaField(key)) continue;
        const Json* sub = nullptr;
        if (const Json* p = property(s, key)) {
          prune(v, p, false, joinPath(path, key));
        } else if (additional(s, &sub)) {
          prune(v, sub, false, joinPath(path, key));
        } else {
          drop.push_back(key);
        }
      }
      for (const auto& key : drop) {
        pruned_.push_back(joinPath(path, key));
        x.erase(key);
      }
    } else if (x.is_array()) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        prune(x[i], items(s), false, path + "[" + std::to_string(i) + "]");
      }
    }
  }

 private:
  void skipPrune(Json& x, const Json* s, bool embedded, const std::string& path) {
    embedded = embedded || flag(s, "x-kubernetes-embedded-resource");
    if (x.is_object()) {
      for (auto& [key, v] : x.items()) {
        if (embedded && isMetaField(key)) continue;
        const Json* sub = nullptr;
        if (const Json* p = property(s, key)) {
          prune(v, p, false, joinPath(path, key));
        } else if (additional(s, &sub)) {
          prune(v, sub, false, joinPath(path, key));
        }
      }
    } else if (x.is_array()) {
      const Json* item = items(s);
      if (item == nullptr) return;
      for (std::size_t i = 0; i < x.size(); ++i) {
        skipPrune(x[i], item, false, path + "[" + std::to_string(i) + "]");
      }
    }
  }

  std::vector<std::string>& pruned_;
};

const Json* fieldSchema(const Json* s, const std::string& key) {
  if (const Json* p = property(s, key)) return p;
  const Json* sub = nullptr;
  return additional(s, &sub) ? sub : nullptr;
}

bool hasDefault(const Json* s) { return s != nullptr && s->is_object() && s->contains("default"); }

bool nonNullableNull(const Json& v, const Json* s) {
  return v.is_null() && s != nullptr && !flag(s, "nullable");
}

void pruneNulls(Json& x, const Json* s) {
  if (x.is_object()) {
    std::vector<std::string> drop;
    for (auto& [key, v] : x.items()) {
      const Json* sub = fieldSchema(s, key);
      if (nonNullableNull(v, sub) && !hasDefault(sub)) {
        drop.push_back(key);
      } else {
        pruneNulls(v, sub);
      }
    }
    for (const auto& key : drop) x.erase(key);
  } else if (x.is_array()) {
    for (auto& v : x) pruneNulls(v, items(s));
  }
}

void applyDefaultsTo(Json& x, const Json* s) {
  if (s == nullptr || !s->is_object()) return;
  if (x.is_object()) {
    if (s->contains("properties") && (*s)["properties"].is_object()) {
      for (const auto& [key, prop] : (*s)["properties"].items()) {
        if (!prop.is_object() || !prop.contains("default")) continue;
        if (!x.contains(key) || nonNullableNull(x[key], &prop)) x[key] = prop["default"];
      }
    }
    for (auto& [key, v] : x.items()) {
      if (const Json* p = property(s, key)) {
        applyDefaultsTo(v, p);
        continue;
      }
      const Json* sub = nullptr;
      if (additional(s, &sub) && sub != nullptr) {
        if (nonNullableNull(v, sub) && sub->contains("default")) v = (*sub)["default"];
        applyDefaultsTo(v, sub);
      }
    }
  } else if (x.is_array()) {
    const Json* item = items(s);
    for (auto& v : x) {
      if (item != nullptr && nonNullableNull(v, item) && item->contains("default")) {
        v = (*item)["default"];
      }
      applyDefaultsTo(v, item);
    }
  }
}

}  // namespace

void pruneValue(Json& value, const Json* schema, bool root, const std::string& path,
                std::vector<std::string>& pruned) {
  static const Json kEmpty = Json::object();
  Pruner(pruned).prune(value, root && schema == nullptr ? &kEmpty : schema, root, path);
}

void defaultValue(Json& value, const Json* schema) {
  pruneNulls(value, schema);
  applyDefaultsTo(value, schema);
}

}  // namespace hetbench::kubesim::internal
