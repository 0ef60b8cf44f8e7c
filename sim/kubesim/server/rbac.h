#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "server/authentication.h"
#include "server/store.h"

namespace hetbench::kubesim {

/// One request to authorize, as the API server's authorizer.Attributes carries it.
struct AuthorizationAttributes {
  UserInfo user;
  std::string verb;
  /// A resource request names group, resource and so on; the others a non-resource path.
  bool resourceRequest = true;
  std::string ns;
  std::string group;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;
};

/// An authorizer's answer. RBAC only allows or has no opinion, so `allowed` false means "not
/// allowed" (a SubjectAccessReview's status.denied stays unset).
struct AuthorizationDecision {
  bool allowed = false;
  /// Worded as kube-apiserver words it: "RBAC: allowed by ClusterRoleBinding "b" of
  /// ClusterRole "r" to User "u"", the RBAC errors met when nothing allowed, or empty.
  std::string reason;
};

/// Whether one rbac.authorization.k8s.io/v1 PolicyRule allows the request: verbs, apiGroups,
/// resources ("*", "resource/subresource", "*/subresource") and resourceNames for a resource
/// request; verbs and nonResourceURLs (exact, or a prefix ending in "*") for the others.
bool ruleAllows(const nlohmann::json& rule, const AuthorizationAttributes& attributes);

/// kube-apiserver's authorizer chain as kubesim has it: the group system:masters may do
/// anything (no reason given), then the RBAC authorizer over the Roles, ClusterRoles,
/// RoleBindings and ClusterRoleBindings in `store`. ClusterRoleBindings grant everywhere, and
/// alone grant non-resource URLs; RoleBindings grant in their own namespace only. An aggregated
/// ClusterRole grants the rules the aggregation controller wrote into it. This evaluates for the
/// review APIs; kubesim enforces nothing.
AuthorizationDecision authorize(const Store& store, const AuthorizationAttributes& attributes);

}  // namespace hetbench::kubesim
