#pragma once

#include "server/strategy.h"

namespace hetbench::kubesim {

/// Pods: defaults as the API server applies them, container and resource validation, and the
/// pod-update restrictions.
const Strategy& podStrategy();
/// batch/v1 Jobs: selector and label generation, defaults, immutable template.
const Strategy& jobStrategy();
/// CustomResourceDefinitions: names, scope, versions and structural schemas.
const Strategy& crdStrategy();

/// Validates a PodSpec at `path` ("spec" or "spec.template.spec"); shared by pods and jobs.
std::vector<common::StatusCause> validatePodSpec(const nlohmann::json& spec,
                                                 const std::string& path);
/// Applies PodSpec defaults in place; shared by pods and jobs.
void defaultPodSpec(nlohmann::json& spec);

}  // namespace hetbench::kubesim
