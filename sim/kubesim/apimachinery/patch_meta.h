#pragma once

// The patchStrategy / patchMergeKey tags of the Kubernetes API types that strategic merge patch
// reads, for the kinds kubesim serves. Private to the patch implementation.

#include <map>
#include <string>
#include <string_view>

namespace hetbench::kubesim::detail {

struct TypeMeta;

/// One field of a struct. `type` is the struct type of an object field or of a list's elements;
/// nullptr where nothing below has tags (then maps merge and lists are replaced).
struct FieldMeta {
  bool merge = false;    // patchStrategy:"merge" (lists only; maps always merge)
  std::string mergeKey;  // patchMergeKey; empty for lists of primitives
  const TypeMeta* type = nullptr;
};

struct TypeMeta {
  std::map<std::string, FieldMeta, std::less<>> fields;

  /// The field's tags, or the untagged default for a field not in the table.
  FieldMeta lookup(std::string_view name) const;
};

/// The top-level type of `kind` ("Pod", "Job", ...), or nullptr for a kind without a table.
const TypeMeta* patchMetaForKind(std::string_view kind);

}  // namespace hetbench::kubesim::detail
