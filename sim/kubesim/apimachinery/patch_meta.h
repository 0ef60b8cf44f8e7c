#pragma once

// The patchStrategy / patchMergeKey tags of the Kubernetes API types, for the kinds kubesim
// serves: strategic merge patch reads them, and the OpenAPI documents publish them
// (x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key) for clients that build patches;
// and the few list and map types beyond them that server-side apply reads.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetbench::kubesim::detail {

struct TypeMeta;

/// One field of a struct. `type` is the struct type of an object field or of a list's elements;
/// nullptr where nothing below has tags (then maps merge and lists are replaced).
struct FieldMeta {
  bool merge = false;    // patchStrategy:"merge" (lists only; maps always merge)
  std::string mergeKey;  // patchMergeKey; empty for lists of primitives
  const TypeMeta* type = nullptr;
  /// Server-side apply only: the x-kubernetes-list-map-keys beyond the patchMergeKey, each with
  /// its default ("" for none): a container port is keyed by containerPort and protocol.
  std::vector<std::pair<std::string, std::string>> moreKeys = {};
  /// Server-side apply only: a map or struct owned and replaced as a whole
  /// (x-kubernetes-map-type: atomic), which strategic merge patch still merges.
  bool atomic = false;
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
