#include "cluster/config.h"

#include <algorithm>
#include <tuple>

#include "hetbench/common/time.h"
#include "hetbench/common/yaml.h"
#include "server/object_meta.h"
#include "server/quantity.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

common::Status bad(const std::string& field, const std::string& why) {
  return common::invalidError("kubesim config: " + field + ": " + why);
}

common::Status checkQuantities(const json& map, const std::string& field) {
  if (!map.is_object()) return bad(field, "must be a map of resource name to quantity");
  for (const auto& [name, value] : map.items()) {
    if (!value.is_string() || !parseQuantityMilli(value.get<std::string>())) {
      return bad(field + "." + name, "invalid quantity " + value.dump());
    }
  }
  return common::okStatus();
}

ClusterConfig::Node makeNode(std::string name, json labels, json capacity) {
  ClusterConfig::Node n;
  n.name = std::move(name);
  n.labels = std::move(labels);
  n.capacity = std::move(capacity);
  n.allocatable = n.capacity;
  return n;
}

}  // namespace

common::Result<ClusterConfig> parseClusterConfig(const std::string& text) {
  // Its values are read as strings: quantities and labels are checked below.
  common::Result<std::vector<json>> documents =
      common::yamlDocuments(text, common::YamlScalars::kStrings);
  if (!documents.isOk())
    return common::invalidError("kubesim config: " + documents.status().message());
  const json root = documents.value().empty() ? json() : documents.value().front();
  if (!root.is_object()) return bad("(root)", "must be a map");
  ClusterConfig config;
  for (const auto& [key, value] : root.items()) {
    if (key != "nodes" && key != "missingImages" && key != "images") {
      return bad(key, "unknown field");
    }
  }
  const json nodes = root.value("nodes", json::array());
  if (!nodes.is_array()) return bad("nodes", "must be a list");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string at = "nodes[" + std::to_string(i) + "]";
    const json& n = nodes[i];
    if (!n.is_object() || !n.contains("name") || !n["name"].is_string()) {
      return bad(at + ".name", "required");
    }
    ClusterConfig::Node node;
    node.name = n["name"].get<std::string>();
    node.labels = n.value("labels", json::object());
    node.capacity = n.value("capacity", json::object());
    node.allocatable = n.value("allocatable", node.capacity);
    node.taints = n.value("taints", json::array());
    HETBENCH_RETURN_IF_ERROR(checkQuantities(node.capacity, at + ".capacity"));
    HETBENCH_RETURN_IF_ERROR(checkQuantities(node.allocatable, at + ".allocatable"));
    if (!node.labels.is_object()) return bad(at + ".labels", "must be a map");
    if (!node.taints.is_array()) return bad(at + ".taints", "must be a list");
    for (std::size_t t = 0; t < node.taints.size(); ++t) {
      const std::string effect = node.taints[t].value("effect", "");
      if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
        return bad(at + ".taints[" + std::to_string(t) + "].effect",
                   "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
    }
    for (const ClusterConfig::Node& other : config.nodes) {
      if (other.name == node.name) return bad(at + ".name", "duplicate node " + node.name);
    }
    config.nodes.push_back(std::move(node));
  }
  for (const json& image : root.value("missingImages", json::array())) {
    if (!image.is_string()) return bad("missingImages", "must be a list of image names");
    config.missingImages.push_back(image.get<std::string>());
  }
  const json images = root.value("images", json::object());
  if (!images.is_object()) return bad("images", "must be a map");
  for (const auto& [image, spec] : images.items()) {
    const json entry = spec.value("entrypoint", json());
    if (!entry.is_array() || entry.empty()) {
      return bad("images." + image + ".entrypoint", "must be a non-empty list");
    }
    for (const json& arg : entry) config.entrypoints[image].push_back(arg.get<std::string>());
  }
  return config;
}

