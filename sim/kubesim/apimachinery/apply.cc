#include "apimachinery/apply.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using Path = FieldSet::Path;

// The step that names a list element: by its keys, its value or its index.
std::string elementStep(const ApplyType& type, const json& item, std::size_t index) {
  if (type.list == ApplyType::List::kMap && item.is_object()) {
    json key = json::object();
    for (const std::string& name : type.keys) {
      if (item.contains(name)) {
        key[name] = item[name];
      } else if (type.keyDefaults.contains(name)) {
        key[name] = type.keyDefaults[name];
      }
    }
    return "k:" + key.dump();
  }
  if (type.list == ApplyType::List::kSet) return "v:" + item.dump();
  return "i:" + std::to_string(index);
}

void collect(const json& value, const ApplyType& type, Path& path, FieldSet& out) {
  if (value.is_object()) {
    if (type.atomic && !path.empty()) {
      out.insert(path);
      return;
    }
    for (const auto& [name, child] : value.items()) {
      path.push_back("f:" + name);
      collect(child, type.field(name), path, out);
      if ((child.is_object() && child.empty()) || (type.entries && !type.declares(name))) {
        out.insert(path);
      }
      path.pop_back();
    }
  } else if (value.is_array()) {
    if (type.list == ApplyType::List::kAtomic) {
      out.insert(path);
      return;
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      path.push_back(elementStep(type, value[i], i));
      collect(value[i], type.item(), path, out);
      out.insert(path);
      path.pop_back();
    }
  } else {
    out.insert(path);
  }
}

// Each element of a list by its step; a repeated step keeps its first element.
std::vector<std::pair<std::string, const json*>> indexList(const json& list,
                                                           const ApplyType& type) {
  std::vector<std::pair<std::string, const json*>> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string step = elementStep(type, list[i], i);
    if (seen.insert(step).second) out.emplace_back(std::move(step), &list[i]);
  }
  return out;
}

bool sameShape(const json& a, const json& b) {
  return a.is_object() == b.is_object() && a.is_array() == b.is_array();
}

void compareAt(const json* before, const json* after, const ApplyType& type, Path& path,
               Comparison& out) {
  auto leaf = [&] {
    if (before == nullptr) {
      out.added.insert(path);
    } else if (after == nullptr) {
      out.removed.insert(path);
    } else if (*before != *after) {
      out.modified.insert(path);
    }
  };
  const json& any = after != nullptr ? *after : *before;
  if ((before != nullptr && after != nullptr && !sameShape(*before, *after)) ||
      !any.is_structured()) {
    leaf();
    return;
  }
  const bool empty = (before == nullptr || before->empty()) && (after == nullptr || after->empty());
  if (empty || (any.is_object() ? type.atomic : type.list == ApplyType::List::kAtomic)) {
    leaf();
    return;
  }
  if (any.is_object()) {
    std::set<std::string> names;
    if (before != nullptr) {
      for (const auto& [name, v] : before->items()) names.insert(name);
    }
    if (after != nullptr) {
      for (const auto& [name, v] : after->items()) names.insert(name);
    }
    for (const std::string& name : names) {
      auto find = [&](const json* object) -> const json* {
        if (object == nullptr) return nullptr;
        auto it = object->find(name);
        return it == object->end() ? nullptr : &*it;
      };
      path.push_back("f:" + name);
      compareAt(find(before), find(after), type.field(name), path, out);
      path.pop_back();
    }
  } else {
    const auto beforeItems =
        before != nullptr ? indexList(*before, type) : decltype(indexList(any, type)){};
    const auto afterItems =
        after != nullptr ? indexList(*after, type) : decltype(indexList(any, type)){};
    std::map<std::string, std::pair<const json*, const json*>> steps;
    for (const auto& [step, item] : beforeItems) steps[step].first = item;
    for (const auto& [step, item] : afterItems) steps[step].second = item;
    for (const auto& [step, pair] : steps) {
      path.push_back(step);
      compareAt(pair.first, pair.second, type.item(), path, out);
      path.pop_back();
    }
  }
  if (!path.empty()) {
    if (before == nullptr) {
      out.added.insert(path);
    } else if (after == nullptr) {
      out.removed.insert(path);
    }
  }
}

