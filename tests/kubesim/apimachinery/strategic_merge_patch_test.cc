#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apimachinery/patch.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const json kDeployment = json::parse(R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"},
               "finalizers": ["a.io/x", "b.io/y"]},
  "spec": {
    "replicas": 1,
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [
          {"name": "app", "image": "app:1",
           "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
           "ports": [{"containerPort": 80, "protocol": "TCP"}]},
          {"name": "sidecar", "image": "side:1"}
        ],
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "nodeSelector": {"disk": "ssd", "zone": "a"}
      }
    }
  }
})");

// Wraps a pod spec patch in spec.template.spec.
json podSpecPatch(const char* podSpec) {
  return {{"spec", {{"template", {{"spec", json::parse(podSpec)}}}}}};
}

const json& containers(const json& deployment) {
  return deployment["spec"]["template"]["spec"]["containers"];
}

// Verifies the patches `kubectl apply` sends for a Deployment's pod template: an image change, an
// env var added in the middle and one removed, containers reordered, a finalizer removed through
// the parallel deletion list, each with $setElementOrder deciding the final order.
TEST(StrategicMergePatchTest, KubectlApplyPatches) {
  struct Case {
    const char* name;
    json patch;
    json want;  // merge-patched over kDeployment to give the whole expected object
  };
  const std::vector<Case> cases = {
      {"image change",
       podSpecPatch(R"({"$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                        "containers": [{"name": "app", "image": "app:2"}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "app", "image": "app:2",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]},
           {"name": "sidecar", "image": "side:1"}]})")},
      {"env var added between existing ones",
       podSpecPatch(R"({"$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                        "containers": [{"name": "app",
                          "$setElementOrder/env": [{"name": "A"}, {"name": "C"}, {"name": "B"}],
                          "env": [{"name": "C", "value": "3"}]}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "app", "image": "app:1",
            "env": [{"name": "A", "value": "1"}, {"name": "C", "value": "3"},
                    {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]},
           {"name": "sidecar", "image": "side:1"}]})")},
      {"env var removed",
       podSpecPatch(R"({"$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                        "containers": [{"name": "app",
                          "$setElementOrder/env": [{"name": "A"}],
                          "env": [{"$patch": "delete", "name": "B"}]}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]},
           {"name": "sidecar", "image": "side:1"}]})")},
      {"containers reordered",
       podSpecPatch(R"({"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "sidecar", "image": "side:1"},
           {"name": "app", "image": "app:1",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]}]})")},
      {"container added in the middle of a new order",
       podSpecPatch(R"({"$setElementOrder/containers":
                          [{"name": "sidecar"}, {"name": "new"}, {"name": "app"}],
                        "containers": [{"name": "new", "image": "new:1"}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "sidecar", "image": "side:1"},
           {"name": "new", "image": "new:1"},
           {"name": "app", "image": "app:1",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]}]})")},
      {"finalizer removed", json::parse(R"({"metadata": {"$setElementOrder/finalizers": ["b.io/y"],
                                    "$deleteFromPrimitiveList/finalizers": ["a.io/x"]}})"),
       json::parse(R"({"metadata": {"finalizers": ["b.io/y"]}})")},
      {"label removed and one changed",
       json::parse(R"({"metadata": {"labels": {"tier": null, "app": "web2"}}})"),
       json::parse(R"({"metadata": {"labels": {"tier": null, "app": "web2"}}})")},
  };
  for (const auto& c : cases) {
    auto result = applyStrategicMergePatch("Deployment", kDeployment, c.patch);
    ASSERT_TRUE(result.isOk()) << c.name << ": " << result.status().toString();
    EXPECT_EQ(*result, applyMergePatch(kDeployment, c.want)) << c.name;
  }
}

