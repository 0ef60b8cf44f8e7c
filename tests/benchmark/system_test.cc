#include "hetbench/benchmark/system.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

SystemSpec a100() {
  auto parsed = parseSystemSpec(json::parse(R"({
    "description": "A100 nodes",
    "kubernetes": {
      "nodeSelector": {"hetbench.io/system": "lab-a100"},
      "tolerations": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
      "accelerator": {"resource": "nvidia.com/gpu", "product": "NVIDIA-A100-SXM4-40GB"}}})"));
  EXPECT_TRUE(parsed.isOk()) << parsed.status().toString();
  return parsed.isOk() ? *parsed : SystemSpec{};
}

std::vector<std::string> fieldsOf(const common::Status& status) {
  std::vector<std::string> out;
  for (const common::StatusCause& cause : status.causes()) out.push_back(cause.field);
  return out;
}

TEST(SystemTest, ParsesTheKubernetesPlacement) {
  const SystemSpec s = a100();
  EXPECT_EQ(s.description, "A100 nodes");
  EXPECT_EQ(s.kubernetes->nodeSelector, (json{{"hetbench.io/system", "lab-a100"}}));
  EXPECT_EQ(s.kubernetes->tolerations.size(), 1U);
  EXPECT_EQ(s.kubernetes->acceleratorResource, "nvidia.com/gpu");
  EXPECT_EQ(s.kubernetes->acceleratorProduct, "NVIDIA-A100-SXM4-40GB");
}

TEST(SystemTest, RefusesWhatIsNotAPlacement) {
  struct Case {
    const char* spec;
    std::vector<std::string> fields;
  };
  const std::vector<Case> cases = {
      {R"({})", {"spec.kubernetes"}},
      {R"([])", {"spec"}},
      {R"({"kubernetes": []})", {"spec.kubernetes"}},
      {R"({"kubernetes": {"nodeSelector": {"a": 1}}})", {"spec.kubernetes.nodeSelector[a]"}},
      {R"({"kubernetes": {"tolerations": [1]}})", {"spec.kubernetes.tolerations[0]"}},
      {R"({"kubernetes": {"accelerator": {"resource": "tpu"}}})",
       {"spec.kubernetes.accelerator.resource"}},
      {R"({"kubernetes": {"accelerator": {"resource": "graphcore.ai/ipu", "product": "GC200"}}})",
       {"spec.kubernetes.accelerator.product"}},
      {R"({"kubernetes": {"accelerator": {"product": ""}}})",
       {"spec.kubernetes.accelerator.product"}},
      {R"({"description": 3, "kubernetes": {}})", {"spec.description"}},
  };
  for (const Case& c : cases) {
    auto parsed = parseSystemSpec(json::parse(c.spec));
    ASSERT_FALSE(parsed.isOk()) << c.spec;
    EXPECT_TRUE(parsed.status().isInvalid());
    EXPECT_EQ(fieldsOf(parsed.status()), c.fields) << c.spec;
  }
  auto longText = parseSystemSpec(
      json{{"description", std::string(1025, 'x')}, {"kubernetes", json::object()}});
  ASSERT_FALSE(longText.isOk());
  EXPECT_EQ(fieldsOf(longText.status()), std::vector<std::string>{"spec.description"});
}

TEST(SystemTest, AWorkloadGainsTheSystemsPlacement) {
  const json spec = {
      {"system", "lab-a100"},
      {"workload",
       {{"image", "busybox"}, {"nodeSelector", {{"zone", "a"}}}, {"accelerator", {{"count", 2}}}}}};
  auto placed = placeOnSystem(spec, "lab-a100", a100());
  ASSERT_TRUE(placed.isOk()) << placed.status().toString();
  const json& w = (*placed)["workload"];
  EXPECT_EQ(w["nodeSelector"], (json{{"zone", "a"}, {"hetbench.io/system", "lab-a100"}}));
  EXPECT_EQ(w["tolerations"], a100().kubernetes->tolerations);
  EXPECT_EQ(
      w["accelerator"],
      (json{{"count", 2}, {"resource", "nvidia.com/gpu"}, {"product", "NVIDIA-A100-SXM4-40GB"}}));
  auto again = placeOnSystem(*placed, "lab-a100", a100());
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(*again, *placed) << "placing twice changes nothing";
}

