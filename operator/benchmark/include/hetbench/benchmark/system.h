#pragma once

// BenchmarkSystem: a named place where runs go, as ReFrame's site configuration names systems
// and partitions. A run whose spec.system names one is placed there when it is accepted; the
// placement becomes part of the accepted spec, so a later edit of the system changes no run
// that has been accepted.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hetbench/common/status.h"

namespace hetbench::benchmark {

/// Where a system's pods go on the Kubernetes cluster: spec.kubernetes.
struct KubernetesPlacement {
  nlohmann::json nodeSelector = nlohmann::json::object();  // label name to value
  nlohmann::json tolerations = nlohmann::json::array();    // Kubernetes tolerations
  std::string acceleratorResource;                         // "" when the system names none
  std::string acceleratorProduct;                          // "" when the system names none
};

/// A partition of a SlurmCluster: spec.slurm.
struct SlurmSystem {
  std::string cluster;
  std::string partition;  // "" leaves the cluster's default
  std::string account;
  std::string qos;
  std::string runtime;  // "", "apptainer" or "singularity"
  std::string acceleratorResource;
  std::string acceleratorProduct;
};

/// Exactly one of `kubernetes` and `slurm`.
struct SystemSpec {
  std::string description;
  std::optional<KubernetesPlacement> kubernetes;
  std::optional<SlurmSystem> slurm;
};

/// A BenchmarkSystem's spec; Invalid with a cause per problem, fields under "spec.".
common::Result<SystemSpec> parseSystemSpec(const nlohmann::json& spec);

/// The system a run was placed on, recorded on the run (kAcceptedSystemAnnotation).
struct AcceptedSystem {
  std::string name;
  std::string uid;
  std::int64_t generation = 0;
  nlohmann::json spec;  // the system's spec as it was read
};
nlohmann::json toJson(const AcceptedSystem& system);
/// nullopt for text that is not such a record.
std::optional<AcceptedSystem> acceptedSystemFromText(const std::string& text);

/// A run's spec placed on `system` (named `name`, for messages). On Kubernetes nodes: a
/// structured workload's nodeSelector gains the system's labels, its tolerations the system's
/// (each once), and its accelerator resource and product the system's when it names none; a
/// template's pod spec gains the labels and tolerations. On Slurm: the workload's `slurm` gains
/// the cluster, and the partition, account, QOS and runtime where the run names none, and its
/// accelerator as above; a template is refused. A value the run sets that differs from the
/// system's is Invalid, with a cause on the run's field. Placing a placed spec again changes
/// nothing.
common::Result<nlohmann::json> placeOnSystem(nlohmann::json spec, const std::string& name,
                                             const SystemSpec& system);

}  // namespace hetbench::benchmark
