// The hetbench-operator binary against kubesim: metrics read from the kept logs, judged against
// references, and what a bad or missing metric does to a unit.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "hetbench/controller/series_reconciler.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;

/// A script printing hetbench JSON lines: a run_start and `epochs` epochs of `samples` samples
/// in `wall` seconds, 1 s of it I/O, each epoch with the members `epochExtra` (",\"gpus\":[...]").
std::string trainingScript(int epochs, int samples, double wall,
                           const std::string& epochExtra = "") {
  std::string script =
      "echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
      "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":32,"
      "\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\",\"count\":1}}';";
  for (int e = 0; e < epochs; ++e) {
    script += "echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":" + std::to_string(e) +
              ",\"rank\":0,\"samples\":" + std::to_string(samples) +
              ",\"wall_seconds\":" + std::to_string(wall) +
              ",\"io_seconds\":1,\"compute_seconds\":" + std::to_string(wall - 1) + epochExtra +
              "}';";
  }
  return script + "echo ':::HETBENCH {\"v\":1,\"event\":\"run_end\",\"rank\":0,\"status\":\"ok\"}'";
}

json referenced(json spec, double value) {
  spec["benchmark"] = "resnet50";
  spec["references"] = {{"effective_throughput", {{"value", value}, {"lower", 0.05}}}};
  return spec;
}

// Verifies a unit's metrics come from its log (warm-up epoch left out), the trial is judged
// Pass against its reference, and the run's status and printer column carry the throughput.
TEST_F(OperatorTest, MetricsFromTheLogPassTheirReference) {
  startOperator();
  createRun("pass", referenced(scriptSpec(trainingScript(3, 1000, 10)), 100));
  const json run = waitForPhase("pass", "Succeeded");
  const json& unit = run["status"]["trials"][0];
  EXPECT_DOUBLE_EQ(unit["metrics"]["values"]["effective_throughput"].get<double>(), 100.0)
      << run.dump(2);
  EXPECT_EQ(unit["metrics"]["epochs"], 2);
  EXPECT_EQ(unit["verdict"], "Pass");
  EXPECT_EQ(run["status"]["verdict"], "Pass");
  EXPECT_DOUBLE_EQ(run["status"]["latestEffectiveThroughput"].get<double>(), 100.0);
  ASSERT_EQ(run["status"]["results"].size(), 1u);
  EXPECT_EQ(run["status"]["results"][0]["metrics"]["effective_throughput"]["n"], 1);
  EXPECT_EQ(condition(run, "Regressed")["status"], "False");
  std::ifstream log(logDir_ / unit["logDir"].get<std::string>() /
                    unit["workload"]["name"].get<std::string>() / "benchmark.log");
  EXPECT_TRUE(log) << "the pod's log was not kept";

  // The report CLI reads the same run from the cluster.
  const std::string command = std::string(HETBENCH_CLI_BINARY) + " report --kubeconfig " +
                              kubeconfig_ + " --format csv pass";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string report;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) report += buffer;
  EXPECT_EQ(::pclose(pipe), 0) << report;
  EXPECT_NE(report.find("default/pass,resnet50,cpu,0,-,cpu,1,"), std::string::npos) << report;
  EXPECT_NE(report.find(",100.0,-,Pass"), std::string::npos) << report;
}

// Verifies a throughput below its band: verdict Regressed, the Regressed condition with the
// numbers, and a Warning Event; the unit itself still succeeded.
TEST_F(OperatorTest, ThroughputBelowTheBandIsRegressed) {
  startOperator();
  createRun("slow", referenced(scriptSpec(trainingScript(2, 800, 10)), 100));
  const json run = waitForPhase("slow", "Succeeded");
  EXPECT_EQ(run["status"]["verdict"], "Regressed") << run.dump(2);
  const json regressed = condition(run, "Regressed");
  EXPECT_EQ(regressed["status"], "True");
  EXPECT_NE(regressed["message"].get<std::string>().find("80"), std::string::npos)
      << regressed.dump();
  EXPECT_TRUE(waitForEvent("slow", "Regressed"));
}

