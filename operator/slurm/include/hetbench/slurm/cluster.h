#pragma once

// SlurmCluster: one Slurm cluster as the operator reaches it through slurmrestd
// (crds/slurmcluster.yaml, docs/slurm.md).

#include <nlohmann/json.hpp>
#include <string>

#include "hetbench/common/status.h"
#include "hetbench/slurm/job.h"

namespace hetbench::slurm {

/// A key of a Secret in the operator's cluster-resource namespace.
struct SecretKeyRef {
  std::string name;
  std::string key = "token";
};

/// Where jobs write their output and where the operator reads the same directory.
struct SharedFilesystem {
  std::string slurmPath;     // as the jobs see it, on Slurm's nodes
  std::string operatorPath;  // as the operator's container mounts it
};

struct ClusterSpec {
  std::string url;
  ApiVersion version = ApiVersion::kV0_0_42;
  std::string user;
  SecretKeyRef token;
  std::string caPem;  // spec.caBundle decoded; "" for the system's CAs
  std::string partition;
  std::string account;
  std::string qos;
  SharedFilesystem output;
};

/// A SlurmCluster's spec; Invalid with a cause per problem, fields under "spec.".
common::Result<ClusterSpec> parseClusterSpec(const nlohmann::json& spec);

}  // namespace hetbench::slurm