json withoutNulls(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [name, child] : value.items()) {
      if (!child.is_null()) out[name] = withoutNulls(child);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) out.push_back(withoutNulls(item));
    return out;
  }
  return value;
}

json mergeValue(const json* live, const json& config, const ApplyType& type);

// Elements of `config` in its order; those only in `live` stay after the element that preceded
// them there.
json mergeList(const json& live, const json& config, const ApplyType& type) {
  const auto liveItems = indexList(live, type);
  const auto configItems = indexList(config, type);
  std::unordered_map<std::string, const json*> liveByStep;
  std::unordered_map<std::string, const json*> configByStep;
  for (const auto& [step, item] : liveItems) liveByStep[step] = item;
  for (const auto& [step, item] : configItems) configByStep[step] = item;
  json out = json::array();
  std::set<std::string> emitted;
  std::size_t next = 0;
  auto emitThrough = [&](const std::string& target) {
    while (next < configItems.size()) {
      const auto& [step, item] = configItems[next++];
      auto it = liveByStep.find(step);
      out.push_back(mergeValue(it == liveByStep.end() ? nullptr : it->second, *item, type.item()));
      emitted.insert(step);
      if (step == target) return;
    }
  };
  for (std::size_t i = 0; i < live.size(); ++i) {
    const std::string step = elementStep(type, live[i], i);
    if (!configByStep.count(step)) {
      out.push_back(live[i]);
    } else if (!emitted.count(step)) {
      emitThrough(step);
    }
  }
  emitThrough("");
  return out;
}

json mergeValue(const json* live, const json& config, const ApplyType& type) {
  if (live == nullptr) return withoutNulls(config);
  if (config.is_object() && live->is_object() && !type.atomic) {
    json out = *live;
    for (const auto& [name, child] : config.items()) {
      if (child.is_null()) {
        out.erase(name);
        continue;
      }
      auto it = live->find(name);
      out[name] = mergeValue(it == live->end() ? nullptr : &*it, child, type.field(name));
    }
    return out;
  }
  if (config.is_array() && live->is_array() && type.list != ApplyType::List::kAtomic) {
    return mergeList(*live, config, type);
  }
  return withoutNulls(config);
}

// Removes the value at path[depth..] under `node`; a map or list it leaves empty goes too,
// below the top level, as the API server's encoder omits empty maps and lists.
void removeAt(json& node, const Path& path, std::size_t depth, const ApplyType& type) {
  const std::string& step = path[depth];
  const bool last = depth + 1 == path.size();
  json* child = nullptr;
  const ApplyType* childType = nullptr;
  std::size_t index = 0;
  if (step.rfind("f:", 0) == 0) {
    if (!node.is_object()) return;
    auto it = node.find(step.substr(2));
    if (it == node.end()) return;
    child = &*it;
    childType = &type.field(step.substr(2));
  } else {
    if (!node.is_array()) return;
    for (; index < node.size(); ++index) {
      if (elementStep(type, node[index], index) == step) break;
    }
    if (index == node.size()) return;
    child = &node[index];
    childType = &type.item();
  }
  if (!last) {
    removeAt(*child, path, depth + 1, *childType);
    if (!(child->is_structured() && child->empty()) || depth == 0) return;
  }
  if (node.is_object()) {
    node.erase(step.substr(2));
  } else {
    node.erase(index);
  }
}

