#include "hetbench/benchmark/render.h"

#include <gtest/gtest.h>

#include <regex>

#include "hetbench/common/ids.h"
#include "render_fixtures.h"

namespace hetbench::benchmark {
namespace {

using namespace hetbench::benchmark::testing;
using nlohmann::json;

// Verifies that the run id is FNV-1a of the uid over the short-id alphabet, pinned to literal
// values: workload names must not change when the operator is upgraded.
TEST(RunId, IsStableAndPinned) {
  EXPECT_EQ(runId(kUid), "9mrvp");
  EXPECT_EQ(runId(kOtherUid), "k4trt");
  EXPECT_EQ(runId(""), "s6vf8");
  EXPECT_EQ(runId("x"), "h7ndf");
  EXPECT_EQ(runId(kUid), runId(std::string(kUid)));
  for (const char c : runId(kUid)) {
    EXPECT_NE(common::kShortIdAlphabet.find(c), std::string_view::npos) << c;
  }
}

struct NameCase {
  std::string name;
  std::string runName;
  Unit unit;
  std::string want;
};

// Verifies unit names: the run's name made a DNS label (dots and other characters become dashes,
// truncated without a trailing dash, a letter first) with the trial, repetition and run id.
TEST(UnitName, Table) {
  const std::vector<NameCase> cases = {
      {"plain", "resnet-sweep", unitOf(3, 1), "resnet-sweep-t3-r1-9mrvp"},
      {"dots", "sweep.v2.a100", unitOf(0, 0), "sweep-v2-a100-t0-r0-9mrvp"},
      {"cut after a dash", std::string(43, 'a') + "-" + std::string(19, 'b'), unitOf(0, 0),
       std::string(43, 'a') + "-t0-r0-9mrvp"},
      {"63 characters", std::string(63, 'c'), unitOf(12, 4),
       std::string(43, 'c') + "-t12-r4-9mrvp"},
      {"253-character subdomain",
       std::string(60, 'd') + "." + std::string(60, 'e') + "." + std::string(60, 'f') + "." +
           std::string(71, 'g'),
       unitOf(0, 0), std::string(44, 'd') + "-t0-r0-9mrvp"},
      {"dot at the cut", std::string(44, 'h') + ".tail", unitOf(0, 0),
       std::string(44, 'h') + "-t0-r0-9mrvp"},
      {"leading digit", "2024.sweep", unitOf(0, 0), "r2024-sweep-t0-r0-9mrvp"},
      {"large indexes", "run", unitOf(999, 99), "run-t999-r99-9mrvp"},
      {"characters no run name has", "Sweep_A", unitOf(0, 0), "sweep-a-t0-r0-9mrvp"},
      {"nothing usable", "...", unitOf(1, 2), "t1-r2-9mrvp"},
  };
  const std::regex dns1035("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  for (const NameCase& c : cases) {
    const std::string got = unitName({"lab", c.runName, kUid}, c.unit);
    EXPECT_EQ(got, c.want) << c.name;
    EXPECT_LE(got.size(), 56U) << c.name;
    EXPECT_TRUE(std::regex_match(got, dns1035)) << c.name << ": " << got;
  }
}

// Verifies that names depend on the uid: the same for a restarted operator, different for a
// new run of the same name.
TEST(UnitName, StableForAUidAndDistinctAcrossUids) {
  const Unit unit = unitOf(1, 0);
  EXPECT_EQ(unitName(kRun, unit), unitName(RunRef{"other-ns", "resnet-sweep", kUid}, unit));
  EXPECT_NE(unitName(kRun, unit), unitName(RunRef{"lab", "resnet-sweep", kOtherUid}, unit));
  EXPECT_NE(unitName(kRun, unitOf(1, 0)), unitName(kRun, unitOf(0, 1)));
  EXPECT_NE(unitName(kRun, unitOf(1, 11)), unitName(kRun, unitOf(11, 1)));
}

const json kRestrictedPod = {{"runAsNonRoot", true},
                             {"seccompProfile", {{"type", "RuntimeDefault"}}}};
const json kRestrictedContainer = {{"allowPrivilegeEscalation", false},
                                   {"capabilities", {{"drop", {"ALL"}}}}};

// Verifies the security fields: each field given replaces the default's field of that name and
// leaves the others, for the pod and the container alike; the service account and its token
// when asked for; an IPUJob's worker gets the fields given and no defaults.
TEST(RenderUnit, SecurityFieldsOverTheRestrictedDefaults) {
  const RunSpec spec = workloadSpec(json::parse(R"({
    "image": "hetbench/train:rocm",
    "podSecurityContext": {"runAsUser": 65532, "supplementalGroups": [44, 110]},
    "securityContext": {"capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
                        "readOnlyRootFilesystem": true},
    "serviceAccountName": "bench", "automountServiceAccountToken": true
  })"));
  const json got = mustRender(spec, unitOf(0, 0)).workload;
  EXPECT_EQ(got["spec"]["securityContext"],
            json::parse(R"({"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"},
                            "runAsUser": 65532, "supplementalGroups": [44, 110]})"));
  EXPECT_EQ(got["spec"]["containers"][0]["securityContext"],
            json::parse(R"({"allowPrivilegeEscalation": false,
                            "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
                            "readOnlyRootFilesystem": true})"));
  EXPECT_EQ(got["spec"]["serviceAccountName"], "bench");
  EXPECT_EQ(got["spec"]["automountServiceAccountToken"], true);

  const RunSpec lifted = workloadSpec(json::parse(R"({
    "image": "custom:latest", "podSecurityContext": {"runAsNonRoot": false}
  })"));
  EXPECT_EQ(mustRender(lifted, unitOf(0, 0)).workload["spec"]["securityContext"]["runAsNonRoot"],
            false);

  const RunSpec ipu = workloadSpec(json::parse(R"({
    "kind": "IPUJob", "image": "hetbench/train:ipu",
    "accelerator": {"resource": "graphcore.ai/ipu", "count": 1},
    "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}
  })"));
  const json worker = mustRender(ipu, unitOf(0, 0)).workload["spec"]["workers"]["template"]["spec"];
  EXPECT_FALSE(worker.contains("securityContext")) << worker.dump(2);
  EXPECT_EQ(worker["containers"][0]["securityContext"],
            json::parse(R"({"capabilities": {"add": ["IPC_LOCK"]}})"));
}

// Verifies a single-GPU Pod in full: labels, owner, the container's flags from `training`,
// environment, GPU limits and requests, and the product selector.
TEST(RenderUnit, PodInFull) {
  const RunSpec spec = workloadSpec(json::parse(R"({
    "image": "hetbench/train:cuda",
    "accelerator": {"resource": "nvidia.com/gpu", "count": 2, "product": "NVIDIA-A100-SXM4-40GB"},
    "training": {"batchSize": 256, "epochs": "2", "precision": "bf16", "data": "synthetic"}
  })"));
  const RenderedUnit got = mustRender(spec, unitOf(1, 0));
  json want = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "resnet-sweep-t1-r0-9mrvp", "namespace": "lab"},
    "spec": {
      "restartPolicy": "Never",
      "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"},
      "containers": [{
        "name": "benchmark", "image": "hetbench/train:cuda",
        "args": ["--model", "resnet50", "--batch-size", "256", "--epochs", "2",
                 "--precision", "bf16", "--data", "synthetic", "--device", "cuda"],
        "env": [{"name": "HETBENCH_RUN", "value": "resnet-sweep"},
                {"name": "HETBENCH_TRIAL", "value": "1"},
                {"name": "HETBENCH_REPETITION", "value": "0"},
                {"name": "HETBENCH_SYSTEM", "value": "a100"}],
        "resources": {"limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": 2}}
      }]
    }
  })");
  want["metadata"]["labels"] = unitLabels(1, 0, "resnet50");
  want["metadata"]["ownerReferences"] = kOwnerReferences;
  want["spec"]["activeDeadlineSeconds"] = 7260;  // timeLimit 2h and a minute
  want["spec"]["securityContext"] = kRestrictedPod;
  want["spec"]["containers"][0]["securityContext"] = kRestrictedContainer;
  want["spec"]["automountServiceAccountToken"] = false;
  EXPECT_EQ(got.workload, want) << got.workload.dump(2);
  EXPECT_EQ(got.name, "resnet-sweep-t1-r0-9mrvp");
  EXPECT_EQ(got.kind, WorkloadKind::kPod);
  EXPECT_EQ(got.expectedPods, 1);
  EXPECT_FALSE(got.service.has_value());
}

