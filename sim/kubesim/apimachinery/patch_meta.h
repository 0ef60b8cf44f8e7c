#pragma once

// The patchStrategy / patchMergeKey tags of the Kubernetes API types, for the kinds kubesim
// serves: strategic merge patch reads them, and the OpenAPI documents publish them
// (x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key) for clients that build patches.

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
  /// patchStrategy:"retainKeys": clients that build patches send a $retainKeys directive for
  /// the field. The server side needs no table for it: it applies the directive wherever one is.
  bool retainKeys = false;
};

struct TypeMeta {
  std::map<std::string, FieldMeta, std::less<>> fields;

  /// The field's tags, or the untagged default for a field not in the table.
  FieldMeta lookup(std::string_view name) const;
};

/// The top-level type of `kind` ("Pod", "Job", ...), or nullptr for a kind without a table.
const TypeMeta* patchMetaForKind(std::string_view kind);

}  // namespace hetbench::kubesim::detail