// Verifies the history of a configuration: every judged trial becomes a point of the
// BenchmarkSeries of its configuration, which outlives the run (deleted here, as a schedule's
// history limit deletes it), and a later run of the same configuration continues it.
TEST_F(OperatorTest, JudgedTrialsOutliveTheirRunsInTheSeriesOfTheirConfiguration) {
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkseries.yaml", kBenchmarkSeries));
  startOperator();
  auto points = [this] {
    common::Result<kube::ListResult> listed = client_->list(kBenchmarkSeries, "default", {});
    if (!listed.isOk() || listed.value().items.size() != 1) return json::array();
    const json status = listed.value().items[0].value("status", json::object());
    return status.is_object() ? status.value("points", json::array()) : json::array();
  };
  createRun("first", referenced(scriptSpec(trainingScript(3, 1000, 10)), 100));
  waitForPhase("first", "Succeeded");
  ASSERT_TRUE(eventually([&] { return points().size() == 1; })) << points().dump(2);
  ASSERT_TRUE(client_->remove(kRuns, "default", "first", {}).isOk());
  ASSERT_TRUE(eventually([&] { return getRun("first").is_null(); }));

  createRun("second", referenced(scriptSpec(trainingScript(3, 900, 10)), 100));
  waitForPhase("second", "Succeeded");
  ASSERT_TRUE(eventually([&] { return points().size() == 2; })) << points().dump(2);
  const json series = client_->list(kBenchmarkSeries, "default", {}).value().items[0];
  EXPECT_EQ(series["spec"]["metric"], "effective_throughput");
  EXPECT_EQ(series["spec"]["configuration"]["benchmark"], "resnet50");
  EXPECT_EQ(series["status"]["points"][0]["run"], "first");
  EXPECT_DOUBLE_EQ(series["status"]["points"][0]["value"].get<double>(), 100.0);
  EXPECT_EQ(series["status"]["points"][1]["run"], "second");
  EXPECT_DOUBLE_EQ(series["status"]["points"][1]["value"].get<double>(), 90.0);
  EXPECT_EQ(series["status"]["state"], "InsufficientHistory");
  EXPECT_DOUBLE_EQ(series["status"]["latest"].get<double>(), 90.0);
}

// Verifies that a trial whose GPU was held down by heat while it was measured is Invalid, not
// Regressed, however slow it was: no Regressed condition, the reason in its result, and a
// Warning Event.
TEST_F(OperatorTest, ThrottledTrialIsInvalidNotRegressed) {
  startOperator();
  const std::string hot =
      ",\"gpus\":[{\"device\":\"GPU 0 (NVIDIA H100 80GB HBM3)\",\"samples\":100,"
      "\"throttled\":{\"power_cap\":0.0,\"thermal\":0.4,\"hardware\":0.0}}]";
  createRun("hot", referenced(scriptSpec(trainingScript(2, 800, 10, hot)), 100));
  const json run = waitForPhase("hot", "Succeeded");
  EXPECT_EQ(run["status"]["verdict"], "Invalid") << run.dump(2);
  EXPECT_EQ(run["status"]["results"][0]["invalid"],
            "repetition 0: rank 0, GPU 0 (NVIDIA H100 80GB HBM3): thermal slowdown for 40.0% of "
            "the measured time (at most 5.0%)");
  EXPECT_EQ(condition(run, "Regressed")["status"], "False");
  EXPECT_TRUE(waitForEvent("hot", "TrialInvalid"));
}

// Verifies a required metric that the log lacks fails the unit (MetricMissing) and keeps its
// pod, and a malformed metrics line fails it too (InvalidMetrics).
TEST_F(OperatorTest, MissingOrMalformedMetricsFailTheUnit) {
  startOperator();
  json missing = scriptSpec("echo no metrics here");
  missing["metrics"] =
      json::array({{{"name", "speed"}, {"pattern", "Processing Speed: ([0-9.]+)"}}});
  createRun("missing", missing);
  json run = waitForPhase("missing", "Failed");
  EXPECT_EQ(run["status"]["trials"][0]["reason"], "MetricMissing") << run.dump(2);
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "missing").size() == 1; }));

  createRun("malformed", scriptSpec("echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\"}'"));
  run = waitForPhase("malformed", "Failed");
  EXPECT_EQ(run["status"]["trials"][0]["reason"], "InvalidMetrics") << run.dump(2);
}

// Verifies a pattern that RE2 cannot compile is refused before anything starts.
TEST_F(OperatorTest, BadPatternIsNotAccepted) {
  startOperator();
  json spec = scriptSpec("echo hi");
  spec["metrics"] = json::array({{{"name", "speed"}, {"pattern", "Speed: ([0-9.]+"}}});
  createRun("badpattern", spec);
  const json run = waitForPhase("badpattern", "Failed");
  const json accepted = condition(run, "Accepted");
  EXPECT_EQ(accepted["status"], "False");
  EXPECT_NE(accepted["message"].get<std::string>().find("spec.metrics[0].pattern"),
            std::string::npos)
      << accepted.dump();
  EXPECT_TRUE(workloads(kube::resources::kPods, "badpattern").empty());
}

}  // namespace
}  // namespace hetbench::controller::testing