// Verifies a two-node run in full: an Indexed Job whose pods find rank 0 through a headless
// Service, with the rendezvous environment and the AMD product selector.
TEST(RenderUnit, MultiNodeJobInFull) {
  const RunSpec spec = workloadSpec(json::parse(R"({
    "kind": "Job", "image": "hetbench/train:rocm", "nodes": 2, "backoffLimit": "0",
    "accelerator": {"resource": "amd.com/gpu", "count": "4", "product": "AMD_Instinct_MI210"}
  })"));
  const RenderedUnit got = mustRender(spec, unitOf(0, 2));
  const std::string name = "resnet-sweep-t0-r2-9mrvp";
  json want = json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "resnet-sweep-t0-r2-9mrvp", "namespace": "lab"},
    "spec": {
      "backoffLimit": 0, "completionMode": "Indexed", "completions": 2, "parallelism": 2,
      "template": {
        "metadata": {},
        "spec": {
          "restartPolicy": "Never",
          "subdomain": "resnet-sweep-t0-r2-9mrvp",
          "nodeSelector": {"amd.com/gpu.product-name": "AMD_Instinct_MI210"},
          "containers": [{
            "name": "benchmark", "image": "hetbench/train:rocm",
            "args": ["--model", "resnet50", "--device", "cuda"],
            "env": [{"name": "HETBENCH_RUN", "value": "resnet-sweep"},
                    {"name": "HETBENCH_TRIAL", "value": "0"},
                    {"name": "HETBENCH_REPETITION", "value": "2"},
                    {"name": "HETBENCH_SYSTEM", "value": "a100"},
                    {"name": "MASTER_ADDR", "value": "resnet-sweep-t0-r2-9mrvp-0.resnet-sweep-t0-r2-9mrvp"},
                    {"name": "MASTER_PORT", "value": "29500"},
                    {"name": "WORLD_SIZE", "value": "2"},
                    {"name": "RANK", "valueFrom": {"fieldRef": {
                      "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}],
            "resources": {"limits": {"amd.com/gpu": 4}, "requests": {"amd.com/gpu": 4}}
          }]
        }
      }
    }
  })");
  want["metadata"]["labels"] = unitLabels(0, 2, "resnet50");
  want["metadata"]["ownerReferences"] = kOwnerReferences;
  want["spec"]["template"]["metadata"]["labels"] = unitLabels(0, 2, "resnet50");
  want["spec"]["activeDeadlineSeconds"] = 7260;
  want["spec"]["template"]["spec"]["securityContext"] = kRestrictedPod;
  want["spec"]["template"]["spec"]["containers"][0]["securityContext"] = kRestrictedContainer;
  want["spec"]["template"]["spec"]["automountServiceAccountToken"] = false;
  EXPECT_EQ(got.workload, want) << got.workload.dump(2);
  EXPECT_EQ(got.kind, WorkloadKind::kJob);
  EXPECT_EQ(got.expectedPods, 2);

  json wantService = json::parse(R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "resnet-sweep-t0-r2-9mrvp", "namespace": "lab"},
    "spec": {
      "clusterIP": "None",
      "selector": {"hetbench.io/run": "resnet-sweep", "hetbench.io/trial": "0",
                   "hetbench.io/repetition": "2", "hetbench.io/id": "9mrvp"},
      "publishNotReadyAddresses": true,
      "ports": [{"name": "rendezvous", "port": 29500, "targetPort": 29500, "protocol": "TCP"}]
    }
  })");
  wantService["metadata"]["labels"] = unitLabels(0, 2, "resnet50");
  wantService["metadata"]["ownerReferences"] = kOwnerReferences;
  ASSERT_TRUE(got.service.has_value());
  EXPECT_EQ(*got.service, wantService) << got.service->dump(2);
  EXPECT_EQ(got.name, name);
}

