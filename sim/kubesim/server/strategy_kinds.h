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
/// apps/v1 Deployments: the API's defaults (SetDefaults_Deployment) on every write.
const Strategy& deploymentStrategy();
/// apps/v1 ReplicaSets: the API's defaults (SetDefaults_ReplicaSet) on every write.
const Strategy& replicaSetStrategy();

/// Validates a PodSpec at `path` ("spec" or "spec.template.spec"); shared by pods and jobs.
std::vector<common::StatusCause> validatePodSpec(const nlohmann::json& spec,
                                                 const std::string& path);
/// Applies the defaults of every PodSpec in place (SetDefaults_PodSpec and SetDefaults_Container:
/// restart, DNS and termination settings, pull policy, ...), a pod template's as a pod's; what
/// only Pods get is the pod strategy's.
void defaultPodSpec(nlohmann::json& spec);

}  // namespace hetbench::kubesim
