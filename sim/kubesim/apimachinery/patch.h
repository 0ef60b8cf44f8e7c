#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// RFC 7386 JSON merge patch (application/merge-patch+json). A patch that is not an object
/// replaces the target.
nlohmann::json applyMergePatch(const nlohmann::json& target, const nlohmann::json& patch);

/// RFC 6902 JSON patch (application/json-patch+json): add, remove, replace, move, copy, test.
/// A malformed patch document or an operation that cannot apply (missing path, failed test) is
/// Invalid, with a message in the API server's words.
common::Result<nlohmann::json> applyJsonPatch(const nlohmann::json& target,
                                              const nlohmann::json& patch);

/// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds that
/// kubesim serves (Pod, Service, ConfigMap, Namespace, Node, Event, ServiceAccount, Job, Lease,
/// Scale, CustomResourceDefinition), as `kubectl apply` and `kubectl patch` send it: lists merged
/// by their patchMergeKey (containers by name, ports by containerPort, ...), the directives $patch
/// (replace, delete, merge), $retainKeys, $deleteFromPrimitiveList/<field> and
/// $setElementOrder/<field>; lists without a merge key are replaced. `kind` picks the
/// per-kind field table. Invalid for a malformed patch or an unknown directive.
common::Result<nlohmann::json> applyStrategicMergePatch(std::string_view kind,
                                                        const nlohmann::json& target,
                                                        const nlohmann::json& patch);

}  // namespace hetbench::kubesim
