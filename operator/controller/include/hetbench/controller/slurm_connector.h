#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hetbench/common/status.h"
#include "hetbench/kube/client.h"
#include "hetbench/slurm/client.h"
#include "hetbench/slurm/cluster.h"

namespace hetbench::controller {

/// The SlurmCluster resource (cluster-scoped).
inline const kube::GroupVersionResource kSlurmClusters{"hetbench.io", "v1alpha1", "slurmclusters",
                                                       false};

/// What reads SlurmClusters instead of the API server: the informer's cache.
class SlurmClusterCache {
 public:
  virtual ~SlurmClusterCache() = default;
  virtual std::optional<nlohmann::json> slurmCluster(const std::string& name) const = 0;
};

/// Makes the client of one cluster (slurm::makeSlurmClient; tests give a fake).
using SlurmClientFactory =
    std::function<common::Result<std::unique_ptr<slurm::SlurmApi>>(slurm::ClientOptions)>;

struct SlurmConnectorOptions {
  /// Where the clusters' token Secrets are (--cluster-resource-namespace).
  std::string secretNamespace;
  /// How long one request to slurmrestd may take.
  std::chrono::milliseconds requestTimeout{10000};
  SlurmClientFactory clients = slurm::makeSlurmClient;
};

/// A SlurmCluster's spec and a client of it.
struct SlurmConnection {
  slurm::ClusterSpec spec;
  std::shared_ptr<slurm::SlurmApi> api;
};

/// Connects to SlurmClusters: parses the spec, reads the token from its Secret (at each call,
/// so that a renewed token is used at once) and makes the client. Errors: Invalid for a spec
/// the operator cannot use; NotFound for a SlurmCluster, Secret or key that does not exist,
/// with a message that says which; the API server's errors otherwise. Thread-safe.
class SlurmConnector {
 public:
  SlurmConnector(kube::KubeClient& client, const SlurmClusterCache& cache,
                 SlurmConnectorOptions options);

  common::Result<SlurmConnection> connect(const std::string& cluster) const;
  common::Result<SlurmConnection> connect(const nlohmann::json& cluster) const;

 private:
  kube::KubeClient& client_;
  const SlurmClusterCache& cache_;
  SlurmConnectorOptions options_;
};

}  // namespace hetbench::controller
