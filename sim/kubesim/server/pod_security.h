#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hetbench::kubesim {

/// The levels of the Pod Security Standards, each allowing less than the one before.
enum class PodSecurityLevel { kPrivileged, kBaseline, kRestricted };

/// "privileged", "baseline", "restricted"; nullopt for any other text.
std::optional<PodSecurityLevel> parsePodSecurityLevel(const std::string& text);
std::string toString(PodSecurityLevel level);

/// The checks of `level` that a Pod fails, in the order of the Pod Security Standards, each
/// worded as the PodSecurity admission plugin words it: `allowPrivilegeEscalation != false
/// (container "c" must set securityContext.allowPrivilegeEscalation=false)`. Evaluated as the
/// standards' latest version (v1.32's); not checked: AppArmor, SELinux options, Windows
/// hostProcess. Empty when the pod passes.
std::vector<std::string> podSecurityViolations(const nlohmann::json& pod, PodSecurityLevel level);

/// What the PodSecurity admission plugin decides for a Pod created in a namespace with
/// `labels`: `pod-security.kubernetes.io/enforce` refuses (the error's text, `violates
/// PodSecurity "restricted:latest": ...`), `.../warn` warns (`would violate PodSecurity ...`).
/// A label with another value counts as restricted, as the plugin reads an invalid level.
struct PodSecurityDecision {
  std::optional<std::string> refusal;
  std::vector<std::string> warnings;
};
PodSecurityDecision admitPodSecurity(const nlohmann::json& pod, const nlohmann::json& labels);

}  // namespace hetbench::kubesim
