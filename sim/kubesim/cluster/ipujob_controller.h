#pragma once

#include "cluster/controller.h"

namespace hetbench::kubesim {

/// Label keys and env names of the pods an IPUJob runs. Graphcore's operator sets
/// IPUOF_VIPU_API_PARTITION_ID (the worker's V-IPU partition); the IPUJOB_* names are kubesim's,
/// as Graphcore's own names for a worker's index and the instance count are not published.
inline constexpr const char* kIpuJobNameLabel = "graphcore.ai/ipujob-name";
inline constexpr const char* kIpuJobRoleLabel = "graphcore.ai/ipujob-role";
inline constexpr const char* kIpuJobIndexLabel = "graphcore.ai/ipujob-instance";
inline constexpr const char* kIpuResource = "graphcore.ai/ipu";

/// Graphcore's IPU Operator for the IPUJob custom resource (graphcore.ai/v1alpha1), active only
/// while its CRD is installed. Each job instance is a worker pod NAME-worker-N asking for
/// ipusPerJobInstance IPUs (so the scheduler accounts them, in place of V-IPU partitions); with
/// spec.launcher.command a launcher pod NAME-launcher starts once every worker runs and its
/// outcome is the job's, otherwise the workers' is. A failed pod fails the job unless
/// spec.restartPolicy (OnFailure, Always, ExitCode) allows re-creating it within backoffLimit.
/// Status: state, lastMessage, launcherStatus, workersStatus, restartCount, startTime,
/// completionTime and conditions Created, Running, Completed, Failed.
class IpuJobController final : public Controller {
 public:
  explicit IpuJobController(Api& api);
  ~IpuJobController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
};

}  // namespace hetbench::kubesim