// Verifies an IPUJob in full: one worker per node, the partition size as a string, the labels
// on the worker template and no IPU limit (the IPU operator asks for the partition itself).
TEST(RenderUnit, IpuJobInFull) {
  const RunSpec spec = workloadSpec(json::parse(R"({
    "kind": "IPUJob", "image": "hetbench/train:ipu", "nodes": 2,
    "accelerator": {"resource": "graphcore.ai/ipu", "count": 4},
    "training": {"stepsPerEpoch": 100, "precision": "fp16"}
  })"),
                                    Benchmark::kCosmoflow);
  const RenderedUnit got = mustRender(spec, unitOf(2, 0));
  json want = json::parse(R"({
    "apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob",
    "metadata": {"name": "resnet-sweep-t2-r0-9mrvp", "namespace": "lab"},
    "spec": {
      "jobInstances": 2, "ipusPerJobInstance": "4",
      "workers": {"template": {
        "metadata": {},
        "spec": {
          "restartPolicy": "Never",
          "containers": [{
            "name": "benchmark", "image": "hetbench/train:ipu",
            "args": ["--model", "cosmoflow", "--steps-per-epoch", "100", "--precision", "fp16"],
            "env": [{"name": "HETBENCH_RUN", "value": "resnet-sweep"},
                    {"name": "HETBENCH_TRIAL", "value": "2"},
                    {"name": "HETBENCH_REPETITION", "value": "0"},
                    {"name": "HETBENCH_SYSTEM", "value": "a100"}]
          }]
        }
      }}
    }
  })");
  want["metadata"]["labels"] = unitLabels(2, 0, "cosmoflow");
  want["metadata"]["ownerReferences"] = kOwnerReferences;
  want["spec"]["workers"]["template"]["metadata"]["labels"] = unitLabels(2, 0, "cosmoflow");
  want["spec"]["workers"]["template"]["spec"]["activeDeadlineSeconds"] = 7260;
  // No security defaults: the IPU operator makes its workers privileged.
  want["spec"]["workers"]["template"]["spec"]["automountServiceAccountToken"] = false;
  EXPECT_EQ(got.workload, want) << got.workload.dump(2);
  EXPECT_EQ(got.kind, WorkloadKind::kIpuJob);
  EXPECT_EQ(got.expectedPods, 2);
  EXPECT_FALSE(got.service.has_value());
}

