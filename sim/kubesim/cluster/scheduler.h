#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/controller.h"
#include "cluster/events.h"

namespace hetbench::kubesim {

/// Why one node cannot take a pod, in the scheduler's words ("Insufficient nvidia.com/gpu").
/// Empty when the node fits.
std::vector<std::string> nodeMisfits(const nlohmann::json& pod, const nlohmann::json& node,
                                     const std::map<std::string, std::int64_t>& used);

/// The requests of a pod as the scheduler counts them (max of init containers and the sum of
/// containers), in thousandths of a unit, plus one "pods".
std::map<std::string, std::int64_t> podRequests(const nlohmann::json& pod);

/// "0/7 nodes are available: 2 Insufficient nvidia.com/gpu, 5 node(s) didn't match Pod's
/// node affinity/selector. preemption: ..." from the misfits of every node.
std::string unschedulableMessage(std::size_t nodes,
                                 const std::vector<std::vector<std::string>>& misfits);

/// Binds pending pods to nodes that fit; pods that fit nowhere get PodScheduled=False with
/// reason Unschedulable and are retried when pods or nodes change. Each attempt is an Event on
/// the pod, Scheduled or FailedScheduling, as kube-scheduler records them.
class Scheduler final : public Controller {
 public:
  Scheduler(Api& api, EventRecorder& events);
  ~Scheduler() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;

  EventRecorder& events_;
};

}  // namespace hetbench::kubesim
