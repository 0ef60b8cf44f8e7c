#include "hetbench/metrics/workload_pod_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/render.h"

namespace hetbench::metrics {
namespace {

using nlohmann::json;

json spec() {
  return {{"benchmark", "resnet50"},
          {"system", "dgx-h100"},
          {"matrix", {{"batch", json::array({"256", "512"})}}},
          {"repetitions", 2},
          {"workload",
           {{"kind", "Job"},
            {"image", "hetbench/train:cuda"},
            {"nodes", 2},
            {"accelerator",
             {{"resource", "nvidia.com/gpu"}, {"count", 8}, {"product", "NVIDIA-H100-80GB-HBM3"}}},
            {"training", {{"batchSize", "$(params.batch)"}, {"precision", "bf16"}}}}}};
}

/// A run of two trials (batch 256 and 512); accepted unless `accepted` is false.
json run(const std::string& uid = "uid-1", bool accepted = true) {
  json r = {{"metadata", {{"name", "nightly"}, {"namespace", "lab"}, {"uid", uid}}},
            {"spec", spec()},
            {"status", {{"phase", "Running"}}}};
  if (accepted) {
    r["metadata"]["annotations"] = {
        {std::string(benchmark::kAcceptedSpecAnnotation), spec().dump()}};
  }
  return r;
}

/// A pod of the run with uid `uid`, labelled as the renderer labels them.
json pod(const std::string& name, const std::string& trial, const std::string& repetition,
         const std::string& uid = "uid-1") {
  return {{"metadata",
           {{"name", name},
            {"namespace", "lab"},
            {"labels",
             {{std::string(benchmark::kRunLabel), "nightly"},
              {std::string(benchmark::kIdLabel), benchmark::runId(uid)},
              {std::string(benchmark::kTrialLabel), trial},
              {std::string(benchmark::kRepetitionLabel), repetition}}}}},
          {"status", {{"phase", "Running"}}}};
}

/// Each series of hetbench_workload_pod_info as `name=value ...` in its label order, then its
/// value; sorted.
std::vector<std::string> series(const WorkloadPodMetrics& metrics) {
  std::vector<std::string> out;
  for (const prometheus::MetricFamily& f : metrics.Collect()) {
    EXPECT_EQ(f.name, "hetbench_workload_pod_info");
    EXPECT_EQ(f.type, prometheus::MetricType::Gauge);
    for (const prometheus::ClientMetric& m : f.metric) {
      std::string line;
      for (const auto& l : m.label) line += l.name + "=" + l.value + " ";
      out.push_back(line + std::to_string(m.gauge.value));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Verifies that a pod's labels give its run, run id, trial and repetition, and that a pod
// without them, or with a trial or repetition that is not a non-negative integer, gives none.
TEST(WorkloadPodTest, ReadsTheRenderersLabels) {
  const std::optional<WorkloadPod> read = workloadPod(pod("nightly-t1-r0-abcde-0-x7k2p", "1", "0"));
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, (WorkloadPod{"lab", "nightly-t1-r0-abcde-0-x7k2p", "nightly",
                                benchmark::runId("uid-1"), 1, 0}));

  const std::pair<std::string_view, std::string> broken[] = {
      {benchmark::kTrialLabel, "-1"},
      {benchmark::kTrialLabel, "1x"},
      {benchmark::kTrialLabel, ""},
      {benchmark::kRepetitionLabel, "one"},
      {benchmark::kRunLabel, ""},
      {benchmark::kIdLabel, ""},
      {benchmark::kTrialLabel, "99999999999999999999"}};
  for (const auto& [label, value] : broken) {
    json p = pod("p", "1", "0");
    p["metadata"]["labels"][std::string(label)] = value;
    EXPECT_FALSE(workloadPod(p)) << label << "=" << value;
  }
  json unlabelled = pod("p", "1", "0");
  unlabelled["metadata"].erase("labels");
  EXPECT_FALSE(workloadPod(unlabelled));
  EXPECT_FALSE(workloadPod(json::array()));
}

// Verifies that each pod of an accepted run shows once, labelled with its namespace, name, run,
// trial, repetition and the configuration of its own trial (not of another trial of the run).
TEST(WorkloadPodMetricsTest, EachPodWithItsTrialsConfiguration) {
  WorkloadPodMetrics metrics;
  metrics.observeRun(run());
  metrics.observePod(pod("nightly-t0-r1-abcde-0-aaaaa", "0", "1"));
  metrics.observePod(pod("nightly-t1-r0-abcde-1-bbbbb", "1", "0"));
  const std::string config =
      "namespace=lab benchmark=resnet50 system=dgx-h100 accelerator=NVIDIA-H100-80GB-HBM3 "
      "accelerators=16 nodes=2 ";
  EXPECT_EQ(
      series(metrics),
      (std::vector<std::string>{
          config +
              "batch_size=256 precision=bf16 target=kubernetes pod=nightly-t0-r1-abcde-0-aaaaa "
              "run=nightly trial=0 repetition=1 1.000000",
          config +
              "batch_size=512 precision=bf16 target=kubernetes pod=nightly-t1-r0-abcde-1-bbbbb "
              "run=nightly trial=1 repetition=0 1.000000"}));
}

// Verifies that a pod shows only once its run is known and accepted, in whichever order the
// informers deliver them, and that a trial the run does not plan shows nothing.
TEST(WorkloadPodMetricsTest, NeedsTheAcceptedRunOfItsPod) {
  WorkloadPodMetrics metrics;
  metrics.observePod(pod("p0", "0", "0"));
  metrics.observePod(pod("p9", "9", "0"));  // no trial 9
  EXPECT_TRUE(series(metrics).empty());
  metrics.observeRun(run("uid-1", false));
  EXPECT_TRUE(series(metrics).empty());
  metrics.observeRun(run("uid-1", true));
  const std::vector<std::string> shown = series(metrics);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_NE(shown[0].find("pod=p0 run=nightly trial=0 repetition=0 "), std::string::npos);
}

// Verifies that a run deleted and created again under the same name claims only its own pods:
// a pod whose id label is the old run's shows nothing, and the old run's deletion, delivered
// after the new run's addition, leaves the new run alone.
TEST(WorkloadPodMetricsTest, APodOfAnEarlierRunOfTheSameNameIsNotClaimed) {
  WorkloadPodMetrics metrics;
  metrics.observeRun(run("uid-2"));
  metrics.observePod(pod("old", "0", "0", "uid-1"));
  EXPECT_TRUE(series(metrics).empty());
  metrics.observePod(pod("new", "0", "0", "uid-2"));
  metrics.forgetRun(run("uid-1"));
  const std::vector<std::string> shown = series(metrics);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_NE(shown[0].find("pod=new "), std::string::npos);
}

// Verifies that a deleted pod's series goes, as does a pod whose labels were edited away, and
// that a deleted run's pods go with it.
TEST(WorkloadPodMetricsTest, DeletedPodsAndRunsGo) {
  WorkloadPodMetrics metrics;
  metrics.observeRun(run());
  metrics.observePod(pod("a", "0", "0"));
  metrics.observePod(pod("b", "0", "1"));
  metrics.observePod(pod("c", "1", "0"));
  metrics.forgetPod(pod("a", "0", "0"));
  json unlabelled = pod("b", "0", "1");
  unlabelled["metadata"]["labels"].erase(std::string(benchmark::kTrialLabel));
  metrics.observePod(unlabelled);
  const std::vector<std::string> shown = series(metrics);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_NE(shown[0].find("pod=c "), std::string::npos);
  metrics.forgetRun(run());
  EXPECT_TRUE(series(metrics).empty());
}

// Verifies that only the leader shows the series, as for the benchmark series.
TEST(WorkloadPodMetricsTest, OnlyTheLeaderExports) {
  bool leading = false;
  WorkloadPodMetrics metrics([&leading] { return leading; });
  metrics.observeRun(run());
  metrics.observePod(pod("a", "0", "0"));
  EXPECT_TRUE(metrics.Collect().empty());
  leading = true;
  EXPECT_EQ(series(metrics).size(), 1u);
}

}  // namespace
}  // namespace hetbench::metrics
