#include "server/rbac.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr const char* kRoles = "rbac.authorization.k8s.io/roles";
constexpr const char* kClusterRoles = "rbac.authorization.k8s.io/clusterroles";
constexpr const char* kRoleBindings = "rbac.authorization.k8s.io/rolebindings";
constexpr const char* kClusterRoleBindings = "rbac.authorization.k8s.io/clusterrolebindings";

// Whether a string list of the rule holds `value` or the wildcard "*".
bool listMatches(const json& rule, const char* field, const std::string& value) {
  for (const json& item : common::arrayMember(rule, field)) {
    if (!item.is_string()) continue;
    const std::string& s = item.get_ref<const std::string&>();
    if (s == "*" || s == value) return true;
  }
  return false;
}

bool resourceMatches(const json& rule, const std::string& combined,
                     const std::string& subresource) {
  for (const json& item : common::arrayMember(rule, "resources")) {
    if (!item.is_string()) continue;
    const std::string& r = item.get_ref<const std::string&>();
    if (r == "*" || r == combined) return true;
    if (!subresource.empty() && r.size() == subresource.size() + 2 && r.rfind("*/", 0) == 0 &&
        r.compare(2, std::string::npos, subresource) == 0) {
      return true;
    }
  }
  return false;
}

bool resourceNameMatches(const json& rule, const std::string& name) {
  const json& names = common::arrayMember(rule, "resourceNames");
  if (names.empty()) return true;
  return std::any_of(names.begin(), names.end(),
                     [&](const json& n) { return n.is_string() && n.get<std::string>() == name; });
}

bool nonResourceUrlMatches(const json& rule, const std::string& path) {
  for (const json& item : common::arrayMember(rule, "nonResourceURLs")) {
    if (!item.is_string()) continue;
    const std::string& url = item.get_ref<const std::string&>();
    if (url == "*" || url == path) return true;
    if (!url.empty() && url.back() == '*') {
      const std::string prefix = url.substr(0, url.find_last_not_of('*') + 1);
      if (path.rfind(prefix, 0) == 0) return true;
    }
  }
  return false;
}

bool hasGroup(const UserInfo& user, const std::string& group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// A ServiceAccount subject without a namespace means the binding's own; a ClusterRoleBinding
// has none, so such a subject of one matches nobody.
std::string subjectNamespace(const json& subject, const std::string& bindingNamespace) {
  const std::string ns = common::stringMember(subject, "namespace");
  return ns.empty() ? bindingNamespace : ns;
}

bool appliesToUser(const UserInfo& user, const json& subject, const std::string& bindingNamespace) {
  const std::string kind = common::stringMember(subject, "kind");
  const std::string name = common::stringMember(subject, "name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return hasGroup(user, name);
  if (kind == "ServiceAccount") {
    const std::string ns = subjectNamespace(subject, bindingNamespace);
    return !ns.empty() && user.name == "system:serviceaccount:" + ns + ":" + name;
  }
  return false;
}

// The first subject of the binding that is the user, if any.
const json* subjectFor(const UserInfo& user, const json& binding,
                       const std::string& bindingNamespace) {
  for (const json& subject : common::arrayMember(binding, "subjects")) {
    if (appliesToUser(user, subject, bindingNamespace)) return &subject;
  }
  return nullptr;
}

std::string describeSubject(const json& subject, const std::string& bindingNamespace) {
  const std::string kind = common::stringMember(subject, "kind");
  const std::string name = common::stringMember(subject, "name");
  if (kind == "ServiceAccount") {
    return kind + " " + common::goQuote(name + "/" + subjectNamespace(subject, bindingNamespace));
  }
  return kind + " " + common::goQuote(name);
}

// "ClusterRoleBinding "b" of ClusterRole "r" to User "u"", or for a RoleBinding
// "RoleBinding "b/ns" of Role "r" to ...".
std::string describeBinding(const json& binding, const json& subject, const std::string& ns) {
  const std::string name = common::stringMember(common::member(binding, "metadata"), "name");
  const json& ref = common::member(binding, "roleRef");
  const std::string kind = ns.empty() ? "ClusterRoleBinding" : "RoleBinding";
  return kind + " " + common::goQuote(ns.empty() ? name : name + "/" + ns) + " of " +
         common::stringMember(ref, "kind") + " " +
         common::goQuote(common::stringMember(ref, "name")) + " to " + describeSubject(subject, ns);
}

struct RoleRules {
  json rules;
  std::string error;  // set when the role cannot be read, as the RBAC lister reports it
};

RoleRules rulesOf(const Store& store, const json& roleRef, const std::string& bindingNamespace) {
  const std::string kind = common::stringMember(roleRef, "kind");
  const std::string name = common::stringMember(roleRef, "name");
  if (kind != "Role" && kind != "ClusterRole") {
    return {json::array(), "unsupported role reference kind: " + common::goQuote(kind)};
  }
  const bool cluster = kind == "ClusterRole";
  std::optional<json> role =
      store.get(cluster ? kClusterRoles : kRoles, cluster ? "" : bindingNamespace, name);
  if (!role) {
    return {json::array(), std::string(cluster ? "clusterrole" : "role") +
                               ".rbac.authorization.k8s.io " + common::goQuote(name) +
                               " not found"};
  }
  return {common::arrayMember(*role, "rules"), ""};
}

// utilerrors.NewAggregate's text: one error alone, several bracketed, repeats once.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& e : errors) {
    if (seen.insert(e).second) unique.push_back(e);
  }
  if (unique.size() == 1) return unique.front();
  std::string out;
  for (const std::string& e : unique) out += (out.empty() ? "" : ", ") + e;
  return "[" + out + "]";
}

}  // namespace

bool ruleAllows(const json& rule, const AuthorizationAttributes& a) {
  if (!listMatches(rule, "verbs", a.verb)) return false;
  if (!a.resourceRequest) return nonResourceUrlMatches(rule, a.path);
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  return listMatches(rule, "apiGroups", a.group) &&
         resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

AuthorizationDecision authorize(const Store& store, const AuthorizationAttributes& a) {
  if (hasGroup(a.user, "system:masters")) return {true, ""};
  std::vector<std::string> errors;
  // The RBAC authorizer visits every ClusterRoleBinding, then the RoleBindings of the request's
  // namespace, and stops at the first rule that allows.
  const auto visit = [&](const std::vector<json>& bindings,
                         const std::string& ns) -> std::optional<AuthorizationDecision> {
    for (const json& binding : bindings) {
      const json* subject = subjectFor(a.user, binding, ns);
      if (subject == nullptr) continue;
      RoleRules role = rulesOf(store, common::member(binding, "roleRef"), ns);
      if (!role.error.empty()) {
        errors.push_back(role.error);
        continue;
      }
      for (const json& rule : role.rules) {
        if (ruleAllows(rule, a)) {
          return AuthorizationDecision{
              true, "RBAC: allowed by " + describeBinding(binding, *subject, ns)};
        }
      }
    }
    return std::nullopt;
  };
  if (std::optional<AuthorizationDecision> d =
          visit(store.list(kClusterRoleBindings, "").first, "")) {
    return *d;
  }
  if (!a.ns.empty()) {
    if (std::optional<AuthorizationDecision> d =
            visit(store.list(kRoleBindings, a.ns).first, a.ns)) {
      return *d;
    }
  }
  return {false, errors.empty() ? "" : "RBAC: " + aggregate(errors)};
}

}  // namespace hetbench::kubesim
