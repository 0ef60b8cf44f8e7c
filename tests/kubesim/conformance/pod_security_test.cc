// kubesim's PodSecurity admission (server/pod_security.h): the checks of each level as a table,
// and the namespace labels that enforce and warn, over HTTP.
#include "server/pod_security.h"

#include <gtest/gtest.h>

#include "conformance/status_util.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

// A pod of one container `c` (or the containers given), the given fields merged into its spec.
json pod(const json& specFields, json containers = nullptr) {
  if (containers.is_null()) containers = json::array({{{"name", "c"}, {"image", "busybox"}}});
  json spec = {{"containers", std::move(containers)}};
  for (const auto& [key, value] : specFields.items()) spec[key] = value;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}}},
          {"spec", std::move(spec)}};
}

const json kRestrictedContainer = {
    {"name", "c"},
    {"image", "busybox"},
    {"securityContext",
     {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", {"ALL"}}}}}}};
const json kRestrictedPod = {
    {"securityContext",
     {{"runAsNonRoot", true}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}}};

json withContainerContext(const json& context) {
  json c = kRestrictedContainer;
  for (const auto& [key, value] : context.items()) c["securityContext"][key] = value;
  return json::array({c});
}

// Verifies each check of the baseline and restricted levels on pods that fail one thing, worded
// as the PodSecurity plugin words them and ordered by the plugin's check ids
// (allowPrivilegeEscalation, capabilities_*, hostNamespaces, ..., seccompProfile_*, sysctls).
TEST(PodSecurity, ChecksOfEachLevel) {
  struct Case {
    std::string name;
    json pod;
    std::vector<std::string> baseline;
    std::vector<std::string> restricted;
  };
  const std::string seccompTail =
      " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")";
  const std::vector<Case> cases = {
      {"a restricted pod", pod(kRestrictedPod, json::array({kRestrictedContainer})), {}, {}},
      {"a bare pod",
       pod(json::object()),
       {},
       {"allowPrivilegeEscalation != false (container \"c\" must set "
        "securityContext.allowPrivilegeEscalation=false)",
        "unrestricted capabilities (container \"c\" must set "
        "securityContext.capabilities.drop=[\"ALL\"])",
        "runAsNonRoot != true (pod or container \"c\" must set securityContext.runAsNonRoot=true)",
        "seccompProfile (pod or container \"c\"" + seccompTail}},
      {"host namespaces",
       pod({{"hostNetwork", true}, {"hostPID", true}, {"securityContext", kRestrictedPod["securityContext"]}},
           json::array({kRestrictedContainer})),
       {"host namespaces (hostNetwork=true, hostPID=true)"},
       {"host namespaces (hostNetwork=true, hostPID=true)"}},
      {"privileged containers",
       pod(kRestrictedPod, json::array({{{"name", "a"}, {"image", "x"},
                                         {"securityContext", {{"privileged", true}}}},
                                        {{"name", "b"}, {"image", "x"},
                                         {"securityContext", {{"privileged", true}}}}})),
       {"privileged (containers \"a\", \"b\" must not set securityContext.privileged=true)"},
       {"allowPrivilegeEscalation != false (containers \"a\", \"b\" must set "
        "securityContext.allowPrivilegeEscalation=false)",
        "unrestricted capabilities (containers \"a\", \"b\" must set "
        "securityContext.capabilities.drop=[\"ALL\"])",
        "privileged (containers \"a\", \"b\" must not set securityContext.privileged=true)"}},
      {"added capabilities",
       pod(kRestrictedPod, withContainerContext(
                               {{"capabilities", {{"drop", {"ALL"}}, {"add", {"CHOWN", "SYS_ADMIN"}}}}})),
       {"non-default capabilities (container \"c\" must not include \"SYS_ADMIN\" in "
        "securityContext.capabilities.add)"},
       {"unrestricted capabilities (container \"c\" must not include \"CHOWN\", \"SYS_ADMIN\" in "
        "securityContext.capabilities.add)"}},
      {"NET_BIND_SERVICE may be added",
       pod(kRestrictedPod, withContainerContext(
                               {{"capabilities", {{"drop", {"ALL"}}, {"add", {"NET_BIND_SERVICE"}}}}})),
       {},
       {}},
      {"hostPath and other volumes",
       pod({{"securityContext", kRestrictedPod["securityContext"]},
            {"volumes", {{{"name", "h"}, {"hostPath", {{"path", "/"}}}},
                         {{"name", "n"}, {"nfs", {{"server", "s"}, {"path", "/"}}}},
                         {{"name", "d"}, {"emptyDir", json::object()}}}}},
           json::array({kRestrictedContainer})),
       {"hostPath volumes (volume \"h\")"},
       {"hostPath volumes (volume \"h\")",
        "restricted volume types (volume \"h\" uses restricted volume type \"hostPath\", volume "
        "\"n\" uses restricted volume type \"nfs\")"}},
      {"host ports",
       pod(kRestrictedPod, json::array({{{"name", "c"},
                                         {"image", "x"},
                                         {"securityContext", kRestrictedContainer["securityContext"]},
                                         {"ports", {{{"containerPort", 80}, {"hostPort", 8080}}}}}})),
       {"hostPort (container \"c\" uses hostPort 8080)"},
       {"hostPort (container \"c\" uses hostPort 8080)"}},
      {"an unconfined pod",
       pod({{"securityContext", {{"runAsNonRoot", true}, {"seccompProfile", {{"type", "Unconfined"}}}}}},
           json::array({kRestrictedContainer})),
       {"seccompProfile (pod must not set securityContext.seccompProfile.type to \"Unconfined\")"},
       {"seccompProfile (pod must not set securityContext.seccompProfile.type to \"Unconfined\")"}},
      {"seccomp and runAsNonRoot in each container instead of the pod",
       pod(json::object(), withContainerContext({{"runAsNonRoot", true},
                                                 {"seccompProfile", {{"type", "Localhost"}, {"localhostProfile", "p.json"}}}})),
       {},
       {}},
      {"root",
       pod({{"securityContext", {{"runAsNonRoot", false}, {"runAsUser", 0}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}}},
           withContainerContext({{"runAsUser", 0}})),
       {},
       {"runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)",
        "runAsUser=0 (pod must not set runAsUser=0; container \"c\" must not set runAsUser=0)"}},
      {"unsafe sysctls and an unmasked /proc",
       pod({{"securityContext", {{"runAsNonRoot", true},
                                 {"seccompProfile", {{"type", "RuntimeDefault"}}},
                                 {"sysctls", {{{"name", "net.ipv4.tcp_syncookies"}, {"value", "1"}},
                                              {{"name", "kernel.msgmax"}, {"value", "1"}}}}}}},
           withContainerContext({{"procMount", "Unmasked"}})),
       {"procMount (container \"c\" must not set securityContext.procMount to \"Unmasked\")",
        "forbidden sysctls (kernel.msgmax)"},
       {"procMount (container \"c\" must not set securityContext.procMount to \"Unmasked\")",
        "forbidden sysctls (kernel.msgmax)"}},
      {"init containers count",
       [&] {
         json p = pod(kRestrictedPod, json::array({kRestrictedContainer}));
         p["spec"]["initContainers"] = json::array({{{"name", "init"}, {"image", "x"}}});
         return p;
       }(),
       {},
       {"allowPrivilegeEscalation != false (container \"init\" must set "
        "securityContext.allowPrivilegeEscalation=false)",
        "unrestricted capabilities (container \"init\" must set "
        "securityContext.capabilities.drop=[\"ALL\"])"}},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(podSecurityViolations(c.pod, PodSecurityLevel::kPrivileged).empty()) << c.name;
    EXPECT_EQ(podSecurityViolations(c.pod, PodSecurityLevel::kBaseline), c.baseline) << c.name;
    EXPECT_EQ(podSecurityViolations(c.pod, PodSecurityLevel::kRestricted), c.restricted) << c.name;
  }
}

json labelledNamespace(const std::string& name, const json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"labels", labels}}}};
}

