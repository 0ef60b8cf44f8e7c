#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "server/store.h"

namespace hetbench::kubesim {

/// The environment of one container as the kubelet builds it: env (values, $(VAR) references
/// to earlier variables, fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef) and envFrom.
/// A missing ConfigMap, Secret or key that is not optional is an error, which the kubelet
/// reports as CreateContainerConfigError with this message.
common::Result<std::vector<std::pair<std::string, std::string>>> containerEnv(
    const nlohmann::json& pod, const nlohmann::json& container, const Store& store);

/// Expands $(VAR) from `env` in a command or argument; $$ escapes; unknown references stay.
std::string expandVariables(const std::string& text,
                            const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace hetbench::kubesim
