#include <mutex>

#include "apimachinery/apply.h"
#include "apimachinery/patch_meta.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const ApplyType& structDefault() {
  static const ApplyType type;
  return type;
}

// An untyped value (x-kubernetes-preserve-unknown-fields): every key a map entry, all the way
// down.
std::shared_ptr<const ApplyType> deduced() {
  static const std::shared_ptr<const ApplyType> type = [] {
    auto t = std::make_shared<ApplyType>();
    t->entries = true;
    return t;
  }();
  return type;
}

std::shared_ptr<const ApplyType> fromTable(const detail::TypeMeta* table);

std::shared_ptr<const ApplyType> fromField(const detail::FieldMeta& meta) {
  auto type = std::make_shared<ApplyType>();
  type->atomic = meta.atomic;
  if (meta.merge) {
    type->list = meta.mergeKey.empty() ? ApplyType::List::kSet : ApplyType::List::kMap;
    if (!meta.mergeKey.empty()) type->keys.push_back(meta.mergeKey);
    for (const auto& [key, fallback] : meta.moreKeys) {
      type->keys.push_back(key);
      if (!fallback.empty()) type->keyDefaults[key] = fallback;
    }
    if (meta.type != nullptr) type->items = fromTable(meta.type);
  } else if (meta.type != nullptr) {
    type->fields = fromTable(meta.type)->fields;
  }
  return type;
}

std::shared_ptr<const ApplyType> fromTable(const detail::TypeMeta* table) {
  auto type = std::make_shared<ApplyType>();
  if (table == nullptr) return type;
  for (const auto& [name, meta] : table->fields) type->fields[name] = fromField(meta);
  return type;
}

std::shared_ptr<ApplyType> fromSchema(const json& schema) {
  auto type = std::make_shared<ApplyType>();
  if (!schema.is_object()) return type;
  if (schema.value("x-kubernetes-preserve-unknown-fields", false)) type->entries = true;
  type->atomic = schema.value("x-kubernetes-map-type", "") == "atomic";
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
    for (const auto& [name, sub] : props->items()) type->fields[name] = fromSchema(sub);
  }
  if (auto extra = schema.find("additionalProperties"); extra != schema.end()) {
    type->entries = true;
    type->items = extra->is_object() ? fromSchema(*extra) : deduced();
  } else if (type->entries) {
    type->items = deduced();
  }
  const std::string listType = schema.value("x-kubernetes-list-type", "atomic");
  if (listType == "set") type->list = ApplyType::List::kSet;
  if (listType == "map") type->list = ApplyType::List::kMap;
  if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
    type->items = fromSchema(*items);
    for (const json& key : schema.value("x-kubernetes-list-map-keys", json::array())) {
      if (!key.is_string()) continue;
      type->keys.push_back(key.get<std::string>());
      const json& keySchema = items->value("properties", json::object()).value(key, json());
      if (keySchema.is_object() && keySchema.contains("default")) {
        type->keyDefaults[key.get<std::string>()] = keySchema["default"];
      }
    }
  }
  return type;
}

}  // namespace

const ApplyType& ApplyType::field(std::string_view name) const {
  auto it = fields.find(name);
  if (it != fields.end()) return *it->second;
  if (items) return *items;
  return entries ? *deduced() : structDefault();
}

const ApplyType& ApplyType::item() const {
  if (items) return *items;
  return entries ? *deduced() : structDefault();
}

std::shared_ptr<const ApplyType> applyTypeForKind(std::string_view kind) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ApplyType>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(kind);
  if (it != cache.end()) return it->second;
  const detail::TypeMeta* table = detail::patchMetaForKind(kind);
  if (table == nullptr) table = detail::patchMetaForKind("ConfigMap");
  return cache[std::string(kind)] = fromTable(table);
}

std::shared_ptr<const ApplyType> applyTypeForSchema(const json& openApiV3Schema) {
  std::shared_ptr<ApplyType> type = fromSchema(openApiV3Schema);
  type->fields["metadata"] = applyTypeForKind("ConfigMap")->fields.at("metadata");
  return type;
}

}  // namespace hetbench::kubesim