// Verifies the $patch directives: delete of a list item, replace of a map and of a list, delete of
// a map, and $retainKeys clearing the fields it does not name.
TEST(StrategicMergePatchTest, Directives) {
  struct Case {
    const char* name;
    json patch;
    json want;
  };
  const std::vector<Case> cases = {
      {"$patch: delete of a container",
       podSpecPatch(R"({"containers": [{"$patch": "delete", "name": "sidecar"}]})"),
       podSpecPatch(R"({"containers": [
           {"name": "app", "image": "app:1",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]}]})")},
      {"$patch: replace of a map", podSpecPatch(R"({"nodeSelector": {"$patch": "replace",
                                                                     "disk": "hdd"}})"),
       podSpecPatch(R"({"nodeSelector": {"zone": null, "disk": "hdd"}})")},
      {"$patch: replace of a list",
       podSpecPatch(R"({"containers": [{"name": "only", "image": "o:1"}, {"$patch": "replace"}]})"),
       podSpecPatch(R"({"containers": [{"name": "only", "image": "o:1"}]})")},
      {"$patch: delete of a map", podSpecPatch(R"({"nodeSelector": {"$patch": "delete"}})"),
       podSpecPatch(R"({"nodeSelector": {"zone": null, "disk": null}})")},
      {"$retainKeys", json::parse(R"({"spec": {"strategy": {"$retainKeys": ["type"],
                                                           "type": "Recreate"}}})"),
       json::parse(R"({"spec": {"strategy": {"type": "Recreate", "rollingUpdate": null}}})")},
  };
  for (const auto& c : cases) {
    auto result = applyStrategicMergePatch("Deployment", kDeployment, c.patch);
    ASSERT_TRUE(result.isOk()) << c.name << ": " << result.status().toString();
    EXPECT_EQ(*result, applyMergePatch(kDeployment, c.want)) << c.name;
  }
}

// Verifies merging without $setElementOrder, as `kubectl patch` sends it: lists merged by their
// merge key keep the live order for patched items, new items are placed before the remaining
// live items (upstream's mergeSortedSlice), and atomic lists and unknown kinds are replaced.
TEST(StrategicMergePatchTest, MergesByKeyAndReplacesAtomicLists) {
  struct Case {
    const char* name;
    std::string kind;
    json target;
    json patch;
    json want;  // whole expected object
  };
  const json pod = json::parse(R"({"kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "app", "image": "a"}]},
      "status": {"conditions": [{"type": "Ready", "status": "False"},
                                {"type": "Initialized", "status": "True"}]}})");
  json readyPod = pod;
  readyPod["status"]["conditions"][0]["status"] = "True";
  json widget = pod;
  widget["spec"]["containers"] = json::parse(R"([{"name": "other"}])");
  const std::vector<Case> cases = {
      {"env var changed by name", "Deployment", kDeployment,
       podSpecPatch(R"({"containers": [{"name": "app", "env": [{"name": "A", "value": "9"}]}]})"),
       applyMergePatch(kDeployment, podSpecPatch(R"({"containers": [
           {"name": "app", "image": "app:1",
            "env": [{"name": "A", "value": "9"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]},
           {"name": "sidecar", "image": "side:1"}]})"))},
      {"finalizer added", "Deployment", kDeployment,
       json::parse(R"({"metadata": {"finalizers": ["c.io/z", "a.io/x"]}})"),
       applyMergePatch(kDeployment, json::parse(R"({"metadata": {"finalizers":
           ["c.io/z", "a.io/x", "b.io/y"]}})"))},
      {"tolerations replaced", "Deployment", kDeployment,
       podSpecPatch(R"({"tolerations": [{"key": "x", "operator": "Exists"}]})"),
       applyMergePatch(kDeployment,
                       podSpecPatch(R"({"tolerations": [{"key": "x", "operator": "Exists"}]})"))},
      {"pod condition merged by type", "Pod", pod,
       json::parse(R"({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})"),
       readyPod},
      {"claim condition merged by type", "PersistentVolumeClaim",
       json::parse(R"({"status": {"conditions": [{"type": "Resizing", "status": "True"}]}})"),
       json::parse(
           R"({"status": {"conditions": [{"type": "ModifyingVolume", "status": "True"}]}})"),
       json::parse(R"({"status": {"conditions": [{"type": "ModifyingVolume", "status": "True"},
                                                 {"type": "Resizing", "status": "True"}]}})")},
      {"policy match conditions merged by name", "ValidatingAdmissionPolicy",
       json::parse(R"({"spec": {"matchConditions": [{"name": "a", "expression": "true"}]}})"),
       json::parse(R"({"spec": {"matchConditions": [{"name": "b", "expression": "false"}]}})"),
       json::parse(R"({"spec": {"matchConditions": [{"name": "b", "expression": "false"},
                                                   {"name": "a", "expression": "true"}]}})")},
      {"CRD versions replaced whole", "CustomResourceDefinition",
       json::parse(R"({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema":
           {"x-kubernetes-validations": [{"rule": "a"}]}}}]}})"),
       json::parse(R"({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema":
           {"x-kubernetes-validations": [{"rule": "b"}]}}}]}})"),
       json::parse(R"({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema":
           {"x-kubernetes-validations": [{"rule": "b"}]}}}]}})")},
      {"container statuses replaced whole", "Pod",
       json::parse(R"({"status": {"containerStatuses": [{"name": "c",
           "volumeMounts": [{"mountPath": "/a", "name": "x"}]}]}})"),
       json::parse(R"({"status": {"containerStatuses": [{"name": "c",
           "volumeMounts": [{"mountPath": "/b", "name": "y"}]}]}})"),
       json::parse(R"({"status": {"containerStatuses": [{"name": "c",
           "volumeMounts": [{"mountPath": "/b", "name": "y"}]}]}})")},
      {"unknown kind replaces lists", "Widget", pod,
       json::parse(R"({"spec": {"containers": [{"name": "other"}]}})"), widget},
      {"top-level $patch: delete", "Pod", pod, json::parse(R"({"$patch": "delete"})"),
       json::object()},
      {"null patch", "Pod", pod, nullptr, pod},
  };
  for (const auto& c : cases) {
    auto result = applyStrategicMergePatch(c.kind, c.target, c.patch);
    ASSERT_TRUE(result.isOk()) << c.name << ": " << result.status().toString();
    EXPECT_EQ(*result, c.want) << c.name << ": " << result->dump();
  }
}

