#include "cluster/clusterrole_aggregation.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "apimachinery/selectors.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr const char* kClusterRoles = "rbac.authorization.k8s.io/clusterroles";

const json& aggregationRule(const json& clusterRole) {
  return common::member(clusterRole, "aggregationRule");
}

std::string nameOf(const json& object) {
  return common::stringMember(common::member(object, "metadata"), "name");
}

}  // namespace

ClusterRoleAggregator::ClusterRoleAggregator(Api& api)
    : Controller(api, "clusterrole-aggregation") {
  // Any ClusterRole may start or stop matching a selector, so every change revisits every
  // aggregated ClusterRole.
  watch(kClusterRoles, [this](const WatchEvent&) {
    std::vector<ObjectKey> keys;
    const std::vector<json> roles = api_.store().list(kClusterRoles, "").first;
    for (const json& role : roles) {
      if (aggregationRule(role).is_object()) keys.push_back({kClusterRoles, "", nameOf(role)});
    }
    return keys;
  });
}

std::optional<std::chrono::milliseconds> ClusterRoleAggregator::reconcile(const ObjectKey& key) {
  std::optional<json> role = api_.store().get(kClusterRoles, "", key.name);
  if (!role || !aggregationRule(*role).is_object()) return std::nullopt;
  const auto [all, rv] = api_.store().list(kClusterRoles, "");
  (void)rv;
  json rules = json::array();
  for (const json& selector : common::arrayMember(aggregationRule(*role), "clusterRoleSelectors")) {
    common::Result<LabelSelector> parsed = LabelSelector::fromJson(selector);
    if (!parsed.isOk()) {
      spdlog::warn("kubesim clusterrole aggregation skipped a selector clusterrole={} error={}",
                   key.name, parsed.status().message());
      continue;
    }
    // The store lists in name order, as the controller sorts what its selector finds.
    for (const json& other : all) {
      if (nameOf(other) == key.name) continue;
      if (!parsed->matches(common::member(common::member(other, "metadata"), "labels"))) continue;
      for (const json& rule : common::arrayMember(other, "rules")) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
      }
    }
  }
  updateObject(api_, builtinType(api_, "rbac.authorization.k8s.io", "clusterroles"), "", key.name,
               [&](json& current) {
                 const json& now = common::member(current, "rules");
                 const bool same = now == rules || (rules.empty() && !now.is_array());
                 if (same) return false;
                 current["rules"] = rules;
                 return true;
               });
  return std::nullopt;
}

}  // namespace hetbench::kubesim