ClusterConfig defaultClusterConfig() {
  ClusterConfig c;
  const json cpuOnly = {{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}};
  for (int i = 1; i <= 2; ++i) {
    c.nodes.push_back(
        makeNode("a100-" + std::to_string(i),
                 {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"},
                  {"nvidia.com/gpu.count", "4"},
                  {"nvidia.com/gpu.memory", "40960"},
                  {"hetbench.io/system", "lab-a100"}},
                 {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "4"}}));
  }
  c.nodes.push_back(
      makeNode("h100-1",
               {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                {"nvidia.com/gpu.count", "4"},
                {"nvidia.com/gpu.memory", "81559"},
                {"hetbench.io/system", "lab-h100"}},
               {{"cpu", "96"}, {"memory", "1Ti"}, {"pods", "110"}, {"nvidia.com/gpu", "4"}}));
  c.nodes.push_back(
      makeNode("mi210-1",
               {{"amd.com/gpu.product-name", "AMD_Instinct_MI210"},
                {"amd.com/gpu.count", "4"},
                {"hetbench.io/system", "lab-mi210"}},
               {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}, {"amd.com/gpu", "4"}}));
  c.nodes.push_back(makeNode(
      "ipu-pod16-1", {{"graphcore.ai/ipu-type", "GC200"}, {"hetbench.io/system", "lab-ipu-pod16"}},
      {{"cpu", "96"}, {"memory", "512Gi"}, {"pods", "110"}, {"graphcore.ai/ipu", "16"}}));
  for (int i = 1; i <= 2; ++i) {
    c.nodes.push_back(
        makeNode("cpu-" + std::to_string(i), {{"hetbench.io/system", "lab-cpu"}}, cpuOnly));
  }
  return c;
}

json nodeObject(const ClusterConfig::Node& node, int index, common::RandomSource& random,
                common::WallTime now) {
  json labels = node.labels;
  labels["kubernetes.io/hostname"] = node.name;
  labels["kubernetes.io/os"] = "linux";
  labels["kubernetes.io/arch"] = "amd64";
  const std::string ip = "10.0.0." + std::to_string(10 + index);
  // The kubelet's condition words; every condition has held since the node registered.
  const std::string registered = common::formatRfc3339(now);
  json conditions = json::array();
  for (const auto& [type, status, reason, message] :
       {std::tuple{"MemoryPressure", "False", "KubeletHasSufficientMemory",
                   "kubelet has sufficient memory available"},
        std::tuple{"DiskPressure", "False", "KubeletHasNoDiskPressure",
                   "kubelet has no disk pressure"},
        std::tuple{"PIDPressure", "False", "KubeletHasSufficientPID",
                   "kubelet has sufficient PID available"},
        std::tuple{"Ready", "True", "KubeletReady", "kubelet is posting ready status"}}) {
    conditions.push_back({{"type", type},
                          {"status", status},
                          {"reason", reason},
                          {"message", message},
                          {"lastHeartbeatTime", registered},
                          {"lastTransitionTime", registered}});
  }
  // A kubelet reads its machine ID from /etc/machine-id (32 hex digits, no dashes), the system
  // UUID from the firmware and the boot ID from the kernel; these are drawn once per node.
  std::string machineId = newUid(random);
  machineId.erase(std::remove(machineId.begin(), machineId.end(), '-'), machineId.end());
  json spec = json::object();
  if (!node.taints.empty()) spec["taints"] = node.taints;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", node.name}, {"labels", labels}}},
          {"spec", spec},
          {"status",
           {{"capacity", node.capacity},
            {"allocatable", node.allocatable},
            {"conditions", conditions},
            {"addresses",
             {{{"type", "InternalIP"}, {"address", ip}},
              {{"type", "Hostname"}, {"address", node.name}}}},
            // The kubelet's port, where a real API server proxies logs and exec.
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            // Every field is always written (none is omitempty); the kubelet of v1.32 still
            // reports its own version as kube-proxy's (DisableNodeKubeProxyVersion is off).
            {"nodeInfo",
             {{"machineID", machineId},
              {"systemUUID", newUid(random)},
              {"bootID", newUid(random)},
              {"kernelVersion", "kubesim"},
              {"osImage", "kubesim"},
              {"containerRuntimeVersion", "kubesim://0.1"},
              {"kubeletVersion", "v1.32.0-kubesim"},
              {"kubeProxyVersion", "v1.32.0-kubesim"},
              {"operatingSystem", "linux"},
              {"architecture", "amd64"}}}}}};
}

}  // namespace hetbench::kubesim
