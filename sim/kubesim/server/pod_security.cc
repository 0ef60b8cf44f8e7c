#include "server/pod_security.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string_view>
#include <utility>

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr std::string_view kLabelPrefix = "pod-security.kubernetes.io/";

// Capabilities that the baseline level allows a container to add.
constexpr std::array<std::string_view, 13> kBaselineCapabilities = {
    "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};

// Sysctls that the baseline level allows (the "safe" set).
constexpr std::array<std::string_view, 10> kSafeSysctls = {"kernel.shm_rmid_forced",
                                                           "net.ipv4.ip_local_port_range",
                                                           "net.ipv4.ip_unprivileged_port_start",
                                                           "net.ipv4.tcp_syncookies",
                                                           "net.ipv4.ping_group_range",
                                                           "net.ipv4.ip_local_reserved_ports",
                                                           "net.ipv4.tcp_keepalive_time",
                                                           "net.ipv4.tcp_fin_timeout",
                                                           "net.ipv4.tcp_keepalive_intvl",
                                                           "net.ipv4.tcp_keepalive_probes"};

// Volume types that the restricted level allows.
constexpr std::array<std::string_view, 8> kRestrictedVolumes = {
    "configMap", "csi",   "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
    "projected", "secret"};

template <std::size_t N>
bool oneOf(const std::array<std::string_view, N>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

const json& at(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool isTrue(const json& v) { return v.is_boolean() && v.get<bool>(); }
std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

struct Container {
  std::string name;
  const json* object;
};

// A failed check: the plugin's id of the check (its output is ordered by it) and the text.
using Finding = std::pair<std::string, std::string>;

std::string joinWith(const std::vector<std::string>& parts, std::string_view separator) {
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty()) joined += separator;
    joined += part;
  }
  return joined;
}

// Every container of the pod: init containers, containers, ephemeral containers.
std::vector<Container> containersOf(const json& spec) {
  std::vector<Container> all;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const json& items = at(spec, list);
    if (!items.is_array()) continue;
    for (const json& c : items) all.push_back({text(at(c, "name")), &c});
  }
  return all;
}

std::string quotedList(const std::vector<std::string>& values) {
  std::vector<std::string> quoted;
  quoted.reserve(values.size());
  for (const std::string& value : values) quoted.push_back("\"" + value + "\"");
  return joinWith(quoted, ", ");
}

// `container "a"` or `containers "a", "b"`.
std::string containerList(const std::vector<std::string>& names) {
  return (names.size() == 1 ? "container " : "containers ") + quotedList(names);
}

// Per container, the capabilities it adds beyond those `allowed` admits, as causes.
std::vector<std::string> addedCapabilityCauses(
    const std::vector<Container>& containers,
    const std::function<bool(const std::string&)>& allowed) {
  std::vector<std::string> causes;
  for (const Container& c : containers) {
    const json& add = at(at(at(*c.object, "securityContext"), "capabilities"), "add");
    if (!add.is_array()) continue;
    std::vector<std::string> added;
    for (const json& cap : add) {
      if (!allowed(text(cap))) added.push_back(text(cap));
    }
    if (!added.empty()) {
      causes.push_back("container \"" + c.name + "\" must not include " + quotedList(added) +
                       " in securityContext.capabilities.add");
    }
  }
  return causes;
}

// The names of the containers for which `bad` holds.
std::vector<std::string> failing(const std::vector<Container>& containers,
                                 const std::function<bool(const json&)>& bad) {
  std::vector<std::string> names;
  for (const Container& c : containers) {
    if (bad(*c.object)) names.push_back(c.name);
  }
  return names;
}

