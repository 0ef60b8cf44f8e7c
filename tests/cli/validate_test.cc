#include "hetbench/cli/validate.h"

#include <gtest/gtest.h>

namespace hetbench::cli {
namespace {

constexpr const char* kManifest = R"yaml(apiVersion: hetbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  name: good
  namespace: lab
spec:
  benchmark: resnet50
  system: lab
  matrix:
    gpus: [1, 2]
  repetitions: 3
  workload:
    image: hetbench/train:cpu
    accelerator: {resource: nvidia.com/gpu, count: "$(params.gpus)"}
  references:
    effective_throughput: {value: 1234.5, lower: 0.05}
---
apiVersion: hetbench.io/v1alpha1
kind: BenchmarkRun
metadata:
  generateName: bad-
spec:
  benchmark: custom
  system: lab
  workload: {image: busybox}
  references:
    effective_throughput: {value: 10, lower: 1.5}
---
apiVersion: hetbench.io/v1alpha1
kind: BenchmarkSchedule
metadata:
  name: nightly
spec:
  schedule: "0 2 * * *"
  runTemplate:
    spec:
      benchmark: custom
      system: lab
      workload: {image: busybox}
      metrics:
        - {name: speed, pattern: "speed ([0-9."}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
)yaml";

// Verifies that hetbench validate reads every document and checks runs and schedules with the
// controller's causes: a valid run, a run whose reference is invalid, a schedule whose run
// template no run could pass, and an object it does not check.
TEST(Validate, ChecksEveryDocument) {
  common::Result<std::vector<Validation>> found = validateManifests(kManifest, "default");
  ASSERT_TRUE(found.isOk()) << found.status().toString();
  ASSERT_EQ(found->size(), 4u);
  const Validation& good = (*found)[0];
  EXPECT_TRUE(good.checked);
  EXPECT_TRUE(good.valid) << (good.causes.empty() ? "" : good.causes[0]);
  EXPECT_EQ(good.name, "lab/good");
  EXPECT_EQ(good.summary, "2 trial(s) x 3 repetition(s)");

  const Validation& bad = (*found)[1];
  EXPECT_FALSE(bad.valid);
  EXPECT_EQ(bad.name, "default/bad-*");
  ASSERT_EQ(bad.causes.size(), 1u);
  EXPECT_EQ(bad.causes[0].rfind("spec.references.effective_throughput.lower: ", 0), 0u)
      << bad.causes[0];

  const Validation& schedule = (*found)[2];
  EXPECT_EQ(schedule.kind, "BenchmarkSchedule");
  EXPECT_FALSE(schedule.valid);
  ASSERT_FALSE(schedule.causes.empty());
  EXPECT_EQ(schedule.causes[0].rfind("spec.runTemplate.spec.metrics[0].pattern: ", 0), 0u)
      << schedule.causes[0];

  EXPECT_FALSE((*found)[3].checked);
  const std::string text = renderValidations("f.yaml", *found);
  EXPECT_NE(text.find("f.yaml: BenchmarkRun lab/good: valid (2 trial(s) x 3 repetition(s))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("f.yaml: BenchmarkRun default/bad-*: invalid\n  spec.references"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ConfigMap default/other: not checked"), std::string::npos) << text;
}

// Verifies that YAML scalars become the JSON types the API server would see, so that a quoted
// number stays a string and is refused where an integer is wanted.
TEST(Validate, YamlScalarsAreTypedAsByKubectl) {
  const std::string run = R"(apiVersion: hetbench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: typed}
spec:
  benchmark: custom
  system: lab
  repetitions: "3"
  workload: {image: busybox}
)";
  common::Result<std::vector<Validation>> found = validateManifests(run, "default");
  ASSERT_TRUE(found.isOk());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_FALSE((*found)[0].valid);
  ASSERT_FALSE((*found)[0].causes.empty());
  EXPECT_EQ((*found)[0].causes[0].rfind("spec.repetitions: ", 0), 0u) << (*found)[0].causes[0];

  EXPECT_FALSE(validateManifests("a: [unclosed", "default").isOk());
  common::Result<std::vector<Validation>> none = validateManifests("metadata: {name: x}\n", "d");
  ASSERT_TRUE(none.isOk());
  EXPECT_FALSE((*none)[0].checked);
}

}  // namespace
// Verifies that BenchmarkSystems are checked, and that the runs of the same text are placed on
// the systems they name before they are checked, wherever the system comes in the text.
TEST(Validate, RunsArePlacedOnTheSystemsOfTheText) {
  const std::string manifest = R"(apiVersion: hetbench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: placed, namespace: lab}
spec:
  benchmark: custom
  system: lab-a100
  workload: {image: busybox, accelerator: {count: 1}}
---
apiVersion: hetbench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: conflicting, namespace: lab}
spec:
  benchmark: custom
  system: lab-a100
  workload: {image: busybox, accelerator: {resource: amd.com/gpu, count: 1}}
---
apiVersion: hetbench.io/v1alpha1
kind: BenchmarkSystem
metadata: {name: lab-a100}
spec:
  kubernetes:
    nodeSelector: {hetbench.io/system: lab-a100}
    accelerator: {resource: nvidia.com/gpu, product: NVIDIA-A100-SXM4-40GB}
---
apiVersion: hetbench.io/v1alpha1
kind: BenchmarkSystem
metadata: {name: broken}
spec: {kubernetes: {accelerator: {resource: tpu}}}
)";
  common::Result<std::vector<Validation>> found = validateManifests(manifest, "default");
  ASSERT_TRUE(found.isOk()) << found.status().toString();
  ASSERT_EQ(found->size(), 4u);
  EXPECT_TRUE((*found)[0].valid) << ((*found)[0].causes.empty() ? "" : (*found)[0].causes[0]);
  EXPECT_EQ((*found)[0].summary, "1 trial(s) x 1 repetition(s) on BenchmarkSystem lab-a100");
  EXPECT_FALSE((*found)[1].valid);
  ASSERT_EQ((*found)[1].causes.size(), 1u);
  EXPECT_EQ((*found)[1].causes[0].rfind("spec.workload.accelerator.resource: ", 0), 0u)
      << (*found)[1].causes[0];
  EXPECT_TRUE((*found)[2].valid);
  EXPECT_EQ((*found)[2].name, "lab-a100");
  EXPECT_EQ((*found)[2].summary, "Kubernetes nodes hetbench.io/system=lab-a100");
  EXPECT_TRUE((*found)[3].checked);
  EXPECT_FALSE((*found)[3].valid);
  EXPECT_EQ((*found)[3].causes[0].rfind("spec.kubernetes.accelerator.resource: ", 0), 0u);
}

}  // namespace hetbench::cli
