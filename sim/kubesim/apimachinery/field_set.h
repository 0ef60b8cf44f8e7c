#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// A set of field paths, as server-side apply records what a manager owns. Each step of a path is
/// written as in FieldsV1: "f:name" for a field, "k:{"name":"x"}" for the element of an
/// associative list with those key values, "v:"x"" for the element of a set list, "i:0" for an
/// element by index. A path is a member when the field itself is owned; the fields above it need
/// not be.
class FieldSet {
 public:
  using Path = std::vector<std::string>;

  void insert(const Path& path);
  bool contains(const Path& path) const;
  /// Whether `path` or a path below it is a member.
  bool touches(const Path& path) const;
  bool empty() const;
  /// Every member, in FieldsV1 order.
  std::vector<Path> members() const;

  FieldSet unite(const FieldSet& other) const;
  FieldSet minus(const FieldSet& other) const;
  FieldSet intersect(const FieldSet& other) const;
  bool operator==(const FieldSet& other) const { return members() == other.members(); }

  /// The FieldsV1 object: a member with paths below it carries ".": {}.
  nlohmann::json toFieldsV1() const;
  /// Invalid when `fields` is not a FieldsV1 object.
  static common::Result<FieldSet> fromFieldsV1(const nlohmann::json& fields);

 private:
  struct Node {
    bool member = false;
    std::map<std::string, Node> children = {};
  };
  static void collect(const Node& node, Path& prefix, std::vector<Path>& out);

  Node root_ = {};
};

/// A path as the API server prints it in conflicts: ".spec.containers[name="c"].image",
/// ".metadata.finalizers[="f"]", ".items[0]".
std::string pathString(const FieldSet::Path& path);

}  // namespace hetbench::kubesim
