#include "hetbench/benchmark/render.h"

#include <gtest/gtest.h>

#include <regex>

#include "hetbench/common/ids.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

const std::string kUid = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b";
const std::string kOtherUid = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4c";
const RunRef kRun = {"lab", "resnet-sweep", kUid};

RunSpec workloadSpec(json workload, Benchmark benchmark = Benchmark::kResnet50) {
  RunSpec spec;
  spec.benchmark = benchmark;
  spec.system = "a100";
  spec.workload = std::move(workload);
  return spec;
}

RunSpec templateSpec(json templ) {
  RunSpec spec;
  spec.benchmark = Benchmark::kCustom;
  spec.system = "a100";
  spec.templ = std::move(templ);
  return spec;
}

Unit unitOf(std::int64_t trial, std::int64_t repetition, Params params = {}) {
  return {trial, repetition, std::move(params)};
}

// The labels every object and pod template of kRun's unit carries.
json unitLabels(std::int64_t trial, std::int64_t repetition, const std::string& benchmark) {
  return {{"hetbench.io/run", "resnet-sweep"},
          {"hetbench.io/trial", std::to_string(trial)},
          {"hetbench.io/repetition", std::to_string(repetition)},
          {"hetbench.io/id", "9mrvp"},
          {"hetbench.io/benchmark", benchmark},
          {"hetbench.io/system", "a100"}};
}

const json kOwnerReferences = json::parse(R"([{
  "apiVersion": "hetbench.io/v1alpha1", "kind": "BenchmarkRun", "name": "resnet-sweep",
  "uid": "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b", "controller": true, "blockOwnerDeletion": true
}])");

RenderedUnit mustRender(const RunSpec& spec, const Unit& unit) {
  common::Result<RenderedUnit> got = renderUnit(kRun, spec, unit);
  EXPECT_TRUE(got.isOk()) << got.status().toString();
  return got.isOk() ? *got : RenderedUnit{};
}

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

struct ErrorCase {
  std::string name;
  json input;
  std::string field;
  std::string message;
};

bool hasCause(const common::Status& status, const std::string& field, const std::string& message) {
  for (const common::StatusCause& c : status.causes()) {
    if (c.field == field && c.message == message) return true;
  }
  return false;
}