// Verifies that a server-only list item (one kubectl does not manage) keeps its place when
// $setElementOrder names only the managed items.
TEST(StrategicMergePatchTest, KeepsServerOnlyItemsInPlace) {
  const json target = json::parse(R"({"spec": {"template": {"spec": {"containers": [
      {"name": "injected", "image": "proxy"}, {"name": "app", "image": "app:1"}]}}}})");
  const json patch = podSpecPatch(R"({"$setElementOrder/containers": [{"name": "app"}],
                                      "containers": [{"name": "app", "image": "app:2"}]})");
  auto result = applyStrategicMergePatch("Deployment", target, patch);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(containers(*result), json::parse(R"([{"name": "injected", "image": "proxy"},
                                                {"name": "app", "image": "app:2"}])"));
}

// Verifies that malformed patches and directives are Invalid with the upstream error texts.
TEST(StrategicMergePatchTest, RejectsMalformedPatches) {
  struct Case {
    json patch;
    std::string message;
  };
  const std::vector<Case> cases = {
      {json::parse(R"({"spec": {"$patch": "merge"}})"),
       "unknown patch type: merge in map: map[$patch:merge]"},
      {podSpecPatch(R"({"containers": [{"$patch": "merge", "name": "app"}]})"),
       "merging lists cannot yet be specified in the patch"},
      {podSpecPatch(R"({"containers": [{"$patch": "delete"}]})"),
       "map: map[$patch:delete] does not contain declared merge key: name"},
      {podSpecPatch(R"({"containers": [{"image": "x"}]})"),
       "map: map[image:x] does not contain declared merge key: name"},
      {json::parse(R"({"metadata": {"$deleteFromPrimitiveList": ["a.io/x"]}})"),
       "invalid patch format of primitive list"},
      {json::parse(R"({"metadata": {"$setElementOrder": ["a.io/x"]}})"),
       "invalid patch format of setElementOrder list"},
      {json::parse(R"({"spec": {"strategy": {"$retainKeys": "type"}}})"),
       "invalid patch format of retainKeys"},
      {json::parse(R"({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}})"),
       "invalid patch format of retainKeys"},
      {podSpecPatch(R"({"$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                        "containers": [{"name": "sidecar"}, {"name": "app"}]})"),
       "The order in patch list:\n[map[name:sidecar] map[name:app]]\n doesn't match "
       "$setElementOrder list:\n[map[name:app] map[name:sidecar]]\n"},
      {podSpecPatch(R"({"$setElementOrder/containers": "app"})"),
       "expected a []interface {}, but received a string"},
      {json::parse(R"({"metadata": {"$foo": 1}})"),
       "unknown directive \"$foo\" in strategic merge patch"},
      {json::parse(R"({"metadata": {"finalizers": [["x"]]}})"),
       "list element types are not identical: [[a.io/x b.io/y] [[x]]]"},
      {json::array(), "json: cannot unmarshal array into Go value of type map[string]interface {}"},
  };
  for (const auto& c : cases) {
    auto result = applyStrategicMergePatch("Deployment", kDeployment, c.patch);
    ASSERT_FALSE(result.isOk()) << c.patch.dump();
    EXPECT_TRUE(result.status().isInvalid()) << c.patch.dump();
    EXPECT_EQ(result.status().message(), c.message) << c.patch.dump();
  }
}

}  // namespace
}  // namespace hetbench::kubesim