// One expectation on a rendered workload: the value at a JSON pointer, or (null) its absence.
struct At {
  std::string pointer;
  json value;
};

struct RenderCase {
  std::string name;
  RunSpec spec;
  Unit unit;
  std::vector<At> want;
  std::int64_t expectedPods = 1;
};

void expectRendered(const std::vector<RenderCase>& cases) {
  for (const RenderCase& c : cases) {
    common::Result<RenderedUnit> got = renderUnit(kRun, c.spec, c.unit);
    ASSERT_TRUE(got.isOk()) << c.name << ": " << got.status().toString();
    EXPECT_EQ(got->expectedPods, c.expectedPods) << c.name;
    for (const At& at : c.want) {
      const json::json_pointer pointer(at.pointer);
      if (at.value.is_null()) {
        EXPECT_FALSE(got->workload.contains(pointer)) << c.name << ": " << at.pointer;
        continue;
      }
      ASSERT_TRUE(got->workload.contains(pointer))
          << c.name << ": " << at.pointer << " in " << got->workload.dump(2);
      EXPECT_EQ(got->workload.at(pointer), at.value) << c.name << ": " << at.pointer;
    }
  }
}

const std::string kContainer = "/spec/containers/0";
const std::string kJobContainer = "/spec/template/spec/containers/0";