// What the API server never records as owned: the type and the fields it sets itself.
FieldSet withoutServerFields(const FieldSet& set) {
  static const std::set<std::string> serverMeta = {
      "f:name", "f:namespace",  "f:creationTimestamp", "f:selfLink",
      "f:uid",  "f:generation", "f:resourceVersion",   "f:managedFields",
  };
  FieldSet out;
  for (const Path& path : set.members()) {
    if (path.empty()) continue;
    if (path.size() == 1 &&
        (path[0] == "f:apiVersion" || path[0] == "f:kind" || path[0] == "f:metadata")) {
      continue;
    }
    if (path[0] == "f:metadata" && serverMeta.count(path[1])) continue;
    out.insert(path);
  }
  return out;
}

std::string quoted(const std::string& text) { return json(text).dump(); }

std::string describe(const ManagedFieldsEntry& entry) {
  std::string out = quoted(entry.manager);
  if (!entry.subresource.empty()) out += " with subresource " + quoted(entry.subresource);
  if (entry.operation == "Update") out += " using " + entry.apiVersion;
  return out;
}

void dropEmpty(std::vector<ManagedFieldsEntry>& entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const ManagedFieldsEntry& e) { return e.fields.empty(); }),
                entries.end());
}

}  // namespace

FieldSet fieldSetOf(const json& object, const ApplyType& type) {
  FieldSet out;
  Path path;
  collect(object, type, path, out);
  return out;
}

Comparison compareObjects(const json& before, const json& after, const ApplyType& type) {
  Comparison out;
  Path path;
  compareAt(&before, &after, type, path, out);
  return out;
}

json mergeApplied(const json& live, const json& config, const ApplyType& type) {
  return mergeValue(&live, config, type);
}

json removePaths(const json& object, const std::vector<Path>& paths, const ApplyType& type) {
  json out = object;
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) {
    if (!it->empty()) removeAt(out, *it, 0, type);
  }
  return out;
}

