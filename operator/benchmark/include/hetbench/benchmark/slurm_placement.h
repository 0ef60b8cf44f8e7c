#pragma once

// What a Slurm workload says and the batch job a unit becomes (slurm_job.h has the policies);
// apart, so that render.h can hold them without the policies' headers.

#include <cstdint>
#include <string>

#include "hetbench/slurm/job.h"

namespace hetbench::benchmark {

/// `spec.workload.slurm`: where and how a structured workload runs on a SlurmCluster.
struct SlurmPlacement {
  std::string cluster;  // the SlurmCluster
  std::string partition;
  std::string account;
  std::string qos;
  std::int64_t tasksPerNode = 1;
  std::string script;   // the whole batch script; "" lets hetbench write it
  std::string runtime;  // "" (the command runs on the node), "apptainer" or "singularity"
};

/// The batch job of one unit, all but the paths of its output, which the operator takes from the
/// SlurmCluster.
struct SlurmJobPlan {
  std::string cluster;
  slurm::JobRequest request;
};

}  // namespace hetbench::benchmark