// Verifies the cluster's own bound on every kind (timeLimit plus a minute, rounded up to a
// second): on a Pod, on a Job as a whole, on an IPUJob's worker pods; a template's smaller bound
// is kept, a larger one lowered.
TEST(RenderUnit, DeadlineBoundsEveryKind) {
  RunSpec pod = workloadSpec(json::parse(R"({"image": "i"})"));
  pod.timeLimit = std::chrono::milliseconds(90500);
  RunSpec job = workloadSpec(json::parse(R"({"kind": "Job", "image": "i"})"));
  RunSpec ipuJob = workloadSpec(json::parse(
      R"({"kind": "IPUJob", "image": "i", "accelerator": {"resource": "graphcore.ai/ipu", "count": 4}})"));
  const json podTemplate = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "spec": {"activeDeadlineSeconds": 600, "containers": [{"name": "main", "image": "i"}]}})");
  json longerTemplate = podTemplate;
  longerTemplate["spec"]["activeDeadlineSeconds"] = 999999;
  expectRendered({
      {"Pod", pod, unitOf(0, 0), {{"/spec/activeDeadlineSeconds", 151}}},
      {"Job",
       job,
       unitOf(0, 0),
       {{"/spec/activeDeadlineSeconds", 7260},
        {"/spec/template/spec/activeDeadlineSeconds", nullptr}}},
      {"IPUJob",
       ipuJob,
       unitOf(0, 0),
       {{"/spec/workers/template/spec/activeDeadlineSeconds", 7260}}},
      {"template with a smaller bound",
       templateSpec(podTemplate),
       unitOf(0, 0),
       {{"/spec/activeDeadlineSeconds", 600}}},
      {"template with a larger bound",
       templateSpec(longerTemplate),
       unitOf(0, 0),
       {{"/spec/activeDeadlineSeconds", 7260}}},
  });
}