// Verifies that a bad workload is Invalid with a cause naming the field in the API server's words.
TEST(ParseWorkload, RejectsBadWorkloads) {
  const std::string type = " in body must be of type ";
  const std::vector<ErrorCase> cases = {
      {"not an object", "pod", "spec.workload",
       "Invalid value: \"string\": spec.workload" + type + "object: \"string\""},
      {"no image", json::object(), "spec.workload.image", "Required value"},
      {"empty image", {{"image", ""}}, "spec.workload.image", "Required value"},
      {"image of the wrong type",
       {{"image", 5}},
       "spec.workload.image",
       "Invalid value: \"integer\": spec.workload.image" + type + "string: \"integer\""},
      {"unknown kind",
       {{"image", "i"}, {"kind", "Deployment"}},
       "spec.workload.kind",
       "Unsupported value: \"Deployment\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
      {"kind of the wrong type",
       {{"image", "i"}, {"kind", true}},
       "spec.workload.kind",
       "Invalid value: \"boolean\": spec.workload.kind" + type + "string: \"boolean\""},
      {"negative count",
       {{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", -1}}}},
       "spec.workload.accelerator.count",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"negative count as a string",
       {{"image", "i"}, {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "-1"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"-1\": must be an integer or a string of decimal digits"},
      {"count of words",
       {{"image", "i"}, {"accelerator", {{"resource", "amd.com/gpu"}, {"count", "two"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"two\": must be an integer or a string of decimal digits"},
      {"fractional count",
       {{"image", "i"}, {"accelerator", {{"resource", "amd.com/gpu"}, {"count", 1.5}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"number\": spec.workload.accelerator.count" + type +
           "integer or string: \"number\""},
      {"count beyond int64",
       {{"image", "i"},
        {"accelerator", {{"resource", "amd.com/gpu"}, {"count", "99999999999999999999"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: \"99999999999999999999\": must be no more than 9223372036854775807"},
      {"unsigned count beyond int64",
       {{"image", "i"},
        {"accelerator", {{"resource", "amd.com/gpu"}, {"count", 18446744073709551615ULL}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 18446744073709551615: must be no more than 9223372036854775807"},
      {"count without a resource",
       {{"image", "i"}, {"accelerator", {{"count", 2}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 2: must be 0 when accelerator.resource is none"},
      {"count with resource none",
       {{"image", "i"}, {"accelerator", {{"resource", "none"}, {"count", "1"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 1: must be 0 when accelerator.resource is none"},
      {"unknown resource",
       {{"image", "i"}, {"accelerator", {{"resource", "intel.com/gpu"}}}},
       "spec.workload.accelerator.resource",
       "Unsupported value: \"intel.com/gpu\": supported values: \"nvidia.com/gpu\", "
       "\"amd.com/gpu\", \"graphcore.ai/ipu\", \"none\""},
      {"product for IPUs",
       {{"image", "i"},
        {"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 1}, {"product", "M2000"}}}},
       "spec.workload.accelerator.product",
       "Forbidden: only nvidia.com/gpu and amd.com/gpu nodes carry a product label"},
      {"accelerator of the wrong type",
       {{"image", "i"}, {"accelerator", "gpu"}},
       "spec.workload.accelerator",
       "Invalid value: \"string\": spec.workload.accelerator" + type + "object: \"string\""},
      {"two nodes in a Pod",
       {{"image", "i"}, {"nodes", 2}},
       "spec.workload.nodes",
       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"},
      {"two nodes as a string in a Pod",
       {{"image", "i"}, {"kind", "Pod"}, {"nodes", "2"}},
       "spec.workload.nodes",
       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"},
      {"zero nodes",
       {{"image", "i"}, {"kind", "Job"}, {"nodes", 0}},
       "spec.workload.nodes",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"IPUJob on GPUs",
       {{"image", "i"},
        {"kind", "IPUJob"},
        {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 1}}}},
       "spec.workload.accelerator.resource",
       "Invalid value: \"nvidia.com/gpu\": kind IPUJob needs graphcore.ai/ipu"},
      {"IPUJob without an accelerator",
       {{"image", "i"}, {"kind", "IPUJob"}},
       "spec.workload.accelerator.resource",
       "Invalid value: \"none\": kind IPUJob needs graphcore.ai/ipu"},
      {"IPUJob without IPUs",
       {{"image", "i"}, {"kind", "IPUJob"}, {"accelerator", {{"resource", "graphcore.ai/ipu"}}}},
       "spec.workload.accelerator.count",
       "Invalid value: 0: must be greater than or equal to 1 for kind IPUJob"},
      {"backoffLimit on a Pod",
       {{"image", "i"}, {"backoffLimit", 1}},
       "spec.workload.backoffLimit",
       "Forbidden: only kind Job retries failed pods"},
      {"negative backoffLimit",
       {{"image", "i"}, {"kind", "Job"}, {"backoffLimit", -1}},
       "spec.workload.backoffLimit",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"command not a list",
       {{"image", "i"}, {"command", "python train.py"}},
       "spec.workload.command",
       "Invalid value: \"string\": spec.workload.command" + type + "array: \"string\""},
      {"args with a number",
       {{"image", "i"}, {"args", {"--epochs", 2}}},
       "spec.workload.args[1]",
       "Invalid value: \"integer\": spec.workload.args[1]" + type + "string: \"integer\""},
      {"unknown pull policy",
       {{"image", "i"}, {"imagePullPolicy", "Sometimes"}},
       "spec.workload.imagePullPolicy",
       "Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", "
       "\"Never\""},
      {"node selector value",
       {{"image", "i"}, {"nodeSelector", {{"zone", 1}}}},
       "spec.workload.nodeSelector[zone]",
       "Invalid value: \"integer\": spec.workload.nodeSelector[zone]" + type +
           "string: \"integer\""},
      {"toleration not an object",
       {{"image", "i"}, {"tolerations", {"gpu"}}},
       "spec.workload.tolerations[0]",
       "Invalid value: \"string\": spec.workload.tolerations[0]" + type + "object: \"string\""},
      {"affinity not an object",
       {{"image", "i"}, {"affinity", json::array()}},
       "spec.workload.affinity",
       "Invalid value: \"array\": spec.workload.affinity" + type + "object: \"array\""},
      {"resource quantity of the wrong type",
       {{"image", "i"}, {"resources", {{"limits", {{"cpu", true}}}}}},
       "spec.workload.resources.limits[cpu]",
       "Invalid value: \"boolean\": spec.workload.resources.limits[cpu]" + type +
           "integer or string: \"boolean\""},
      {"env without a name",
       {{"image", "i"}, {"env", {{{"value", "1"}}}}},
       "spec.workload.env[0].name",
       "Required value"},
      {"env value not a string",
       {{"image", "i"}, {"env", {{{"name", "A"}, {"value", 1}}}}},
       "spec.workload.env[0].value",
       "Invalid value: \"integer\": spec.workload.env[0].value" + type + "string: \"integer\""},
      {"volume without a claim",
       {{"image", "i"}, {"volumes", {{{"name", "data"}, {"mountPath", "/data"}}}}},
       "spec.workload.volumes[0].claimName",
       "Required value"},
      {"volumes of one name",
       {{"image", "i"},
        {"volumes",
         {{{"name", "data"}, {"claimName", "a"}, {"mountPath", "/a"}},
          {{"name", "data"}, {"claimName", "b"}, {"mountPath", "/b"}}}}},
       "spec.workload.volumes[1].name",
       "Duplicate value: \"data\""},
      {"readOnly not a boolean",
       {{"image", "i"},
        {"volumes",
         {{{"name", "d"}, {"claimName", "a"}, {"mountPath", "/a"}, {"readOnly", "yes"}}}}},
       "spec.workload.volumes[0].readOnly",
       "Invalid value: \"string\": spec.workload.volumes[0].readOnly" + type +
           "boolean: \"string\""},
      {"zero batch size",
       {{"image", "i"}, {"training", {{"batchSize", 0}}}},
       "spec.workload.training.batchSize",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"unknown precision",
       {{"image", "i"}, {"training", {{"precision", "fp8"}}}},
       "spec.workload.training.precision",
       "Unsupported value: \"fp8\": supported values: \"fp32\", \"bf16\", \"fp16\""},
      {"data not a string",
       {{"image", "i"}, {"training", {{"data", 1}}}},
       "spec.workload.training.data",
       "Invalid value: \"integer\": spec.workload.training.data" + type + "string: \"integer\""},
      {"control characters shown escaped",
       {{"image", "i"}, {"kind", "Po\nd\x01"}},
       "spec.workload.kind",
       "Unsupported value: \"Po\\nd\\x01\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
  };
  for (const ErrorCase& c : cases) {
    common::Result<Workload> got = parseWorkload(c.input, "spec.workload");
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_EQ(got.status().message(), "spec.workload is invalid") << c.name;
    EXPECT_TRUE(hasCause(got.status(), c.field, c.message))
        << c.name << ": " << got.status().toString();
  }
}

// Verifies that every problem of a workload is reported at once, in the order of the fields.
TEST(ParseWorkload, ReportsEveryProblem) {
  common::Result<Workload> got = parseWorkload(
      {{"nodes", 0}, {"training", {{"epochs", 0}, {"precision", "fp8"}}}}, "spec.workload");
  ASSERT_FALSE(got.isOk());
  std::vector<std::string> fields;
  const common::Status status = got.status();
  for (const common::StatusCause& c : status.causes()) fields.push_back(c.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"spec.workload.image", "spec.workload.nodes",
                                              "spec.workload.training.epochs",
                                              "spec.workload.training.precision"}));
}

// Verifies that a full workload parses into its fields, integers given as digit strings.
TEST(ParseWorkload, ReadsEveryField) {
  common::Result<Workload> got = parseWorkload(json::parse(R"({
    "kind": "Job", "image": "i", "command": ["a"], "args": ["b"], "imagePullPolicy": "Always",
    "accelerator": {"resource": "amd.com/gpu", "count": "3", "product": "p"},
    "nodes": "2", "backoffLimit": 1, "nodeSelector": {"k": "v"}, "tolerations": [{}],
    "affinity": {"a": 1}, "resources": {"limits": {"cpu": 2}, "claims": [1]},
    "env": [{"name": "E", "value": "v"}],
    "volumes": [{"name": "d", "claimName": "c", "mountPath": "/m", "readOnly": false}],
    "training": {"batchSize": "32", "epochs": 3, "stepsPerEpoch": "10", "precision": "fp32",
                 "data": "/m/imagenet"},
    "unknownField": true
  })"),
                                               "spec.workload");
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  const Workload& w = *got;
  EXPECT_EQ(w.kind, WorkloadKind::kJob);
  EXPECT_EQ(w.image, "i");
  EXPECT_EQ(w.command, std::vector<std::string>{"a"});
  EXPECT_EQ(w.args, std::vector<std::string>{"b"});
  EXPECT_EQ(w.imagePullPolicy, "Always");
  EXPECT_EQ(w.accelerator.resource, "amd.com/gpu");
  EXPECT_EQ(w.accelerator.count, 3);
  EXPECT_EQ(w.accelerator.product, "p");
  EXPECT_EQ(w.nodes, 2);
  EXPECT_EQ(w.backoffLimit, 1);
  EXPECT_EQ(w.nodeSelector, json({{"k", "v"}}));
  EXPECT_EQ(w.tolerations, json::array({json::object()}));
  EXPECT_EQ(w.affinity, json({{"a", 1}}));
  EXPECT_EQ(w.resources, json({{"limits", {{"cpu", 2}}}}));
  EXPECT_EQ(w.env, json::array({{{"name", "E"}, {"value", "v"}}}));
  ASSERT_EQ(w.volumes.size(), 1U);
  EXPECT_EQ(w.volumes[0].claimName, "c");
  EXPECT_EQ(w.volumes[0].mountPath, "/m");
  EXPECT_FALSE(w.volumes[0].readOnly);
  EXPECT_EQ(w.training.batchSize, 32);
  EXPECT_EQ(w.training.epochs, 3);
  EXPECT_EQ(w.training.stepsPerEpoch, 10);
  EXPECT_EQ(w.training.precision, "fp32");
  EXPECT_EQ(w.training.data, "/m/imagenet");
}

// Verifies that a template of an unsupported kind, or one that could never end, is Invalid.
TEST(RenderUnit, RejectsBadTemplates) {
  const std::vector<ErrorCase> cases = {
      {"Deployment",
       {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"spec", json::object()}},
       "spec.template.kind",
       "Unsupported value: \"Deployment\": supported values: \"Pod\", \"Job\", \"IPUJob\""},
      {"no kind",
       {{"apiVersion", "v1"}, {"spec", json::object()}},
       "spec.template.kind",
       "Required value"},
      {"wrong group for the kind",
       {{"apiVersion", "batch/v2"}, {"kind", "Job"}},
       "spec.template.apiVersion",
       "Unsupported value: \"batch/v2\": supported values: \"batch/v1\""},
      {"no apiVersion", {{"kind", "Pod"}}, "spec.template.apiVersion", "Required value"},
      {"not an object", json::array(), "spec.template",
       "Invalid value: \"array\": spec.template in body must be of type object: \"array\""},
      {"Pod restarting forever",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", {{"restartPolicy", "Always"}}}},
       "spec.template.spec.restartPolicy",
       "Unsupported value: \"Always\": supported values: \"Never\", \"OnFailure\""},
      {"Pod without spec",
       {{"apiVersion", "v1"}, {"kind", "Pod"}},
       "spec.template.spec",
       "Required value"},
      {"Job without a pod template",
       {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"spec", json::object()}},
       "spec.template.spec.template",
       "Required value"},
      {"Job with parallelism 0",
       {{"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"spec", {{"parallelism", 0}, {"template", {{"spec", json::object()}}}}}},
       "spec.template.spec.parallelism",
       "Invalid value: 0: must be greater than or equal to 1"},
      {"Job with pod template labels that are not strings",
       {{"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"spec", {{"template", {{"metadata", {{"labels", {{"a", 1}}}}}}}}}},
       "spec.template.spec.template.metadata.labels[a]",
       "Invalid value: \"integer\": spec.template.spec.template.metadata.labels[a] in body must "
       "be of type string: \"integer\""},
      {"IPUJob without jobInstances",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"workers", {{"template", json::object()}}}}}},
       "spec.template.spec.jobInstances",
       "Required value"},
      {"IPUJob with jobInstances as a string",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"jobInstances", "2"}, {"workers", {{"template", json::object()}}}}}},
       "spec.template.spec.jobInstances",
       "Invalid value: \"string\": spec.template.spec.jobInstances in body must be of type "
       "integer: \"string\""},
      {"IPUJob without workers",
       {{"apiVersion", "graphcore.ai/v1alpha1"},
        {"kind", "IPUJob"},
        {"spec", {{"jobInstances", 1}}}},
       "spec.template.spec.workers",
       "Required value"},
      {"labels that are not strings",
       {{"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"labels", {{"a", 1}}}}},
        {"spec", json::object()}},
       "spec.template.metadata.labels[a]",
       "Invalid value: \"integer\": spec.template.metadata.labels[a] in body must be of type "
       "string: \"integer\""},
  };
  for (const ErrorCase& c : cases) {
    common::Result<RenderedUnit> got = renderUnit(kRun, templateSpec(c.input), unitOf(0, 0));
    ASSERT_FALSE(got.isOk()) << c.name;
    EXPECT_TRUE(got.status().isInvalid()) << c.name;
    EXPECT_TRUE(hasCause(got.status(), c.field, c.message))
        << c.name << ": " << got.status().toString();
  }
}

// Verifies the run-level reasons a unit cannot be rendered.
TEST(RenderUnit, RejectsBadRuns) {
  const json workload = {{"image", "i"}};
  common::Result<RenderedUnit> longName =
      renderUnit({"lab", std::string(64, 'a'), kUid}, workloadSpec(workload), unitOf(0, 0));
  ASSERT_FALSE(longName.isOk());
  EXPECT_TRUE(hasCause(longName.status(), "metadata.name",
                       "Invalid value: \"" + std::string(64, 'a') +
                           "\": must be no more than 63 characters, as it is the value of label "
                           "hetbench.io/run"));

  RunSpec neither = workloadSpec(workload);
  neither.workload.reset();
  common::Result<RenderedUnit> none = renderUnit(kRun, neither, unitOf(0, 0));
  ASSERT_FALSE(none.isOk());
  EXPECT_TRUE(hasCause(none.status(), "spec.workload",
                       "Required value: exactly one of workload and template"));

  RunSpec both = workloadSpec(workload);
  both.templ = json::object();
  EXPECT_TRUE(renderUnit(kRun, both, unitOf(0, 0)).status().isInvalid());

  common::Result<RenderedUnit> badWorkload =
      renderUnit(kRun, workloadSpec({{"image", "i"}, {"nodes", 2}}), unitOf(0, 0));
  EXPECT_TRUE(hasCause(badWorkload.status(), "spec.workload.nodes",
                       "Invalid value: 2: must be 1 for kind Pod; kind Job runs several"));

  common::Result<RenderedUnit> unknownParam =
      renderUnit(kRun, workloadSpec({{"image", "$(params.missing)"}}), unitOf(0, 0));
  EXPECT_TRUE(unknownParam.status().isInvalid());
}

// Verifies that values of every JSON type in every field give answers, never exceptions.
TEST(RenderUnit, SurvivesHostileJson) {
  const std::vector<json> values = {nullptr,
                                    true,
                                    -1,
                                    1.5,
                                    "x",
                                    "",
                                    json::array(),
                                    json::object(),
                                    json::array({1, "a", nullptr, json::object()}),
                                    json({{"a", json::array()}}),
                                    18446744073709551615ULL,
                                    std::string("\xff\xfe", 2)};
  const std::vector<std::string> workloadKeys = {
      "kind",        "image",     "command",      "args",         "imagePullPolicy",
      "accelerator", "nodes",     "backoffLimit", "nodeSelector", "tolerations",
      "affinity",    "resources", "env",          "volumes",      "training"};
  for (const json& v : values) {
    EXPECT_NO_THROW((void)parseWorkload(v, "spec.workload"))
        << v.dump(-1, ' ', false, json::error_handler_t::replace);
    for (const std::string& key : workloadKeys) {
      for (const json& base :
           {json({{"image", "i"}, {"kind", "Job"}}),
            json({{"image", "i"}, {"accelerator", {{"resource", "graphcore.ai/ipu"}}}})}) {
        json w = base;
        w[key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(w), unitOf(0, 0))) << key;
        for (const char* inner :
             {"resource", "count", "product", "name", "value", "valueFrom", "claimName",
              "mountPath", "readOnly", "batchSize", "precision", "data", "requests", "limits"}) {
          json nested = base;
          nested[key] = {{inner, v}};
          EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(nested), unitOf(0, 0)))
              << key << "." << inner;
          nested[key] = json::array({{{inner, v}}});
          EXPECT_NO_THROW((void)renderUnit(kRun, workloadSpec(nested), unitOf(0, 0)))
              << key << "[0]." << inner;
        }
      }
    }
    for (const char* kind : {"Pod", "Job", "IPUJob"}) {
      const json templ = {{"apiVersion", kind == std::string("Pod")   ? "v1"
                                         : kind == std::string("Job") ? "batch/v1"
                                                                      : "graphcore.ai/v1alpha1"},
                          {"kind", kind}};
      for (const char* key : {"apiVersion", "kind", "metadata", "spec"}) {
        json t = templ;
        t[key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
      for (const char* key : {"labels", "annotations"}) {
        json t = templ;
        t["metadata"][key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
      for (const char* key :
           {"restartPolicy", "template", "parallelism", "completions", "jobInstances", "workers"}) {
        json t = templ;
        t["spec"][key] = v;
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
        t["spec"][key] = {{"metadata", v}, {"template", v}};
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
        t["spec"][key] = {{"metadata", {{"labels", v}}}, {"template", {{"metadata", v}}}};
        EXPECT_NO_THROW((void)renderUnit(kRun, templateSpec(t), unitOf(0, 0))) << kind << key;
      }
    }
  }
}

}  // namespace
}  // namespace hetbench::benchmark