// Verifies enforcement through a namespace's labels: a pod that violates the enforced level is
// 403 Forbidden with the plugin's message, also in a dry run; one that meets it is created; the
// warn label only warns; a namespace without labels admits anything.
TEST(PodSecurity, NamespaceLabelsEnforceAndWarn) {
  Harness h;
  ASSERT_EQ(
      h.post("/api/v1/namespaces",
             labelledNamespace("locked", {{"pod-security.kubernetes.io/enforce", "restricted"}}))
          .status,
      201);
  ASSERT_EQ(
      h.post("/api/v1/namespaces",
             labelledNamespace("watched", {{"pod-security.kubernetes.io/enforce", "baseline"},
                                           {"pod-security.kubernetes.io/warn", "restricted"}}))
          .status,
      201);
  const json privileged = pod(
      json::object(),
      json::array({{{"name", "c"}, {"image", "x"}, {"securityContext", {{"privileged", true}}}}}));
  const std::string refused =
      "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\": "
      "allowPrivilegeEscalation != false (container \"c\" must set "
      "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "
      "\"c\" must set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or "
      "container \"c\" must set securityContext.runAsNonRoot=true), seccompProfile (pod or "
      "container \"c\" must set securityContext.seccompProfile.type to \"RuntimeDefault\" or "
      "\"Localhost\")";
  expectStatus(h.post("/api/v1/namespaces/locked/pods", pod(json::object())), 403, "Forbidden",
               refused, {{"name", "p"}, {"kind", "pods"}});
  expectStatus(h.post("/api/v1/namespaces/locked/pods?dryRun=All", pod(json::object())), 403,
               "Forbidden", refused, {{"name", "p"}, {"kind", "pods"}});
  EXPECT_EQ(h.post("/api/v1/namespaces/locked/pods",
                   pod(kRestrictedPod, json::array({kRestrictedContainer})))
                .status,
            201);

  expectStatus(h.post("/api/v1/namespaces/watched/pods", privileged), 403, "Forbidden",
               "pods \"p\" is forbidden: violates PodSecurity \"baseline:latest\": privileged "
               "(container \"c\" must not set securityContext.privileged=true)",
               {{"name", "p"}, {"kind", "pods"}});
  const Response warned = h.post("/api/v1/namespaces/watched/pods", pod(json::object()));
  ASSERT_EQ(warned.status, 201) << warned.body;
  EXPECT_NE(warned.header("warning").find("would violate PodSecurity \\\"restricted:latest\\\": "
                                          "allowPrivilegeEscalation != false"),
            std::string::npos)
      << warned.header("warning");

  EXPECT_EQ(h.post("/api/v1/namespaces/default/pods", privileged).status, 201);
}

}  // namespace
}  // namespace hetbench::kubesim::testing
