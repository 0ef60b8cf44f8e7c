#pragma once

#include "cluster/controller.h"

namespace hetbench::kubesim {

/// kube-controller-manager's clusterrole-aggregation controller: the rules of a ClusterRole with
/// an aggregationRule become the rules of every other ClusterRole its clusterRoleSelectors match
/// (selector by selector, each in name order, a rule seen before left out), written back through
/// the API whenever any ClusterRole changes.
class ClusterRoleAggregator final : public Controller {
 public:
  explicit ClusterRoleAggregator(Api& api);
  ~ClusterRoleAggregator() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
};

}  // namespace hetbench::kubesim