common::Result<std::vector<ManagedFieldsEntry>> decodeManagedFields(const json& entries) {
  std::vector<ManagedFieldsEntry> out;
  if (entries.is_null()) return out;
  if (!entries.is_array()) return common::invalidError("managedFields is not a list");
  for (const json& e : entries) {
    if (!e.is_object()) return common::invalidError("a managedFields entry is not an object");
    ManagedFieldsEntry entry;
    for (auto [name, target] :
         {std::pair{"manager", &entry.manager}, std::pair{"operation", &entry.operation},
          std::pair{"apiVersion", &entry.apiVersion}, std::pair{"time", &entry.time},
          std::pair{"subresource", &entry.subresource}}) {
      if (e.contains(name) && e[name].is_string()) *target = e[name].get<std::string>();
    }
    if (e.value("fieldsType", "FieldsV1") != "FieldsV1") {
      return common::invalidError("fieldsType " + e["fieldsType"].dump() + " is not FieldsV1");
    }
    if (e.contains("fieldsV1")) {
      common::Result<FieldSet> fields = FieldSet::fromFieldsV1(e["fieldsV1"]);
      if (!fields.isOk()) return fields.status();
      entry.fields = std::move(*fields);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json encodeManagedFields(std::vector<ManagedFieldsEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const ManagedFieldsEntry& a, const ManagedFieldsEntry& b) {
                     return std::tie(a.operation, a.time, a.manager, a.apiVersion, a.subresource) <
                            std::tie(b.operation, b.time, b.manager, b.apiVersion, b.subresource);
                   });
  json out = json::array();
  for (const ManagedFieldsEntry& e : entries) {
    json entry = {{"manager", e.manager},       {"operation", e.operation},
                  {"apiVersion", e.apiVersion}, {"time", e.time},
                  {"fieldsType", "FieldsV1"},   {"fieldsV1", e.fields.toFieldsV1()}};
    if (!e.subresource.empty()) entry["subresource"] = e.subresource;
    out.push_back(std::move(entry));
  }
  return out;
}

ApplyOutcome applyConfiguration(const json& live, const json& config,
                                std::vector<ManagedFieldsEntry> managed, const FieldWriter& writer,
                                bool force, const ApplyType& type) {
  const FieldSet applied = withoutServerFields(fieldSetOf(config, type));
  auto mine = std::find_if(managed.begin(), managed.end(), [&](const ManagedFieldsEntry& e) {
    return e.manager == writer.manager && e.operation == "Apply" &&
           e.subresource == writer.subresource;
  });
  if (mine == managed.end()) {
    managed.push_back(
        {writer.manager, "Apply", writer.apiVersion, writer.time, writer.subresource, FieldSet{}});
    mine = std::prev(managed.end());
  }
  const FieldSet previous = mine->fields;
  mine->fields = applied;

  FieldSet owned;
  for (const ManagedFieldsEntry& e : managed) owned = owned.unite(e.fields);
  std::vector<Path> dropped;
  for (const Path& path : previous.minus(applied).members()) {
    if (!owned.touches(path)) dropped.push_back(path);
  }
  ApplyOutcome outcome;
  outcome.object = removePaths(mergeApplied(live, config, type), dropped, type);

  const Comparison changes = compareObjects(live, outcome.object, type);
  const FieldSet changed = withoutServerFields(changes.added.unite(changes.modified));
  const FieldSet removed = withoutServerFields(changes.removed);
  for (ManagedFieldsEntry& e : managed) {
    if (&e == &*mine) continue;
    for (const Path& path : e.fields.intersect(changed).members()) {
      outcome.conflicts.push_back({describe(e), path});
    }
  }
  std::sort(outcome.conflicts.begin(), outcome.conflicts.end(),
            [](const FieldConflict& a, const FieldConflict& b) {
              return std::tie(a.manager, a.path) < std::tie(b.manager, b.path);
            });
  if (!outcome.conflicts.empty() && !force) return outcome;
  for (ManagedFieldsEntry& e : managed) {
    if (&e != &*mine) e.fields = e.fields.minus(changed).minus(removed);
  }
  mine->apiVersion = writer.apiVersion;
  if (!(previous == applied) || outcome.object != live) mine->time = writer.time;
  dropEmpty(managed);
  outcome.managedFields = std::move(managed);
  return outcome;
}

std::vector<ManagedFieldsEntry> recordUpdate(const json& before, const json& after,
                                             std::vector<ManagedFieldsEntry> managed,
                                             const FieldWriter& writer, const ApplyType& type) {
  const Comparison changes = compareObjects(before, after, type);
  const FieldSet changed = withoutServerFields(changes.added.unite(changes.modified));
  const FieldSet removed = withoutServerFields(changes.removed);
  auto mine = std::find_if(managed.begin(), managed.end(), [&](const ManagedFieldsEntry& e) {
    return e.manager == writer.manager && e.operation == "Update" &&
           e.apiVersion == writer.apiVersion && e.subresource == writer.subresource;
  });
  for (auto it = managed.begin(); it != managed.end(); ++it) {
    if (it != mine) it->fields = it->fields.minus(changed).minus(removed);
  }
  if (mine == managed.end()) {
    managed.push_back(
        {writer.manager, "Update", writer.apiVersion, writer.time, writer.subresource, changed});
  } else {
    mine->fields = mine->fields.minus(removed).unite(changed);
    mine->time = writer.time;
  }
  dropEmpty(managed);
  return managed;
}

std::string conflictMessage(const std::vector<FieldConflict>& conflicts) {
  if (conflicts.size() == 1) {
    return "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " +
           pathString(conflicts[0].path);
  }
  std::map<std::string, std::vector<std::string>> byManager;
  for (const FieldConflict& c : conflicts) byManager[c.manager].push_back(pathString(c.path));
  std::string lines;
  for (const auto& [manager, paths] : byManager) {
    lines += (lines.empty() ? "" : "\n") + ("conflicts with " + manager + ":");
    for (const std::string& path : paths) lines += "\n- " + path;
  }
  return "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
}

}  // namespace hetbench::kubesim
