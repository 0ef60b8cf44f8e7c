#include "hetbench/controller/slurm_cluster_reconciler.h"

#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/slurm/cluster.h"

namespace hetbench::controller {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

/// What one probe found: the Ready condition's status, reason and message, and the partitions
/// when slurmrestd listed them.
struct Probe {
  bool ready = false;
  std::string reason;
  std::string message;
  std::optional<json> partitions;
};

Probe notReady(std::string reason, std::string message) {
  return {false, std::move(reason), std::move(message), std::nullopt};
}

/// The reason of a failed request to slurmrestd.
Probe failed(const common::Status& status) {
  if (status.isUnauthorized()) return notReady("Unauthorized", status.message());
  if (status.isUnavailable() || status.isTimeout()) {
    return notReady("Unreachable", status.message());
  }
  return notReady("SlurmError", status.message());
}

json partitionsJson(const std::vector<slurm::PartitionInfo>& partitions) {
  json out = json::array();
  for (const slurm::PartitionInfo& p : partitions) {
    out.push_back(
        {{"name", p.name}, {"states", p.states}, {"nodes", p.nodes}, {"totalNodes", p.totalNodes}});
  }
  return out;
}

}  // namespace

SlurmClusterReconciler::SlurmClusterReconciler(
    kube::KubeClient& client, const SlurmClusterCache& cache, const SlurmConnector& connector,
    const common::Clock& clock, kube::EventRecorder& events, SlurmClusterReconcilerOptions options)
    : client_(client),
      cache_(cache),
      connector_(connector),
      clock_(clock),
      events_(events),
      options_(std::move(options)) {}

common::Result<ReconcileResult> SlurmClusterReconciler::reconcile(const std::string& name) {
  std::optional<json> object = cache_.slurmCluster(name);
  if (!object) return ReconcileResult{};  // deleted: nothing to probe
  const json& meta = member(*object, "metadata");
  const std::int64_t generation = common::intMember(meta, "generation");

  // The probe: each step's failure is the condition's reason.
  auto probe = [&]() -> common::Result<Probe> {
    common::Result<SlurmConnection> connection = connector_.connect(*object);
    if (connection.status().isInvalid()) {
      return notReady("InvalidSpec", connection.status().message());
    }
    if (connection.status().isNotFound()) {
      return notReady("SecretNotFound", connection.status().message());
    }
    if (!connection.isOk()) return connection.status();
    const slurm::ClusterSpec* spec = &connection->spec;
    slurm::SlurmApi* api = connection->api.get();
    // The partitions first: a request that needs the token (a v0.0.42 ping does not check it;
    // a 22.05 ping with a refused token says only "Unspecified error").
    common::Result<std::vector<slurm::PartitionInfo>> partitions = api->partitions();
    if (!partitions.isOk()) return failed(partitions.status());
    if (common::Status ping = api->ping(); !ping.isOk()) return failed(ping);
    Probe found;
    found.partitions = partitionsJson(*partitions);
    if (!spec->partition.empty()) {
      bool listed = false;
      for (const slurm::PartitionInfo& p : *partitions)
        listed = listed || p.name == spec->partition;
      if (!listed) {
        found.reason = "PartitionNotFound";
        found.message = "slurmctld has no partition \"" + spec->partition + "\"";
        return found;
      }
    }
    found.ready = true;
    found.reason = "Reachable";
    found.message = "slurmrestd " + std::string(slurm::apiVersionName(spec->version)) + " at " +
                    spec->url + " answers " + spec->user + " with " +
                    std::to_string(partitions->size()) + " partition(s)";
    return found;
  };
  HETBENCH_ASSIGN_OR_RETURN(Probe found, probe());

  const json& previous = member(*object, "status");
  std::vector<benchmark::Condition> conditions =
      benchmark::conditionsFromJson(member(previous, "conditions"));
  const std::string before = benchmark::conditionStatus(conditions, "Ready");
  const std::string now = found.ready ? "True" : "False";
  benchmark::setCondition(conditions, "Ready", now, found.reason, found.message, clock_.now(),
                          generation);
  json status = previous.is_object() ? previous : json::object();
  status["observedGeneration"] = generation;
  status["conditions"] = benchmark::toJson(conditions);
  if (found.partitions) status["partitions"] = *found.partitions;
  if (status != previous) {
    json updated = *object;
    updated["status"] = status;
    common::Result<json> written = client_.updateStatus(kSlurmClusters, "", updated);
    if (!written.isOk()) return written.status();
  }
  if (before != now) {
    events_.event(*object, found.ready ? kube::EventType::kNormal : kube::EventType::kWarning,
                  found.reason, found.message);
    spdlog::info("SlurmCluster {}: Ready={} ({}): {}", name, now, found.reason, found.message);
  }
  return ReconcileResult{options_.probeInterval};
}

}  // namespace hetbench::controller
