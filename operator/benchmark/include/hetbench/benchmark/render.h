#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/plan.h"
#include "hetbench/benchmark/slurm_placement.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/status.h"

namespace hetbench::benchmark {

/// The accelerator a structured workload asks for; resource "" means none.
struct Accelerator {
  std::string resource;  // nvidia.com/gpu, amd.com/gpu, graphcore.ai/ipu or ""
  std::int64_t count = 0;
  std::string product;  // node selector on nvidia.com/gpu.product or amd.com/gpu.product-name
};

/// A dataset (or other) PersistentVolumeClaim mounted into every container.
struct Volume {
  std::string name;
  std::string claimName;
  std::string mountPath;
  bool readOnly = true;
};

/// The training parameters, passed to hetbench-train as flags when `args` is not overridden.
struct Training {
  std::optional<std::int64_t> batchSize;
  std::optional<std::int64_t> epochs;
  std::optional<std::int64_t> stepsPerEpoch;
  std::string precision;  // fp32, bf16, fp16 or ""
  std::string data;       // "synthetic" or a path; "" leaves the program's default
};

/// `spec.workload` after `$(params.NAME)` substitution, parsed and validated.
struct Workload {
  WorkloadKind kind = WorkloadKind::kPod;
  std::string image;
  std::optional<std::vector<std::string>> command;  // overrides the image's entrypoint
  std::optional<std::vector<std::string>> args;     // overrides the flags built from training
  std::string imagePullPolicy;
  Accelerator accelerator;
  std::int64_t nodes = 1;
  std::int64_t backoffLimit = 0;  // Job only
  nlohmann::json nodeSelector = nlohmann::json::object();
  nlohmann::json tolerations = nlohmann::json::array();
  nlohmann::json affinity;   // null when absent
  nlohmann::json resources;  // null when absent; the accelerator is added to its limits
  nlohmann::json env = nlohmann::json::array();
  std::vector<Volume> volumes;
  Training training;
  /// Fields over the pod's and the container's security contexts that renderUnit gives a
  /// structured workload (restrictedPodSecurityContext, restrictedContainerSecurityContext),
  /// each replacing the default's field of that name; empty objects when absent.
  nlohmann::json podSecurityContext = nlohmann::json::object();
  nlohmann::json securityContext = nlohmann::json::object();
  std::string serviceAccountName;             // "" leaves the namespace's default
  bool automountServiceAccountToken = false;  // the pods get no API token unless asked
  /// Set: the unit is a batch job on a SlurmCluster, not pods (slurm_job.h).
  std::optional<SlurmPlacement> slurm;
};

/// The settings of the `restricted` Pod Security Standard that a structured workload's pods get
/// at the pod level (runAsNonRoot, the runtime's default seccomp profile) and in their
/// container (no privilege escalation, every capability dropped). IPUJob workers get neither:
/// Graphcore's IPU operator makes them privileged and puts them on the host network.
nlohmann::json restrictedPodSecurityContext();
nlohmann::json restrictedContainerSecurityContext();

/// Parses a substituted workload; errors are Invalid with causes under `path`
/// (`spec.workload.accelerator.count: Invalid value: -1: must be greater than or equal to 0`).
/// Rejects nodes > 1 for kind Pod, an accelerator count without a resource, an IPUJob whose
/// accelerator is not graphcore.ai/ipu.
common::Result<Workload> parseWorkload(const nlohmann::json& workload, const std::string& path);

/// spec.workload with a trial's parameters substituted, parsed: the set-up renderUnit renders,
/// for whoever reads a trial's accelerators, nodes or training (the report, the metrics).
/// Invalid, with causes under `spec.workload`, when it does not parse or the spec has a template.
common::Result<Workload> trialWorkload(const RunSpec& spec, const Params& params);

/// The run that owns the workloads.
struct RunRef {
  std::string ns;
  std::string name;
  std::string uid;
};

/// The objects of one unit, ready to create: the workload first; for a multi-node Job the
/// headless Service its pods resolve each other through.
struct RenderedUnit {
  std::string name;  // the workload's (and the Service's) name
  WorkloadKind kind = WorkloadKind::kPod;
  nlohmann::json workload;
  std::optional<nlohmann::json> service;
  std::int64_t expectedPods = 1;  // pods that must run before the unit counts as started
  /// A Slurm workload's batch job; `workload` then records its description, and no object is
  /// created on the Kubernetes cluster.
  std::optional<SlurmJobPlan> slurm;
};

/// The run's id: five characters of kShortIdAlphabet derived from its uid (FNV-1a, 64 bit, read
/// as base-27 digits), so that a restarted operator computes the same names and two runs of one
/// name almost never share them. Changing the hash renames the workloads of running runs.
std::string runId(const std::string& uid);

/// `<run>-t<trial>-r<repetition>-<runId>`, at most 56 characters (an Indexed Job's pod hostnames
/// append `-<index>` and must stay DNS labels): the run's name lower-cased with dots (and any
/// other character outside [a-z0-9-]) made dashes, truncated, with no dash at either end, and
/// `r` put first when it starts with a digit, since a Service name must start with a letter.
std::string unitName(const RunRef& run, const Unit& unit);

/// Renders a unit: substitutes the unit's parameters into spec.workload or spec.template,
/// parses it, and builds the object with the unit's name, namespace, the labels of
/// constants.h (also on pod templates), an ownerReference to the run (controller: true,
/// blockOwnerDeletion: true). A structured workload's pods meet the restricted Pod Security
/// Standard unless its security fields say otherwise (see Workload), and mount no service
/// account token unless asked. A structured workload's one container, `benchmark`, gets the
/// HETBENCH_* environment before the user's and, for a Job with nodes > 1, an Indexed Job
/// (completions = parallelism = nodes) whose pods get MASTER_ADDR (rank 0's hostname in the
/// Service's subdomain), MASTER_PORT, WORLD_SIZE and RANK (the completion index). An IPUJob has
/// one job instance per node and no IPU limit on its container: the IPU operator asks for each
/// instance's partition.
/// A template must be a v1 Pod, a batch/v1 Job or a graphcore.ai/v1alpha1 IPUJob. It is kept as
/// written but for its metadata (only the user's labels and annotations survive) and status; a
/// Pod template without restartPolicy gets Never, and Always is Invalid (the pod would never
/// end). Its expectedPods: 1 for a Pod, a Job's parallelism (default 1, at most its
/// completions), an IPUJob's jobInstances.
/// A run name longer than 63 characters is Invalid: it is the value of the run label.
common::Result<RenderedUnit> renderUnit(const RunRef& run, const RunSpec& spec, const Unit& unit);

}  // namespace hetbench::benchmark
