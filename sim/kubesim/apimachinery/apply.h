#pragma once

// Server-side apply (application/apply-patch+yaml) and the managedFields bookkeeping of every
// write, as k8s.io/apiserver's field manager and sigs.k8s.io/structured-merge-diff do them.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/field_set.h"
#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// What server-side apply needs of a type's schema: how its lists and maps merge and are owned.
/// Lists are atomic and maps granular unless the schema says otherwise.
struct ApplyType {
  enum class List { kAtomic, kSet, kMap };
  List list = List::kAtomic;
  /// x-kubernetes-list-map-keys of a map list, in order, and their defaults (JSON values).
  std::vector<std::string> keys = {};
  nlohmann::json keyDefaults = nlohmann::json::object();
  /// x-kubernetes-map-type: atomic (or a struct owned as a whole, as LabelSelector).
  bool atomic = false;
  /// Keys this type does not declare are map entries, owned as a whole where their value is an
  /// object (additionalProperties, x-kubernetes-preserve-unknown-fields); otherwise they are
  /// taken for struct fields kubesim's tables leave out.
  bool entries = false;
  std::map<std::string, std::shared_ptr<const ApplyType>, std::less<>> fields = {};
  /// The type of list elements, or of the values of a map's undeclared keys.
  std::shared_ptr<const ApplyType> items = {};

  const ApplyType& field(std::string_view name) const;
  bool declares(std::string_view name) const { return fields.count(name) > 0; }
  const ApplyType& item() const;
};

/// The type of a built-in kind, from the strategic merge patch tables (map lists by their keys,
/// set lists, the few atomic maps); fields outside the tables are granular maps and atomic lists.
std::shared_ptr<const ApplyType> applyTypeForKind(std::string_view kind);
/// The type of a custom resource from its CRD's openAPIV3Schema: x-kubernetes-list-type,
/// x-kubernetes-list-map-keys (defaults from the key's schema), x-kubernetes-map-type,
/// additionalProperties and x-kubernetes-preserve-unknown-fields; metadata as ObjectMeta.
std::shared_ptr<const ApplyType> applyTypeForSchema(const nlohmann::json& openApiV3Schema);

/// The paths an applied configuration sets: its scalars, the elements of its non-atomic lists,
/// its atomic lists and maps, its empty or null fields and its map entries.
FieldSet fieldSetOf(const nlohmann::json& object, const ApplyType& type);

/// How `after` differs from `before`, path by path: a map or list added or removed as a whole is
/// a member itself, beside what it holds.
struct Comparison {
  FieldSet added = {};
  FieldSet modified = {};
  FieldSet removed = {};
};
Comparison compareObjects(const nlohmann::json& before, const nlohmann::json& after,
                          const ApplyType& type);

/// `config` merged into `live`: granular maps key by key, map and set lists element by element
/// (shared elements in the configuration's order, the others kept where they were), everything
/// else replaced. A null in `config` removes the field.
nlohmann::json mergeApplied(const nlohmann::json& live, const nlohmann::json& config,
                            const ApplyType& type);

/// `object` without the values at `paths` (members of a FieldSet).
nlohmann::json removePaths(const nlohmann::json& object, const std::vector<FieldSet::Path>& paths,
                           const ApplyType& type);

/// One entry of metadata.managedFields.
struct ManagedFieldsEntry {
  std::string manager = {};
  std::string operation = {};  // "Apply" or "Update"
  std::string apiVersion = {};
  std::string time = {};
  std::string subresource = {};
  FieldSet fields = {};
};

/// metadata.managedFields read; Invalid when an entry is malformed.
common::Result<std::vector<ManagedFieldsEntry>> decodeManagedFields(const nlohmann::json& entries);
/// metadata.managedFields as the API server writes it: Apply entries first, then by time,
/// manager, apiVersion and subresource.
nlohmann::json encodeManagedFields(std::vector<ManagedFieldsEntry> entries);

/// Who writes: the manager, the apiVersion of the request, the subresource and the time.
struct FieldWriter {
  std::string manager = {};
  std::string apiVersion = {};
  std::string subresource = {};
  std::string time = {};
};

/// A field that another manager owns with another value than the one applied.
struct FieldConflict {
  std::string manager = {};  // as the message names it: "\"m\"" or "\"m\" using apps/v1"
  FieldSet::Path path = {};
};

struct ApplyOutcome {
  nlohmann::json object = {};
  std::vector<ManagedFieldsEntry> managedFields = {};
  /// Not empty: the apply is refused (unless forced, when the others lost these fields).
  std::vector<FieldConflict> conflicts = {};
};

/// Applies `config` for `writer` to `live` (both without metadata.managedFields; `live` an empty
/// object when the apply creates): merges it, removes what the manager applied before and omits
/// now where no other manager owns it, and moves ownership. Without `force`, changing a value
/// another manager owns is a conflict; with it, the field changes hands.
ApplyOutcome applyConfiguration(const nlohmann::json& live, const nlohmann::json& config,
                                std::vector<ManagedFieldsEntry> managed, const FieldWriter& writer,
                                bool force, const ApplyType& type);

/// The managed fields after a write other than apply (create, update, patch) by `writer`
/// changed `before` into `after`: the writer's Update entry gains what changed, the other
/// managers lose it.
std::vector<ManagedFieldsEntry> recordUpdate(const nlohmann::json& before,
                                             const nlohmann::json& after,
                                             std::vector<ManagedFieldsEntry> managed,
                                             const FieldWriter& writer, const ApplyType& type);

/// The 409 message: `Apply failed with 1 conflict: conflict with "m" using apps/v1: .spec.x`, or
/// for several, the conflicts grouped by manager.
std::string conflictMessage(const std::vector<FieldConflict>& conflicts);

}  // namespace hetbench::kubesim
