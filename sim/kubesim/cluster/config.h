#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/ids.h"
#include "hetbench/common/status.h"
#include "hetbench/common/time.h"

namespace hetbench::kubesim {

/// The simulated cluster: nodes, and what the "container runtime" knows of images.
struct ClusterConfig {
  struct Node {
    std::string name;
    nlohmann::json labels = nlohmann::json::object();
    nlohmann::json capacity = nlohmann::json::object();     // quantities as strings
    nlohmann::json allocatable = nlohmann::json::object();  // defaults to capacity
    nlohmann::json taints = nlohmann::json::array();
  };
  std::vector<Node> nodes;
  /// Images whose pull fails (ErrImagePull, then ImagePullBackOff).
  std::vector<std::string> missingImages;
  /// The command an image runs when a container sets none (the image's ENTRYPOINT).
  std::map<std::string, std::vector<std::string>> entrypoints;
};

/// Parses a YAML (or JSON) config:
///   nodes: [{name, labels: {}, capacity: {}, allocatable: {}, taints: [{key, value, effect}]}]
///   missingImages: [IMAGE]
///   images: {IMAGE: {entrypoint: [ARG, ...]}}
/// Errors name the field, e.g. `nodes[2].capacity.cpu: invalid quantity "x"`.
common::Result<ClusterConfig> parseClusterConfig(const std::string& text);

/// The default heterogeneous lab: two nodes with 4x A100, one with 4x H100, one with 4x AMD
/// MI210, one Graphcore IPU-POD16 node and two CPU nodes.
ClusterConfig defaultClusterConfig();

/// The Node object kubesim stores for a configured node, as its kubelet registers it at `now`
/// (machine, system and boot IDs drawn from `random`).
nlohmann::json nodeObject(const ClusterConfig::Node& node, int index, common::RandomSource& random,
                          common::WallTime now);

}  // namespace hetbench::kubesim
