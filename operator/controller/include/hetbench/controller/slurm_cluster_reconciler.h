#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/controller/slurm_connector.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"

namespace hetbench::controller {

struct SlurmClusterReconcilerOptions {
  /// How often a cluster is probed again.
  std::chrono::seconds probeInterval{60};
};

/// Probes one SlurmCluster: connects to it (SlurmConnector), asks slurmrestd
/// for a ping (is slurmctld up) and the partitions (does the token work, since a v0.0.42 ping
/// does not check it; is the default partition there), and writes the Ready condition (True
/// `Reachable`, or False with `InvalidSpec`, `SecretNotFound`, `Unreachable`, `Unauthorized`,
/// `SlurmError` or `PartitionNotFound`) and the partitions through /status when they change,
/// with an Event when Ready changes. Asks to be called again after the probe interval.
class SlurmClusterReconciler {
 public:
  SlurmClusterReconciler(kube::KubeClient& client, const SlurmClusterCache& cache,
                         const SlurmConnector& connector, const common::Clock& clock,
                         kube::EventRecorder& events, SlurmClusterReconcilerOptions options);

  common::Result<ReconcileResult> reconcile(const std::string& name);

 private:
  kube::KubeClient& client_;
  const SlurmClusterCache& cache_;
  const SlurmConnector& connector_;
  const common::Clock& clock_;
  kube::EventRecorder& events_;
  SlurmClusterReconcilerOptions options_;
};

}  // namespace hetbench::controller
