#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/controller.h"
#include "cluster/events.h"

namespace hetbench::kubesim {

/// The apps/v1 ReplicaSet controller of kube-controller-manager: keeps spec.replicas pods of
/// the template (named NAME-xxxxx, controlled by the ReplicaSet) neither succeeded, failed nor
/// terminating, deletes the surplus (pods not ready first, then the newest) and writes the
/// status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
/// observedGeneration). It records SuccessfulCreate, FailedCreate and SuccessfulDelete.
class ReplicaSetController final : public Controller {
 public:
  ReplicaSetController(Api& api, EventRecorder& events);
  ~ReplicaSetController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
  void record(const nlohmann::json& replicaSet, std::string_view type, std::string_view reason,
              const std::string& message);

  EventRecorder& events_;
};

/// The apps/v1 Deployment controller: one ReplicaSet per pod template (NAME-HASH, with the
/// pod-template-hash label), rolled out by the RollingUpdate strategy (maxSurge and
/// maxUnavailable, 25% each by default) or Recreate; the revision annotations that `kubectl
/// rollout` reads; old ReplicaSets beyond revisionHistoryLimit deleted; the status with the
/// Available and Progressing conditions that `kubectl rollout status` and `helm --wait` wait
/// for. It records ScalingReplicaSet.
class DeploymentController final : public Controller {
 public:
  DeploymentController(Api& api, EventRecorder& events);
  ~DeploymentController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
  /// Sets a ReplicaSet's spec.replicas and its desired- and max-replicas annotations, here and
  /// in `replicaSet`; true when the size changed (a ScalingReplicaSet Event is recorded).
  bool scale(const nlohmann::json& deployment, nlohmann::json& replicaSet, std::int64_t replicas,
             std::int64_t maxSurge);
  /// Creates the Deployment's new ReplicaSet (NAME-HASH) with `replicas`; nullopt when it could
  /// not (a name collision moves status.collisionCount on for the next try).
  std::optional<nlohmann::json> createReplicaSet(const nlohmann::json& deployment,
                                                 std::int64_t replicas, std::int64_t maxSurge,
                                                 std::int64_t revision);
  /// rolling.go's reconcileOldReplicaSets: scales the old ReplicaSets (oldest first) down as far
  /// as maxUnavailable allows, unavailable pods first.
  void reconcileOldReplicaSets(const nlohmann::json& deployment, const nlohmann::json& current,
                               std::vector<nlohmann::json>& old, std::int64_t maxSurge,
                               std::int64_t maxUnavailable);
  void record(const nlohmann::json& deployment, std::string_view type, std::string_view reason,
              const std::string& message);

  EventRecorder& events_;
};

/// The pod-template-hash of a Deployment's template: FNV-1a (32 bits) of the template and the
/// collision count, spelled with the consonants and digits of apimachinery's SafeEncodeString,
/// as the Deployment controller names ReplicaSets (the value differs from Kubernetes', which
/// hashes the Go structure).
std::string podTemplateHash(const nlohmann::json& podTemplate, std::int64_t collisionCount);

}  // namespace hetbench::kubesim