// Verifies each rendering rule of structured workloads on its own.
TEST(RenderUnit, StructuredWorkloads) {
  const std::vector<RenderCase> cases = {
      {"cpu only: --device cpu, no resources",
       workloadSpec({{"image", "hetbench/train:cpu"}, {"training", {{"epochs", 1}}}}),
       unitOf(0, 0),
       {{kContainer + "/args", {"--model", "resnet50", "--epochs", "1", "--device", "cpu"}},
        {kContainer + "/resources", nullptr},
        {kContainer + "/command", nullptr},
        {kContainer + "/imagePullPolicy", nullptr},
        {"/spec/nodeSelector", nullptr}}},
      {"custom benchmark keeps the image's arguments",
       workloadSpec({{"image", "registry.example/bench:1"}}, Benchmark::kCustom),
       unitOf(0, 0),
       {{kContainer + "/args", nullptr}, {"/metadata/labels/hetbench.io~1benchmark", "custom"}}},
      {"args override the training flags",
       workloadSpec({{"image", "i"},
                     {"args", {"--fast"}},
                     {"training", {{"batchSize", 8}}},
                     {"command", {"python", "train.py"}},
                     {"imagePullPolicy", "IfNotPresent"}}),
       unitOf(0, 0),
       {{kContainer + "/args", {"--fast"}},
        {kContainer + "/command", {"python", "train.py"}},
        {kContainer + "/imagePullPolicy", "IfNotPresent"}}},
      {"empty args stay empty",
       workloadSpec({{"image", "i"}, {"args", json::array()}}),
       unitOf(0, 0),
       {{kContainer + "/args", json::array()}}},
      {"user env after the run's",
       workloadSpec({{"image", "i"},
                     {"env",
                      {{{"name", "NCCL_DEBUG"}, {"value", "INFO"}},
                       {{"name", "NODE"},
                        {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}}}}),
       unitOf(4, 1),
       {{kContainer + "/env/1", {{"name", "HETBENCH_TRIAL"}, {"value", "4"}}},
        {kContainer + "/env/2", {{"name", "HETBENCH_REPETITION"}, {"value", "1"}}},
        {kContainer + "/env/4", {{"name", "NCCL_DEBUG"}, {"value", "INFO"}}},
        {kContainer + "/env/5/valueFrom/fieldRef/fieldPath", "spec.nodeName"},
        {kContainer + "/env/6", nullptr}}},
      {"a GPU resource with count 0 allocates nothing",
       workloadSpec({{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}}}}),
       unitOf(0, 0),
       {{kContainer + "/resources", nullptr}, {kContainer + "/args/3", "cpu"}}},
      {"nvidia without a product",
       workloadSpec(
           {{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 1}}}}),
       unitOf(0, 0),
       {{kContainer + "/resources/limits/nvidia.com~1gpu", 1},
        {kContainer + "/resources/requests/nvidia.com~1gpu", 1},
        {"/spec/nodeSelector", nullptr}}},
      {"nvidia product",
       workloadSpec({{"image", "i"},
                     {"accelerator",
                      {{"resource", "nvidia.com/gpu"},
                       {"count", 1},
                       {"product", "NVIDIA-H100-80GB-HBM3"}}}}),
       unitOf(0, 0),
       {{"/spec/nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}}}},
      {"amd product",
       workloadSpec(
           {{"image", "i"},
            {"accelerator",
             {{"resource", "amd.com/gpu"}, {"count", 2}, {"product", "AMD_Instinct_MI210"}}}}),
       unitOf(0, 0),
       {{"/spec/nodeSelector", {{"amd.com/gpu.product-name", "AMD_Instinct_MI210"}}},
        {kContainer + "/resources/limits/amd.com~1gpu", 2},
        {kContainer + "/args/3", "cuda"}}},
      {"IPUs in a plain Pod are limits, without --device",
       workloadSpec(
           {{"image", "i"}, {"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 4}}}}),
       unitOf(0, 0),
       {{kContainer + "/resources/limits/graphcore.ai~1ipu", 4},
        {kContainer + "/args", {"--model", "resnet50"}}}},
      {"resources merged with the accelerator",
       workloadSpec({{"image", "i"},
                     {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 8}}},
                     {"resources",
                      {{"requests", {{"cpu", "16"}, {"memory", "64Gi"}}},
                       {"limits", {{"memory", "64Gi"}, {"nvidia.com/gpu", 1}}}}}}),
       unitOf(0, 0),
       {{kContainer + "/resources",
         {{"requests", {{"cpu", "16"}, {"memory", "64Gi"}, {"nvidia.com/gpu", 8}}},
          {"limits", {{"memory", "64Gi"}, {"nvidia.com/gpu", 8}}}}}}},
      {"scheduling constraints",
       workloadSpec(
           {{"image", "i"},
            {"nodeSelector", {{"pool", "gpu"}}},
            {"accelerator",
             {{"resource", "nvidia.com/gpu"}, {"count", 1}, {"product", "NVIDIA-A100-SXM4-40GB"}}},
            {"tolerations", {{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}}},
            {"affinity", {{"nodeAffinity", {{"x", 1}}}}}}),
       unitOf(0, 0),
       {{"/spec/nodeSelector",
         {{"pool", "gpu"}, {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"}}},
        {"/spec/tolerations/0/key", "dedicated"},
        {"/spec/affinity", {{"nodeAffinity", {{"x", 1}}}}}}},
      {"volumes",
       workloadSpec({{"image", "i"},
                     {"volumes",
                      {{{"name", "data"}, {"claimName", "imagenet"}, {"mountPath", "/data"}},
                       {{"name", "out"},
                        {"claimName", "results"},
                        {"mountPath", "/out"},
                        {"readOnly", false}}}}}),
       unitOf(0, 0),
       {{"/spec/volumes",
         {{{"name", "data"},
           {"persistentVolumeClaim", {{"claimName", "imagenet"}, {"readOnly", true}}}},
          {{"name", "out"},
           {"persistentVolumeClaim", {{"claimName", "results"}, {"readOnly", false}}}}}},
        {kContainer + "/volumeMounts",
         {{{"name", "data"}, {"mountPath", "/data"}, {"readOnly", true}},
          {{"name", "out"}, {"mountPath", "/out"}, {"readOnly", false}}}}}},
      {"single-node Job",
       workloadSpec({{"kind", "Job"}, {"image", "i"}, {"backoffLimit", 2}}),
       unitOf(1, 1),
       {{"/apiVersion", "batch/v1"},
        {"/spec/backoffLimit", 2},
        {"/spec/template/metadata/labels", unitLabels(1, 1, "resnet50")},
        {"/spec/template/spec/restartPolicy", "Never"},
        {"/spec/completionMode", nullptr},
        {"/spec/ttlSecondsAfterFinished", nullptr},
        {"/spec/template/spec/subdomain", nullptr},
        {kJobContainer + "/env/4", nullptr}}},
      {"Job backoffLimit defaults to 0",
       workloadSpec({{"kind", "Job"}, {"image", "i"}}),
       unitOf(0, 0),
       {{"/spec/backoffLimit", 0}}},
      {"parameters substituted before parsing",
       workloadSpec({{"image", "hetbench/train:$(params.tag)"},
                     {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "$(params.gpus)"}}},
                     {"training", {{"batchSize", "$(params.batch)"}}}}),
       unitOf(5, 0, {{"batch", "128"}, {"gpus", "4"}, {"tag", "cuda"}}),
       {{kContainer + "/image", "hetbench/train:cuda"},
        {kContainer + "/resources/limits/nvidia.com~1gpu", 4},
        {kContainer + "/args",
         {"--model", "resnet50", "--batch-size", "128", "--device", "cuda"}}}},
  };
  expectRendered(cases);
}

// Verifies templates: the manifest as written, with the unit's name, namespace, labels (also on
// pod templates) and owner; the user's labels and annotations kept; Pods made to end.
TEST(RenderUnit, Templates) {
  const json podTemplate = json::parse(R"json({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "mine", "generateName": "x-", "namespace": "elsewhere",
                 "labels": {"team": "ml", "hetbench.io/run": "spoofed"},
                 "annotations": {"note": "kept"}, "resourceVersion": "12"},
    "spec": {"containers": [{"name": "main", "image": "$(params.image)"}]},
    "status": {"phase": "Running"}
  })json");
  json labelsWithTeam = unitLabels(0, 0, "custom");
  labelsWithTeam["team"] = "ml";
  json onFailure = podTemplate;
  onFailure["spec"]["restartPolicy"] = "OnFailure";
  const json jobTemplate = json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "spec": {"parallelism": 4, "template": {
      "metadata": {"labels": {"app": "bench"}},
      "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "i"}]}}}
  })");
  json fewerCompletions = jobTemplate;
  fewerCompletions["spec"]["completions"] = 2;
  json defaultParallelism = jobTemplate;
  defaultParallelism["spec"].erase("parallelism");
  const json ipuTemplate = json::parse(R"({
    "apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob",
    "spec": {"jobInstances": 3, "ipusPerJobInstance": "2",
             "workers": {"template": {"spec": {"containers": [{"name": "w", "image": "i"}]}}}}
  })");
  json jobLabels = unitLabels(0, 0, "custom");
  jobLabels["app"] = "bench";

  const std::vector<RenderCase> cases = {
      {"Pod",
       templateSpec(podTemplate),
       unitOf(0, 0, {{"image", "registry.example/bench:2"}}),
       {{"/metadata",
         {{"name", "resnet-sweep-t0-r0-9mrvp"},
          {"namespace", "lab"},
          {"labels", labelsWithTeam},
          {"annotations", {{"note", "kept"}}},
          {"ownerReferences", kOwnerReferences}}},
        {"/spec/restartPolicy", "Never"},
        {"/spec/containers/0/image", "registry.example/bench:2"},
        {"/spec/containers/0/env", nullptr},
        {"/status", nullptr}}},
      {"Pod with OnFailure",
       templateSpec(onFailure),
       unitOf(0, 0, {{"image", "i"}}),
       {{"/spec/restartPolicy", "OnFailure"}}},
      {"Job",
       templateSpec(jobTemplate),
       unitOf(0, 0),
       {{"/metadata/labels", unitLabels(0, 0, "custom")},
        {"/metadata/ownerReferences", kOwnerReferences},
        {"/spec/template/metadata/labels", jobLabels},
        {"/spec/parallelism", 4}},
       4},
      {"Job with fewer completions than parallelism",
       templateSpec(fewerCompletions),
       unitOf(0, 0),
       {},
       2},
      {"Job without parallelism", templateSpec(defaultParallelism), unitOf(0, 0), {}, 1},
      {"IPUJob",
       templateSpec(ipuTemplate),
       unitOf(0, 0),
       {{"/metadata/labels", unitLabels(0, 0, "custom")},
        {"/spec/workers/template/metadata/labels", unitLabels(0, 0, "custom")},
        {"/spec/ipusPerJobInstance", "2"}},
       3},
  };
  expectRendered(cases);
}

}  // namespace
}  // namespace hetbench::benchmark
