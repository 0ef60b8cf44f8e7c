#include "cluster/cluster.h"

#include "cluster/deployment_controller.h"
#include "cluster/ipujob_controller.h"
#include "cluster/job_controller.h"
#include "server/strategy.h"

namespace hetbench::kubesim {

Cluster::Cluster(ClusterOptions options)
    : options_(std::move(options)), store_(options_.watchHistory) {
  registerBuiltinResources(registry_);
  api_ =
      std::make_unique<Api>(store_, registry_, options_.clock ? *options_.clock : clock_, random_);
}

Cluster::~Cluster() { stop(); }

common::Status Cluster::start() {
  const ResourceType nsType = builtinType(*api_, "", "namespaces");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    nlohmann::json ns = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    ApiResult<WriteResult> created = api_->create(nsType, "", ns, WriteOptions{});
    if (!created.isOk()) return common::internalError(created.error().message);
  }
  const ResourceType nodeType = builtinType(*api_, "", "nodes");
  int index = 0;
  for (const ClusterConfig::Node& node : options_.config.nodes) {
    ApiResult<WriteResult> created = api_->create(
        nodeType, "", nodeObject(node, index++, random_, api_->clock().now()), WriteOptions{});
    if (!created.isOk()) {
      return common::invalidError("node " + node.name + ": " + created.error().message);
    }
  }
  crds_ = std::make_unique<CrdController>(*api_);
  namespaces_ = std::make_unique<NamespaceController>(*api_);
  gc_ = std::make_unique<GarbageCollector>(*api_);
  podGc_ = std::make_unique<PodGarbageCollector>(*api_);
  clusterRoles_ = std::make_unique<ClusterRoleAggregator>(*api_);
  events_ = std::make_unique<EventRecorder>(*api_);
  eventTtl_ = std::make_unique<EventTtl>(*api_, options_.eventTtl);
  scheduler_ = std::make_unique<Scheduler>(*api_, *events_);
  KubeletOptions kubelet;
  kubelet.workDir = options_.workDir;
  kubelet.missingImages = options_.config.missingImages;
  kubelet.entrypoints = options_.config.entrypoints;
  kubelet.restartBackoff = options_.restartBackoff;
  kubelet_ = std::make_unique<Kubelet>(*api_, *events_, kubelet);
  workloads_.push_back(std::make_unique<JobController>(*api_, *events_, options_.jobBackoff));
  workloads_.push_back(std::make_unique<IpuJobController>(*api_));
  workloads_.push_back(std::make_unique<DeploymentController>(*api_, *events_));
  workloads_.push_back(std::make_unique<ReplicaSetController>(*api_, *events_));
  crds_->start();
  namespaces_->start();
  gc_->start();
  podGc_->start();
  clusterRoles_->start();
  eventTtl_->start();
  scheduler_->start();
  kubelet_->start();
  for (auto& c : workloads_) c->start();
  return common::okStatus();
}

void Cluster::stop() {
  if (stopped_) return;
  stopped_ = true;
  for (auto& c : workloads_) c->stop();
  if (scheduler_) scheduler_->stop();
  if (gc_) gc_->stop();
  if (podGc_) podGc_->stop();
  if (clusterRoles_) clusterRoles_->stop();
  if (eventTtl_) eventTtl_->stop();
  if (namespaces_) namespaces_->stop();
  if (crds_) crds_->stop();
  kubelet_.reset();
}

}  // namespace hetbench::kubesim