TEST(SystemTest, ValuesTheRunSetsMustBeTheSystems) {
  const json spec = {
      {"workload",
       {{"image", "busybox"},
        {"nodeSelector", {{"hetbench.io/system", "lab-h100"}}},
        {"accelerator", {{"resource", "amd.com/gpu"}, {"product", "NVIDIA-A100-SXM4-40GB"}}}}}};
  auto placed = placeOnSystem(spec, "lab-a100", a100());
  ASSERT_FALSE(placed.isOk());
  EXPECT_EQ(fieldsOf(placed.status()),
            (std::vector<std::string>{"spec.workload.nodeSelector[hetbench.io/system]",
                                      "spec.workload.accelerator.resource"}));
  EXPECT_EQ(placed.status().causes()[0].message,
            "Invalid value: \"lab-h100\": must be \"lab-a100\" on BenchmarkSystem lab-a100, or "
            "unset");
  const json same = {{"workload",
                      {{"image", "busybox"},
                       {"tolerations", a100().kubernetes->tolerations},
                       {"accelerator", {{"resource", "nvidia.com/gpu"}}}}}};
  const json defaulted = {
      {"workload", {{"image", "busybox"}, {"accelerator", {{"resource", "none"}}}}}};
  auto none = placeOnSystem(defaulted, "lab-a100", a100());
  ASSERT_TRUE(none.isOk()) << "none is the CRD's default, not the run's choice";
  EXPECT_EQ((*none)["workload"]["accelerator"]["resource"], "nvidia.com/gpu");
  auto ok = placeOnSystem(same, "lab-a100", a100());
  ASSERT_TRUE(ok.isOk());
  EXPECT_EQ((*ok)["workload"]["tolerations"].size(), 1U) << "a toleration is added once";
}

TEST(SystemTest, ATemplatesPodSpecGainsLabelsAndTolerations) {
  const json pod = {
      {"template",
       {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", {{"containers", json::array()}}}}}};
  auto placedPod = placeOnSystem(pod, "lab-a100", a100());
  ASSERT_TRUE(placedPod.isOk());
  EXPECT_EQ((*placedPod)["template"]["spec"]["nodeSelector"],
            (json{{"hetbench.io/system", "lab-a100"}}));
  EXPECT_FALSE((*placedPod)["template"]["spec"].contains("accelerator"));

  const json job = {{"template",
                     {{"apiVersion", "batch/v1"},
                      {"kind", "Job"},
                      {"spec", {{"template", {{"spec", {{"nodeSelector", {{"x", "y"}}}}}}}}}}}};
  auto placedJob = placeOnSystem(job, "lab-a100", a100());
  ASSERT_TRUE(placedJob.isOk());
  EXPECT_EQ((*placedJob)["template"]["spec"]["template"]["spec"]["nodeSelector"],
            (json{{"x", "y"}, {"hetbench.io/system", "lab-a100"}}));
  EXPECT_EQ((*placedJob)["template"]["spec"]["template"]["spec"]["tolerations"].size(), 1U);

  const json ipu = {
      {"template",
       {{"kind", "IPUJob"},
        {"spec",
         {{"workers",
           {{"template", {{"spec", {{"nodeSelector", {{"hetbench.io/system", "x"}}}}}}}}}}}}}};
  auto placedIpu = placeOnSystem(ipu, "lab-a100", a100());
  ASSERT_FALSE(placedIpu.isOk());
  EXPECT_EQ(fieldsOf(placedIpu.status()),
            std::vector<std::string>{
                "spec.template.spec.workers.template.spec.nodeSelector[hetbench.io/system]"});

  const json noPods = {{"template", {{"kind", "Job"}}}};
  auto untouched = placeOnSystem(noPods, "lab-a100", a100());
  ASSERT_TRUE(untouched.isOk());
  EXPECT_EQ(*untouched, noPods) << "nothing is added where the template has no pod spec";
}

TEST(SystemTest, TheRecordOfASystemReadsBack) {
  const AcceptedSystem system{"lab-a100", "u-1", 3, json{{"kubernetes", json::object()}}};
  const std::optional<AcceptedSystem> back = acceptedSystemFromText(toJson(system).dump());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->name, "lab-a100");
  EXPECT_EQ(back->uid, "u-1");
  EXPECT_EQ(back->generation, 3);
  EXPECT_EQ(back->spec, system.spec);
  EXPECT_FALSE(acceptedSystemFromText("not json").has_value());
  EXPECT_FALSE(acceptedSystemFromText("{}").has_value());
}

}  // namespace
}  // namespace hetbench::benchmark