// Unconfined nowhere (baseline), and at the restricted level RuntimeDefault or Localhost at the
// pod level or in every container that sets none of its own; the causes, or nullopt.
std::optional<std::string> seccompCheck(const json& spec, const std::vector<Container>& containers,
                                        bool restricted) {
  const auto typeOf = [](const json& object) {
    return text(at(at(at(object, "securityContext"), "seccompProfile"), "type"));
  };
  std::vector<std::string> causes;
  const std::string podType = typeOf(spec);
  if (podType == "Unconfined") {
    causes.emplace_back("pod must not set securityContext.seccompProfile.type to \"Unconfined\"");
  }
  if (auto names = failing(containers, [&](const json& c) { return typeOf(c) == "Unconfined"; });
      !names.empty()) {
    causes.push_back(containerList(names) +
                     " must not set securityContext.seccompProfile.type to \"Unconfined\"");
  }
  const auto allowed = [](const std::string& type) {
    return type == "RuntimeDefault" || type == "Localhost";
  };
  if (restricted && podType.empty()) {
    if (auto names = failing(containers, [&](const json& c) { return typeOf(c).empty(); });
        !names.empty()) {
      causes.push_back("pod or " + containerList(names) +
                       " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
                       "\"Localhost\"");
    }
  } else if (restricted && !allowed(podType) && podType != "Unconfined") {
    causes.push_back(
        "pod must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
        "\"Localhost\"");
  }
  if (causes.empty()) return std::nullopt;
  return joinWith(causes, "; ");
}

// The baseline level's checks; at the restricted level its capabilities and seccomp checks
// give way to the stricter ones, as in the plugin.
void baselineChecks(const json& spec, const std::vector<Container>& containers, bool restricted,
                    std::vector<Finding>& out) {
  std::vector<std::string> hostNamespaces;
  for (const char* field : {"hostNetwork", "hostPID", "hostIPC"}) {
    if (isTrue(at(spec, field))) hostNamespaces.push_back(std::string(field) + "=true");
  }
  if (!hostNamespaces.empty()) {
    const std::string joined = joinWith(hostNamespaces, ", ");
    out.emplace_back("hostNamespaces", "host namespaces (" + joined + ")");
  }

  if (auto names =
          failing(containers,
                  [](const json& c) { return isTrue(at(at(c, "securityContext"), "privileged")); });
      !names.empty()) {
    out.emplace_back("privileged", "privileged (" + containerList(names) +
                                       " must not set securityContext.privileged=true)");
  }

  const std::vector<std::string> capabilityCauses =
      restricted ? std::vector<std::string>()
                 : addedCapabilityCauses(containers, [](const std::string& cap) {
                     return oneOf(kBaselineCapabilities, cap);
                   });
  if (!capabilityCauses.empty()) {
    const std::string joined = joinWith(capabilityCauses, "; ");
    out.emplace_back("capabilities_baseline", "non-default capabilities (" + joined + ")");
  }

  std::vector<std::string> hostPathVolumes;
  if (const json& volumes = at(spec, "volumes"); volumes.is_array()) {
    for (const json& v : volumes) {
      if (!at(v, "hostPath").is_null()) hostPathVolumes.push_back(text(at(v, "name")));
    }
  }
  if (!hostPathVolumes.empty()) {
    out.emplace_back("hostPathVolumes",
                     std::string(hostPathVolumes.size() == 1 ? "hostPath volumes (volume "
                                                             : "hostPath volumes (volumes ") +
                         quotedList(hostPathVolumes) + ")");
  }

  std::vector<std::string> hostPorts;
  for (const Container& c : containers) {
    const json& ports = at(*c.object, "ports");
    if (!ports.is_array()) continue;
    for (const json& p : ports) {
      const json& port = at(p, "hostPort");
      if (port.is_number_integer() && port.get<std::int64_t>() != 0) {
        hostPorts.push_back("container \"" + c.name + "\" uses hostPort " +
                            std::to_string(port.get<std::int64_t>()));
      }
    }
  }
  if (!hostPorts.empty()) {
    const std::string joined = joinWith(hostPorts, ", ");
    out.emplace_back("hostPorts", "hostPort (" + joined + ")");
  }

  if (auto names = failing(containers,
                           [](const json& c) {
                             const std::string type =
                                 text(at(at(c, "securityContext"), "procMount"));
                             return !type.empty() && type != "Default";
                           });
      !names.empty()) {
    out.emplace_back("procMount", "procMount (" + containerList(names) +
                                      " must not set securityContext.procMount to \"Unmasked\")");
  }

  if (std::optional<std::string> seccomp = seccompCheck(spec, containers, restricted)) {
    out.emplace_back(restricted ? "seccompProfile_restricted" : "seccompProfile_baseline",
                     "seccompProfile (" + *seccomp + ")");
  }

  std::vector<std::string> sysctls;
  if (const json& list = at(at(spec, "securityContext"), "sysctls"); list.is_array()) {
    for (const json& s : list) {
      if (!oneOf(kSafeSysctls, text(at(s, "name")))) sysctls.push_back(text(at(s, "name")));
    }
  }
  if (!sysctls.empty()) {
    out.emplace_back(
        "sysctls", "forbidden sysctls (" + [&] {
          const std::string joined = joinWith(sysctls, ", ");
          return joined;
        }() + ")");
  }
}

