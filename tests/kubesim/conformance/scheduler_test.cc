#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

const std::string kPods = "/api/v1/namespaces/default/pods";

json getPod(Harness& h, const std::string& name) { return bodyJson(h.get(kPods + "/" + name)); }

std::string nodeOf(Harness& h, const std::string& name) {
  std::string node;
  Harness::eventually([&] {
    node = getPod(h, name)["spec"].value("nodeName", "");
    return !node.empty();
  });
  return node;
}

// The PodScheduled=False condition once the scheduler has written it (null until then).
json unschedulable(Harness& h, const std::string& name) {
  json found;
  Harness::eventually([&] {
    for (const json& c : getPod(h, name)["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False") found = c;
    }
    return !found.is_null();
  });
  return found;
}

// A pod that sleeps, limited to `limits` (extended resources must be set as limits).
json resourcePod(const std::string& name, const json& limits, const std::string& script = "true") {
  json pod = commandPod(name, script);
  if (!limits.empty()) pod["spec"]["containers"][0]["resources"]["limits"] = limits;
  return pod;
}

json requiredAffinity(const json& expressions) {
  return {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms", {{{"matchExpressions", expressions}}}}}}}}};
}

ClusterConfig::Node node(const std::string& name, const json& labels, const json& capacity,
                         const json& taints = json::array()) {
  ClusterConfig::Node n;
  n.name = name;
  n.labels = labels;
  n.capacity = capacity;
  n.allocatable = capacity;
  n.taints = taints;
  return n;
}

Harness::Options withNodes(std::vector<ClusterConfig::Node> nodes) {
  Harness::Options options;
  options.config = ClusterConfig{};
  options.config.nodes = std::move(nodes);
  return options;
}

// Verifies that a nodeSelector on nvidia.com/gpu.product binds only to nodes with that product.
TEST(Scheduler, NodeSelectorOnGpuProduct) {
  Harness h;
  const std::vector<std::pair<std::string, std::set<std::string>>> cases = {
      {"NVIDIA-A100-SXM4-40GB", {"a100-1", "a100-2"}},
      {"NVIDIA-H100-80GB-HBM3", {"h100-1"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "sel-" + std::to_string(i);
    json pod = commandPod(name, "true");
    pod["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", cases[i].first}};
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    EXPECT_TRUE(cases[i].second.count(nodeOf(h, name))) << cases[i].first;
  }
}

// Verifies required node affinity with the In, NotIn, Exists and DoesNotExist operators.
TEST(Scheduler, RequiredNodeAffinityOperators) {
  Harness h;
  const json gpuSystems = {"lab-a100", "lab-h100", "lab-mi210", "lab-ipu-pod16"};
  const std::vector<std::pair<json, std::set<std::string>>> cases = {
      {{{{"key", "hetbench.io/system"}, {"operator", "In"}, {"values", {"lab-h100"}}}}, {"h100-1"}},
      {{{{"key", "hetbench.io/system"}, {"operator", "NotIn"}, {"values", gpuSystems}}},
       {"cpu-1", "cpu-2"}},
      {{{{"key", "graphcore.ai/ipu-type"}, {"operator", "Exists"}}}, {"ipu-pod16-1"}},
      {{{{"key", "amd.com/gpu.product-name"}, {"operator", "Exists"}},
        {{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {"mi210-1"}}}},
       {"mi210-1"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "aff-" + std::to_string(i);
    json pod = commandPod(name, "true");
    pod["spec"]["affinity"] = requiredAffinity(cases[i].first);
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    EXPECT_TRUE(cases[i].second.count(nodeOf(h, name))) << cases[i].first.dump();
  }
}

// Verifies that a NoSchedule taint keeps untolerating pods off the node and tolerating ones in.
TEST(Scheduler, NoScheduleTaints) {
  const json taint = {{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}};
  Harness h(withNodes({node("tainted", {{"pool", "gpu"}}, {{"cpu", "8"}, {"pods", "10"}}, taint),
                       node("plain", {{"pool", "cpu"}}, {{"cpu", "8"}, {"pods", "10"}})}));
  ASSERT_EQ(h.post(kPods, commandPod("free", "true")).status, 201);
  EXPECT_EQ(nodeOf(h, "free"), "plain");

  json pinned = commandPod("pinned", "true");
  pinned["spec"]["nodeSelector"] = {{"pool", "gpu"}};
  ASSERT_EQ(h.post(kPods, pinned).status, 201);
  json condition = unschedulable(h, "pinned");
  EXPECT_EQ(condition.value("reason", ""), "Unschedulable");
  EXPECT_EQ(condition.value("message", ""),
            "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 "
            "node(s) had untolerated taint {dedicated: gpu}. preemption: 0/2 nodes are available: "
            "2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(getPod(h, "pinned")["status"].value("phase", ""), "Pending");

  const std::vector<json> tolerations = {
      {{"key", "dedicated"}, {"operator", "Equal"}, {"value", "gpu"}, {"effect", "NoSchedule"}},
      {{"key", "dedicated"}, {"operator", "Exists"}},
      {{"operator", "Exists"}},
  };
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const std::string name = "tolerant-" + std::to_string(i);
    json pod = pinned;
    pod["metadata"]["name"] = name;
    pod["spec"]["tolerations"] = {tolerations[i]};
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    EXPECT_EQ(nodeOf(h, name), "tainted") << tolerations[i].dump();
  }
}

// Verifies that the taint filter runs before node affinity, so a tainted node that also does not
// match is reported for its taint.
TEST(Scheduler, TaintIsReportedBeforeAffinity) {
  const json taint = {{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}};
  Harness h(withNodes({node("tainted", {{"pool", "gpu"}}, {{"cpu", "8"}, {"pods", "10"}}, taint)}));
  json pod = commandPod("p", "true");
  pod["spec"]["nodeSelector"] = {{"pool", "other"}};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  EXPECT_EQ(unschedulable(h, "p").value("message", ""),
            "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. "
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
}

// Verifies that nvidia.com/gpu is accounted per node: a pod over the free GPUs waits, then binds
// once the pod holding them finishes.
TEST(Scheduler, ExtendedResourceAccounting) {
  Harness h(withNodes(
      {node("gpu-1", json::object(), {{"cpu", "8"}, {"pods", "10"}, {"nvidia.com/gpu", "4"}})}));
  const std::string gate = h.workDir() + "/go";
  ASSERT_EQ(h.post(kPods, resourcePod("holder", {{"nvidia.com/gpu", "4"}},
                                      "while [ ! -f " + gate + " ]; do sleep 0.05; done"))
                .status,
            201);
  ASSERT_EQ(nodeOf(h, "holder"), "gpu-1");
  ASSERT_EQ(h.post(kPods, resourcePod("waiter", {{"nvidia.com/gpu", "1"}})).status, 201);
  json condition = unschedulable(h, "waiter");
  EXPECT_EQ(condition.value("reason", ""), "Unschedulable");
  EXPECT_EQ(condition.value("message", ""),
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
  EXPECT_EQ(getPod(h, "waiter")["spec"].value("nodeName", ""), "");

  std::ofstream(gate).put('\n');
  EXPECT_EQ(nodeOf(h, "waiter"), "gpu-1");
  EXPECT_EQ(getPod(h, "holder")["status"].value("phase", ""), "Succeeded");
}

// Verifies the Unschedulable message of pods no node can hold: reasons counted per node, sorted
// as text (count first), with the preemption summary after them.
TEST(Scheduler, UnschedulableMessages) {
  Harness h;
  struct Case {
    json limits;
    json affinity;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"nvidia.com/gpu", "8"}},
       nullptr,
       "0/7 nodes are available: 7 Insufficient nvidia.com/gpu. preemption: 0/7 nodes are "
       "available: 7 No preemption victims found for incoming pod."},
      {{{"nvidia.com/gpu", "8"}},
       requiredAffinity({{{"key", "nvidia.com/gpu.product"}, {"operator", "Exists"}}}),
       "0/7 nodes are available: 3 Insufficient nvidia.com/gpu, 4 node(s) didn't match Pod's "
       "node affinity/selector. preemption: 0/7 nodes are available: 3 No preemption victims "
       "found for incoming pod, 4 Preemption is not helpful for scheduling."},
      {{{"graphcore.ai/ipu", "32"}},
       requiredAffinity(
           {{{"key", "hetbench.io/system"}, {"operator", "NotIn"}, {"values", {"lab-cpu"}}}}),
       "0/7 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 5 "
       "Insufficient graphcore.ai/ipu. preemption: 0/7 nodes are available: 2 Preemption is not "
       "helpful for scheduling, 5 No preemption victims found for incoming pod."},
      {{{"cpu", "200"}, {"memory", "2Ti"}},
       nullptr,
       "0/7 nodes are available: 7 Insufficient cpu, 7 Insufficient memory. preemption: 0/7 nodes "
       "are available: 7 No preemption victims found for incoming pod."},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "big-" + std::to_string(i);
    json pod = resourcePod(name, cases[i].limits);
    if (!cases[i].affinity.is_null()) pod["spec"]["affinity"] = cases[i].affinity;
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    json condition = unschedulable(h, name);
    EXPECT_EQ(condition.value("reason", ""), "Unschedulable") << name;
    EXPECT_EQ(condition.value("message", ""), cases[i].message) << name;
    EXPECT_EQ(getPod(h, name)["status"].value("phase", ""), "Pending") << name;
  }
}

// Verifies that IPU, AMD GPU, CPU and memory requests bind to the only nodes that have them.
TEST(Scheduler, ResourceRequestsPickFittingNodes) {
  Harness h;
  const std::vector<std::pair<json, std::set<std::string>>> cases = {
      {{{"graphcore.ai/ipu", "16"}}, {"ipu-pod16-1"}},
      {{{"amd.com/gpu", "2"}}, {"mi210-1"}},
      {{{"nvidia.com/gpu", "1"}, {"memory", "600Gi"}}, {"h100-1"}},
      {{{"cpu", "80"}}, {"h100-1", "ipu-pod16-1"}},
      {{{"cpu", "500m"}, {"memory", "1Gi"}},
       {"a100-1", "a100-2", "h100-1", "mi210-1", "ipu-pod16-1", "cpu-1", "cpu-2"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "res-" + std::to_string(i);
    json pod = resourcePod(name, cases[i].first);
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    EXPECT_TRUE(cases[i].second.count(nodeOf(h, name))) << cases[i].first.dump();
  }
}

// Verifies that requests, not limits, are what the scheduler counts when both are set.
TEST(Scheduler, RequestsTakePrecedenceOverLimits) {
  Harness h(withNodes({node("small", json::object(), {{"cpu", "4"}, {"pods", "10"}})}));
  json pod = commandPod("p", "true");
  pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "2"}}},
                                               {"limits", {{"cpu", "8"}}}};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  EXPECT_EQ(nodeOf(h, "p"), "small");
}

// Verifies scheduling gates: a gated pod is not scheduled but says why (SchedulingGated); a gate
// cannot be added, and while gated the node selector may only gain entries; once the last gate
// goes, the pod is scheduled with the selector it gained (what Kueue does at admission).
TEST(Scheduler, GatedPodWaitsUntilItsGatesAreRemoved) {
  Harness h;
  json pod = commandPod("gated", "true");
  pod["spec"]["schedulingGates"] = {{{"name", "example.com/one"}}, {{"name", "example.com/two"}}};
  pod["spec"]["nodeSelector"] = {{"kubernetes.io/os", "linux"}};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  const json waiting = unschedulable(h, "gated");
  EXPECT_EQ(waiting.value("reason", ""), "SchedulingGated");
  EXPECT_EQ(waiting.value("message", ""),
            "Scheduling is blocked due to non-empty scheduling gates");
  EXPECT_EQ(getPod(h, "gated")["spec"].value("nodeName", ""), "");

  const std::string merge = "application/merge-patch+json";
  const Response added =
      h.patch(kPods + "/gated", merge,
              {{"spec", {{"schedulingGates", {{{"name", "example.com/three"}}}}}}});
  EXPECT_EQ(added.status, 422);
  EXPECT_EQ(bodyJson(added).value("message", ""),
            "Pod \"gated\" is invalid: spec.schedulingGates: Forbidden: only deletion is "
            "allowed, but found new scheduling gate 'example.com/three'");
  const Response changed = h.patch(
      kPods + "/gated", merge, {{"spec", {{"nodeSelector", {{"kubernetes.io/os", "windows"}}}}}});
  EXPECT_EQ(changed.status, 422);
  const std::string message = bodyJson(changed).value("message", "");
  EXPECT_EQ(message.rfind("Pod \"gated\" is invalid: spec.nodeSelector: Invalid value: ", 0), 0u)
      << message;
  EXPECT_NE(message.find("only additions to spec.nodeSelector are allowed (no mutations or "
                         "deletions)"),
            std::string::npos)
      << message;
  ASSERT_EQ(h.patch(kPods + "/gated", merge,
                    {{"spec", {{"schedulingGates", {{{"name", "example.com/two"}}}}}}})
                .status,
            200);
  EXPECT_EQ(getPod(h, "gated")["spec"].value("nodeName", ""), "");
  ASSERT_EQ(h.patch(kPods + "/gated", merge,
                    {{"spec",
                      {{"schedulingGates", nullptr},
                       {"nodeSelector",
                        {{"kubernetes.io/os", "linux"},
                         {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}}}}})
                .status,
            200);
  EXPECT_EQ(nodeOf(h, "gated"), "h100-1");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
