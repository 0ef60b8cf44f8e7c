#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "server/api_error.h"
#include "server/resource_type.h"

namespace hetbench::kubesim {

/// autoscaling/v1 Scale as the scale subresource of `parent` serves it: the kind its bodies must
/// name and its Invalid errors name ("Scale.autoscaling").
ResourceType scaleType(const ResourceType& parent);

/// The Scale of `object` (a Deployment, a ReplicaSet, or a custom resource whose CRD version
/// declares subresources.scale), as kube-apiserver's ScaleREST answers it: name, namespace, uid,
/// resourceVersion and creationTimestamp from the object; spec.replicas (a Deployment's or
/// ReplicaSet's defaults to 1 as the API defaults it); status.replicas (0 when absent);
/// status.selector, the spec.selector of a Deployment or ReplicaSet in its query-string form,
/// or the string at a custom resource's labelSelectorPath. A custom resource without its spec
/// replicas field is a 500, as on a real server.
ApiResult<nlohmann::json> scaleOf(const ResourceType& type, const nlohmann::json& object);

/// The Scale that an update or patch of the subresource starts from: as scaleOf, but a custom
/// resource without its spec replicas field gives the sentinel that validateScale refuses when
/// nothing replaced it ("cannot be empty").
ApiResult<nlohmann::json> scaleForUpdate(const ResourceType& type, const nlohmann::json& object);

/// A Scale written to the subresource of `type`, checked as the API server decodes and
/// validates it: spec.replicas an int32 (400), not negative (422 `Scale.autoscaling "x" is
/// invalid`); for a custom resource, present.
std::optional<ApiError> validateScale(const ResourceType& type, const std::string& name,
                                      const nlohmann::json& scale);

/// Sets the spec replicas of `object` to the Scale's spec.replicas (absent is 0, Go's zero).
/// A 500 when the path of a custom resource crosses a field that is not an object.
std::optional<ApiError> setReplicasFromScale(const ResourceType& type, const nlohmann::json& scale,
                                             nlohmann::json& object);

/// The causes of a custom resource's scale fields, as the custom resource validator finds them on
/// every write: the spec replicas (unless `statusOnly`) and status replicas must be integers from 0
/// to 2^31-1, the label selector a string. None for a resource without a scale subresource.
std::vector<common::StatusCause> validateCustomResourceScale(const ResourceType& type,
                                                             const nlohmann::json& object,
                                                             bool statusOnly);

}  // namespace hetbench::kubesim