void restrictedChecks(const json& spec, const std::vector<Container>& containers,
                      std::vector<Finding>& out) {
  std::vector<std::string> volumeCauses;
  if (const json& volumes = at(spec, "volumes"); volumes.is_array()) {
    for (const json& v : volumes) {
      if (!v.is_object()) continue;
      for (const auto& [key, value] : v.items()) {
        if (key == "name" || oneOf(kRestrictedVolumes, key)) continue;
        volumeCauses.push_back("volume \"" + text(at(v, "name")) +
                               "\" uses restricted volume type \"" + key + "\"");
      }
    }
  }
  if (!volumeCauses.empty()) {
    const std::string joined = joinWith(volumeCauses, ", ");
    out.emplace_back("restrictedVolumes", "restricted volume types (" + joined + ")");
  }

  if (auto names = failing(containers,
                           [](const json& c) {
                             const json& v =
                                 at(at(c, "securityContext"), "allowPrivilegeEscalation");
                             return !(v.is_boolean() && !v.get<bool>());
                           });
      !names.empty()) {
    out.emplace_back("allowPrivilegeEscalation",
                     "allowPrivilegeEscalation != false (" + containerList(names) +
                         " must set securityContext.allowPrivilegeEscalation=false)");
  }

  std::vector<std::string> capabilityCauses;
  if (auto names = failing(containers,
                           [](const json& c) {
                             const json& drop =
                                 at(at(at(c, "securityContext"), "capabilities"), "drop");
                             return !drop.is_array() ||
                                    std::none_of(drop.begin(), drop.end(),
                                                 [](const json& d) { return text(d) == "ALL"; });
                           });
      !names.empty()) {
    capabilityCauses.push_back(containerList(names) +
                               " must set securityContext.capabilities.drop=[\"ALL\"]");
  }
  for (std::string& cause : addedCapabilityCauses(
           containers, [](const std::string& cap) { return cap == "NET_BIND_SERVICE"; })) {
    capabilityCauses.push_back(std::move(cause));
  }
  if (!capabilityCauses.empty()) {
    const std::string joined = joinWith(capabilityCauses, "; ");
    out.emplace_back("capabilities_restricted", "unrestricted capabilities (" + joined + ")");
  }

  // runAsNonRoot: true at the pod level or in every container, false nowhere.
  const json& podNonRoot = at(at(spec, "securityContext"), "runAsNonRoot");
  std::vector<std::string> nonRootCauses;
  if (podNonRoot.is_boolean() && !podNonRoot.get<bool>()) {
    nonRootCauses.emplace_back("pod must not set securityContext.runAsNonRoot=false");
  }
  if (auto names = failing(containers,
                           [](const json& c) {
                             const json& v = at(at(c, "securityContext"), "runAsNonRoot");
                             return v.is_boolean() && !v.get<bool>();
                           });
      !names.empty()) {
    nonRootCauses.push_back(containerList(names) +
                            " must not set securityContext.runAsNonRoot=false");
  }
  if (podNonRoot.is_null()) {
    if (auto names = failing(
            containers,
            [](const json& c) { return at(at(c, "securityContext"), "runAsNonRoot").is_null(); });
        !names.empty()) {
      nonRootCauses.push_back("pod or " + containerList(names) +
                              " must set securityContext.runAsNonRoot=true");
    }
  }
  if (!nonRootCauses.empty()) {
    const std::string joined = joinWith(nonRootCauses, "; ");
    out.emplace_back("runAsNonRoot", "runAsNonRoot != true (" + joined + ")");
  }

  std::vector<std::string> rootCauses;
  const json& podUser = at(at(spec, "securityContext"), "runAsUser");
  if (podUser.is_number_integer() && podUser.get<std::int64_t>() == 0) {
    rootCauses.emplace_back("pod must not set runAsUser=0");
  }
  if (auto names = failing(containers,
                           [](const json& c) {
                             const json& v = at(at(c, "securityContext"), "runAsUser");
                             return v.is_number_integer() && v.get<std::int64_t>() == 0;
                           });
      !names.empty()) {
    rootCauses.push_back(containerList(names) + " must not set runAsUser=0");
  }
  if (!rootCauses.empty()) {
    const std::string joined = joinWith(rootCauses, "; ");
    out.emplace_back("runAsUser", "runAsUser=0 (" + joined + ")");
  }
}

}  // namespace

