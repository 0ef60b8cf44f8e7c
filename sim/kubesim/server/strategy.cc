#include "server/strategy.h"

#include "server/api_error.h"
#include "server/strategy_kinds.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool isDns1123Label(std::string_view s) {
  if (s.empty() || !isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!isLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Labels joined by '.'.
bool isDns1123Subdomain(std::string_view s) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    if (!isDns1123Label(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// [a-z]([-a-z0-9]*[a-z0-9])?
bool isDns1035Label(std::string_view s) {
  return !s.empty() && s.front() >= 'a' && s.front() <= 'z' && isDns1123Label(s);
}

void prepareNamespace(json& ns, const AdmissionContext&) {
  ns["spec"]["finalizers"] = json::array({"kubernetes"});
  ns["status"] = {{"phase", "Active"}};
  ns["metadata"]["labels"]["kubernetes.io/metadata.name"] = ns["metadata"].value("name", "");
}

void prepareService(json& svc, const AdmissionContext& ctx) {
  json& spec = svc["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  if (spec.value("clusterIP", "") != "None") {
    const std::uint64_t n = ctx.serial % 65000 + 10;
    spec["clusterIP"] = "10.96." + std::to_string(n / 250) + "." + std::to_string(n % 250 + 1);
  }
  spec["clusterIPs"] = json::array({spec["clusterIP"]});
  spec["ipFamilies"] = json::array({"IPv4"});
  spec["ipFamilyPolicy"] = "SingleStack";
  if (!spec.contains("internalTrafficPolicy")) spec["internalTrafficPolicy"] = "Cluster";
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (json& port : spec["ports"]) {
      if (!port.contains("protocol")) port["protocol"] = "TCP";
      if (!port.contains("targetPort") && port.contains("port")) port["targetPort"] = port["port"];
    }
  }
  svc["status"] = {{"loadBalancer", json::object()}};
}

std::vector<common::StatusCause> validateService(const json& svc) {
  std::vector<common::StatusCause> causes;
  const json& spec = svc.value("spec", json::object());
  const bool headless = spec.value("clusterIP", "") == "None";
  if (!headless &&
      (!spec.contains("ports") || !spec["ports"].is_array() || spec["ports"].empty())) {
    causes.push_back(common::requiredCause("spec.ports"));
  }
  return causes;
}

std::vector<common::StatusCause> validateEvent(const json& event) {
  std::vector<common::StatusCause> causes;
  const json& involved = event.value("involvedObject", json::object());
  if (involved.value("namespace", "") != event["metadata"].value("namespace", "") &&
      !involved.value("namespace", "").empty()) {
    causes.push_back(common::invalidCause("involvedObject.namespace",
                                          involved.value("namespace", ""),
                                          "does not match event.namespace"));
  }
  return causes;
}

ResourceType builtin(std::string group, std::string version, std::string resource, std::string kind,
                     bool namespaced, std::vector<std::string> shortNames,
                     std::vector<std::string> subresources, bool inAll = false) {
  ResourceType t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.resource = std::move(resource);
  t.kind = std::move(kind);
  t.singular = t.kind;
  for (char& c : t.singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  t.namespaced = namespaced;
  t.shortNames = std::move(shortNames);
  t.subresources = std::move(subresources);
  if (inAll) t.categories = {"all"};
  return t;
}

ResourceType review(std::string group, std::string resource, std::string kind, bool namespaced) {
  ResourceType t =
      builtin(std::move(group), "v1", std::move(resource), std::move(kind), namespaced, {}, {});
  t.createOnly = true;
  return t;
}

}  // namespace

std::vector<common::StatusCause> validateName(const std::string& field, const std::string& name,
                                              const std::string& format) {
  struct Rule {
    std::size_t maxLength;
    bool (*matches)(std::string_view);
    const char* message;
  };
  static const Rule kSubdomain{
      253, isDns1123Subdomain,
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"};
  static const Rule kLabel{
      63, isDns1123Label,
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"};
  static const Rule kLabel1035{
      63, isDns1035Label,
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
      "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"};
  const Rule& rule = format == "subdomain" ? kSubdomain : format == "label" ? kLabel : kLabel1035;
  std::vector<common::StatusCause> causes;
  if (name.size() > rule.maxLength) {
    causes.push_back(common::invalidCause(
        field, name, "must be no more than " + std::to_string(rule.maxLength) + " characters"));
  }
  if (!rule.matches(name)) causes.push_back(common::invalidCause(field, name, rule.message));
  return causes;
}

const Strategy& strategyFor(const ResourceType& type) {
  static const Strategy kDefault{};
  static const Strategy kCustom = [] {
    Strategy s;
    s.generation = true;
    return s;
  }();
  static const Strategy kNamespace = [] {
    Strategy s;
    s.prepareForCreate = prepareNamespace;
    s.nameFormat = "label";
    s.fieldLabels = {"status.phase"};
    return s;
  }();
  static const Strategy kNode = [] {
    Strategy s;
    s.fieldLabels = {"spec.unschedulable"};
    return s;
  }();
  static const Strategy kService = [] {
    Strategy s;
    s.prepareForCreate = prepareService;
    s.validate = validateService;
    s.nameFormat = "label1035";
    s.returnDeletedObject = true;
    return s;
  }();
  static const Strategy kReturnsDeleted = [] {
    Strategy s;
    s.returnDeletedObject = true;
    return s;
  }();
  static const Strategy kEvent = [] {
    Strategy s;
    s.validate = validateEvent;
    s.fieldLabels = {"involvedObject.kind",
                     "involvedObject.namespace",
                     "involvedObject.name",
                     "involvedObject.uid",
                     "involvedObject.apiVersion",
                     "involvedObject.resourceVersion",
                     "involvedObject.fieldPath",
                     "reason",
                     "reportingComponent",
                     "source",
                     "type"};
    return s;
  }();
  static const Strategy kGenerational = [] {
    Strategy s;
    s.generation = true;
    return s;
  }();

  if (type.isCustom()) return kCustom;
  const std::string key = type.storageKey();
  if (key == "/pods") return podStrategy();
  if (key == "batch/jobs") return jobStrategy();
  if (key == "apiextensions.k8s.io/customresourcedefinitions") return crdStrategy();
  if (key == "/namespaces") return kNamespace;
  if (key == "/nodes") return kNode;
  if (key == "/services") return kService;
  if (key == "/events") return kEvent;
  if (key == "apps/deployments") return deploymentStrategy();
  if (key == "apps/replicasets") return replicaSetStrategy();
  if (key == "networking.k8s.io/networkpolicies" ||
      key == "admissionregistration.k8s.io/validatingadmissionpolicies" ||
      key == "admissionregistration.k8s.io/validatingadmissionpolicybindings") {
    return kGenerational;
  }
  if (key == "/serviceaccounts" || key == "/persistentvolumeclaims") return kReturnsDeleted;
  return kDefault;
}

void registerBuiltinResources(ResourceRegistry& registry) {
  registry.add(builtin("", "v1", "namespaces", "Namespace", false, {"ns"}, {"status", "finalize"}));
  registry.add(builtin("", "v1", "nodes", "Node", false, {"no"}, {"status"}));
  registry.add(builtin("", "v1", "pods", "Pod", true, {"po"},
                       {"status", "log", "binding", "exec", "attach", "portforward"}, true));
  registry.add(builtin("", "v1", "services", "Service", true, {"svc"}, {"status"}, true));
  registry.add(builtin("", "v1", "configmaps", "ConfigMap", true, {"cm"}, {}));
  registry.add(builtin("", "v1", "secrets", "Secret", true, {}, {}));
  registry.add(builtin("", "v1", "events", "Event", true, {"ev"}, {}));
  registry.add(builtin("", "v1", "serviceaccounts", "ServiceAccount", true, {"sa"}, {"token"}));
  registry.add(builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, {"pvc"},
                       {"status"}));
  registry.add(builtin("batch", "v1", "jobs", "Job", true, {}, {"status"}, true));
  registry.add(builtin("apps", "v1", "deployments", "Deployment", true, {"deploy"},
                       {"status", "scale"}, true));
  registry.add(
      builtin("apps", "v1", "replicasets", "ReplicaSet", true, {"rs"}, {"status", "scale"}, true));
  registry.add(builtin("coordination.k8s.io", "v1", "leases", "Lease", true, {}, {}));
  registry.add(
      builtin("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, {"netpol"}, {}));
  registry.add(builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true, {}, {}));
  registry.add(
      builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, {}, {}));
  registry.add(
      builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, {}, {}));
  registry.add(builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                       "ClusterRoleBinding", false, {}, {}));
  registry.add(review("authentication.k8s.io", "tokenreviews", "TokenReview", false));
  registry.add(review("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false));
  registry.add(
      review("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false));
  registry.add(
      review("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false));
  registry.add(review("authorization.k8s.io", "localsubjectaccessreviews",
                      "LocalSubjectAccessReview", true));
  registry.add(builtin("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies",
                       "ValidatingAdmissionPolicy", false, {}, {"status"}));
  registry.add(builtin("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
                       "ValidatingAdmissionPolicyBinding", false, {}, {}));
  registry.add(builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                       "CustomResourceDefinition", false, {"crd", "crds"}, {"status"}));
}

}  // namespace hetbench::kubesim
