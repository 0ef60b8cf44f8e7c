#pragma once

#include <memory>
#include <string>

#include "cluster/clusterrole_aggregation.h"
#include "cluster/config.h"
#include "cluster/control_plane.h"
#include "cluster/event_ttl.h"
#include "cluster/events.h"
#include "cluster/kubelet.h"
#include "cluster/scheduler.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "server/api.h"
#include "server/store.h"

namespace hetbench::kubesim {

struct ClusterOptions {
  ClusterConfig config;
  std::string workDir;
  std::size_t watchHistory = 10000;
  std::chrono::milliseconds restartBackoff{std::chrono::seconds(10)};
  std::chrono::milliseconds jobBackoff{std::chrono::seconds(10)};
  /// How long an Event is kept after it was last recorded (kube-apiserver's --event-ttl).
  std::chrono::seconds eventTtl{std::chrono::hours(1)};
  /// The clock that stamps objects and logs; the cluster's own SystemClock when null (a test
  /// that moves a FakeClock for its controller gives it here, so that both agree on the time).
  const common::Clock* clock = nullptr;
};

/// The whole simulated cluster in one process: the store and API semantics, the default
/// namespaces and configured nodes, and every controller (CRDs, namespaces, garbage collector,
/// ClusterRole aggregation, scheduler, kubelet, Jobs, IPUJobs), with the Events the scheduler,
/// kubelet and Job controller record and their expiry. Stopping it kills every process it
/// started.
class Cluster {
 public:
  explicit Cluster(ClusterOptions options);
  ~Cluster();

  common::Status start();
  void stop();

  Api& api() { return *api_; }
  Kubelet& kubelet() { return *kubelet_; }

 private:
  ClusterOptions options_;
  common::SystemClock clock_;
  common::SystemRandom random_;
  Store store_;
  ResourceRegistry registry_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<CrdController> crds_;
  std::unique_ptr<NamespaceController> namespaces_;
  std::unique_ptr<GarbageCollector> gc_;
  std::unique_ptr<PodGarbageCollector> podGc_;
  std::unique_ptr<ClusterRoleAggregator> clusterRoles_;
  // Declared before the components that record Events, so that it outlives them.
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<EventTtl> eventTtl_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Kubelet> kubelet_;
  std::vector<std::unique_ptr<Controller>> workloads_;
  bool stopped_ = false;
};

}  // namespace hetbench::kubesim