std::optional<PodSecurityLevel> parsePodSecurityLevel(const std::string& value) {
  if (value == "privileged") return PodSecurityLevel::kPrivileged;
  if (value == "baseline") return PodSecurityLevel::kBaseline;
  if (value == "restricted") return PodSecurityLevel::kRestricted;
  return std::nullopt;
}

std::string toString(PodSecurityLevel level) {
  switch (level) {
    case PodSecurityLevel::kPrivileged:
      return "privileged";
    case PodSecurityLevel::kBaseline:
      return "baseline";
    case PodSecurityLevel::kRestricted:
      return "restricted";
  }
  return "restricted";
}

std::vector<std::string> podSecurityViolations(const json& pod, PodSecurityLevel level) {
  std::vector<std::string> out;
  if (level == PodSecurityLevel::kPrivileged) return out;
  const json& spec = at(pod, "spec");
  const std::vector<Container> containers = containersOf(spec);
  const bool restricted = level == PodSecurityLevel::kRestricted;
  std::vector<Finding> findings;
  baselineChecks(spec, containers, restricted, findings);
  if (restricted) restrictedChecks(spec, containers, findings);
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.first < b.first; });
  for (Finding& finding : findings) out.push_back(std::move(finding.second));
  return out;
}

PodSecurityDecision admitPodSecurity(const json& pod, const json& labels) {
  PodSecurityDecision decision;
  const auto levelOf = [&](const char* mode) -> std::optional<PodSecurityLevel> {
    const json& value = at(labels, std::string(kLabelPrefix) + mode);
    if (!value.is_string()) return std::nullopt;
    return parsePodSecurityLevel(value.get<std::string>()).value_or(PodSecurityLevel::kRestricted);
  };
  const auto describe = [&](PodSecurityLevel level) -> std::optional<std::string> {
    const std::vector<std::string> violations = podSecurityViolations(pod, level);
    if (violations.empty()) return std::nullopt;
    const std::string joined = joinWith(violations, ", ");
    return "PodSecurity \"" + toString(level) + ":latest\": " + joined;
  };
  if (const std::optional<PodSecurityLevel> enforce = levelOf("enforce")) {
    if (std::optional<std::string> why = describe(*enforce)) decision.refusal = "violates " + *why;
  }
  if (const std::optional<PodSecurityLevel> warn = levelOf("warn"); warn && !decision.refusal) {
    if (std::optional<std::string> why = describe(*warn)) {
      decision.warnings.push_back("would violate " + *why);
    }
  }
  return decision;
}

}  // namespace hetbench::kubesim
