#include "apimachinery/field_set.h"

#include <functional>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

bool validStep(const std::string& step) {
  if (step.size() < 2 || step[1] != ':') return false;
  const char kind = step[0];
  if (kind == 'f') return true;
  if (kind != 'k' && kind != 'v' && kind != 'i') return false;
  const json value = json::parse(step.substr(2), nullptr, false);
  if (kind == 'k') return value.is_object();
  if (kind == 'i') return value.is_number_integer();
  return !value.is_discarded();
}

common::Status readNode(const json& fields, const std::string& at, FieldSet& set,
                        FieldSet::Path& prefix) {
  if (!fields.is_object()) {
    return common::invalidError("FieldsV1 at " + at + " is not an object");
  }
  if (fields.empty() && !prefix.empty()) set.insert(prefix);
  for (const auto& [key, value] : fields.items()) {
    if (key == ".") {
      if (!prefix.empty()) set.insert(prefix);
      continue;
    }
    if (!validStep(key)) return common::invalidError("invalid FieldsV1 key " + json(key).dump());
    prefix.push_back(key);
    common::Status status = readNode(value, at + key + "/", set, prefix);
    prefix.pop_back();
    if (!status.isOk()) return status;
  }
  return common::okStatus();
}

}  // namespace

void FieldSet::insert(const Path& path) {
  Node* node = &root_;
  for (const std::string& step : path) node = &node->children[step];
  node->member = true;
}

bool FieldSet::contains(const Path& path) const {
  const Node* node = &root_;
  for (const std::string& step : path) {
    auto it = node->children.find(step);
    if (it == node->children.end()) return false;
    node = &it->second;
  }
  return node->member;
}

bool FieldSet::touches(const Path& path) const {
  const Node* node = &root_;
  for (const std::string& step : path) {
    auto it = node->children.find(step);
    if (it == node->children.end()) return false;
    node = &it->second;
  }
  return node->member || !node->children.empty();
}

bool FieldSet::empty() const { return !root_.member && root_.children.empty(); }

void FieldSet::collect(const Node& node, Path& prefix, std::vector<Path>& out) {
  if (node.member) out.push_back(prefix);
  for (const auto& [step, child] : node.children) {
    prefix.push_back(step);
    collect(child, prefix, out);
    prefix.pop_back();
  }
}

std::vector<FieldSet::Path> FieldSet::members() const {
  std::vector<Path> out;
  Path prefix;
  collect(root_, prefix, out);
  return out;
}

FieldSet FieldSet::unite(const FieldSet& other) const {
  FieldSet out = *this;
  for (const Path& path : other.members()) out.insert(path);
  return out;
}

FieldSet FieldSet::minus(const FieldSet& other) const {
  FieldSet out;
  for (const Path& path : members()) {
    if (!other.contains(path)) out.insert(path);
  }
  return out;
}

FieldSet FieldSet::intersect(const FieldSet& other) const {
  FieldSet out;
  for (const Path& path : members()) {
    if (other.contains(path)) out.insert(path);
  }
  return out;
}

json FieldSet::toFieldsV1() const {
  std::function<json(const Node&, bool)> write = [&](const Node& node, bool top) {
    json out = json::object();
    if (node.member && !top && !node.children.empty()) out["."] = json::object();
    for (const auto& [step, child] : node.children) out[step] = write(child, false);
    return out;
  };
  return write(root_, true);
}

common::Result<FieldSet> FieldSet::fromFieldsV1(const json& fields) {
  FieldSet set;
  Path prefix;
  common::Status status = readNode(fields, "/", set, prefix);
  if (!status.isOk()) return status;
  return set;
}

std::string pathString(const FieldSet::Path& path) {
  std::string out;
  for (const std::string& step : path) {
    const std::string rest = step.substr(2);
    switch (step[0]) {
      case 'f':
        out += "." + rest;
        break;
      case 'k': {
        std::string keys;
        const json key = json::parse(rest);
        for (const auto& [name, value] : key.items()) {
          keys += (keys.empty() ? "" : ",") + name + "=" + value.dump();
        }
        out += "[" + keys + "]";
        break;
      }
      case 'v':
        out += "[=" + rest + "]";
        break;
      default:
        out += "[" + rest + "]";
    }
  }
  return out;
}

}  // namespace hetbench::kubesim
