// The hetbench-operator binary against kubesim: metrics read from the kept logs, judged against
// references, and what a bad or missing metric does to a unit.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hetbench/controller/series_reconciler.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;

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
// history limit deletes it), and a later run of the same configuration continues it; a change
// of the series' spec (an accepted change) is judged at once.
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

  // A user accepts everything so far: the operator judges the series again at once, with no
  // trial left to judge (both kept).
  json accepted = series;
  accepted["spec"]["acceptedAfter"] = series["status"]["points"][1]["time"];
  ASSERT_TRUE(client_->update(kBenchmarkSeries, "default", accepted).isOk());
  json after;
  EXPECT_TRUE(eventually([&] {
    after = client_->list(kBenchmarkSeries, "default", {}).value().items[0]["status"];
    return !after.contains("latest");
  })) << after.dump(2);
  EXPECT_FALSE(after.contains("state"));
  EXPECT_EQ(after["points"].size(), 2u);
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

/// A run of the confirmation tests: 1000 + `wobble` samples per 10 s epoch, 10% fewer on a slow
/// node. The pod that finds `flags`/slow-next makes its node slow; slow-all makes every node slow;
/// with `flags`/noisy each pod adds noise of its own (a sum of four uniform draws from
/// /dev/urandom, near normal, 1% of the level), as reruns of a real workload would.
json nodeRun(const std::filesystem::path& flags, int wobble) {
  const std::string f = flags.string();
  const std::string script = "S=$((1000 + " + std::to_string(wobble) + ")); if [ -e " + f +
                             "/slow-next ]; then mv " + f + "/slow-next " + f +
                             "/slow-$NODE; fi; if [ -e " + f + "/slow-$NODE ] || [ -e " + f +
                             "/slow-all ]; then S=$((S * 9 / 10)); fi; if [ -e " + f +
                             "/noisy ]; then set -- $(od -An -N8 -tu2 /dev/urandom); "
                             "S=$((S + ($1 + $2 + $3 + $4 - 131070) * 10 / 37837)); fi; " +
                             trainingScript(3, "'$S'", 10);
  json spec = referenced(scriptSpec(script), 100);
  spec["workload"]["nodeSelector"] = {{"hetbench.io/system", "lab-cpu"}};
  spec["workload"]["env"] = {
      {{"name", "NODE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}};
  spec["confirm"] = json::object();
  return spec;
}

class ConfirmationTest : public OperatorTest {
 protected:
  void SetUp() override {
    OperatorTest::SetUp();
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkseries.yaml", kBenchmarkSeries));
    flags_ = dir_.path() / "flags";
    std::filesystem::create_directories(flags_);
    startOperator();
  }

  /// Runs run-FIRST to run-LAST one after another, each to Succeeded.
  void runs(int first, int last) {
    constexpr int kWobble[] = {0, 4, -3, 1, -1, 3, -4, 2, -2, 0};
    for (int i = first; i <= last; ++i) {
      const std::string name = "run-" + std::to_string(i);
      createRun(name, nodeRun(flags_, kWobble[i % 10]));
      waitForPhase(name, "Succeeded");
    }
  }

  void flag(const std::string& name) { std::ofstream(flags_ / name) << "1"; }

  json series() {
    common::Result<kube::ListResult> listed = client_->list(kBenchmarkSeries, "default", {});
    if (!listed.isOk() || listed.value().items.size() != 1) return nullptr;
    return listed.value().items[0];
  }

  /// Waits for the series' confirmation to end; its status.
  json confirmed() {
    json status;
    eventually(
        [&] {
          const json s = series();
          status = s.is_null() ? json() : s.value("status", json::object());
          const std::string state = status.value("/confirmation/state"_json_pointer, "");
          return !state.empty() && state != "Confirming";
        },
        std::chrono::seconds(60));
    return status;
  }

  std::filesystem::path flags_;
};

// Verifies, end to end on kubesim's two CPU nodes, that a trial slow only on its node is rerun
// there and on the other node, and the series names the node (NodeSuspect, with an Event on the
// run), not a regression.
TEST_F(ConfirmationTest, ATrialSlowOnlyOnItsNodeIsNodeSuspect) {
  runs(0, 9);
  flag("slow-next");
  runs(10, 10);
  const json run = getRun("run-10");
  const std::string node = run["status"]["trials"][0]["nodes"][0];
  const json status = confirmed();
  EXPECT_EQ(status["state"], "NodeSuspect") << status.dump(2);
  EXPECT_EQ(status["confirmation"]["run"], "run-10");
  EXPECT_EQ(status["confirmation"]["nodes"], json::array({node}));
  EXPECT_EQ(status["confirmation"]["other"], "Same");
  for (const json& rerun : status["confirmation"]["reruns"]) {
    const json r = getRun(rerun["name"]);
    const std::string ranOn = r["status"]["trials"][0]["nodes"][0];
    EXPECT_EQ(ranOn == node, rerun["placement"] == "same") << r.dump(2);
  }
  EXPECT_NE(status["message"].get<std::string>().find("slow on " + node + " only"),
            std::string::npos)
      << status.dump(2);
  EXPECT_TRUE(waitForEvent("run-10", "NodeSuspect"));
  EXPECT_EQ(status["points"].size(), 11u);  // reruns are not points of the history
}

// Verifies, end to end, that a 10% slowdown of every node is a confirmed regression at the
// first slow run, stands without new reruns while later runs stay slow, and becomes the change
// point at that run once seven slow runs give the new level.
TEST_F(ConfirmationTest, ASlowdownEverywhereIsAConfirmedRegressionAndAChangePointAtItsRun) {
  runs(0, 9);
  flag("slow-all");
  runs(10, 10);
  const json status = confirmed();
  EXPECT_EQ(status["state"], "Regressed") << status.dump(2);
  EXPECT_EQ(status["confirmation"]["run"], "run-10");
  EXPECT_EQ(status["confirmation"]["same"], "Different");
  EXPECT_EQ(status["confirmation"]["other"], "Different");
  EXPECT_TRUE(waitForEvent("run-10", "Regressed"));
  const std::size_t reruns = status["confirmation"]["reruns"].size();

  runs(11, 16);
  json later;
  EXPECT_TRUE(eventually([&] {
    const json s = series();
    later = s.is_null() ? json() : s.value("status", json::object());
    return later.value("pointCount", 0) == 17;
  }));
  EXPECT_EQ(later["confirmation"]["number"], 1);
  EXPECT_EQ(later["confirmation"]["reruns"].size(), reruns);
  ASSERT_EQ(later["changes"].size(), 1u) << later.dump(2);
  EXPECT_EQ(later["changes"][0]["run"], "run-10");
  EXPECT_NEAR(later["changes"][0]["magnitude"].get<double>(), -0.1, 0.002);
  EXPECT_EQ(later["state"], "WithinNoise");  // the new level is the baseline now
}

// Verifies, end to end, that noise alone raises no alarm: 30 runs of a workload whose every pod,
// reruns included, draws 1% noise of its own end with no Regressed or NodeSuspect verdict, no
// confirmation left running and no change point for the worse.
TEST_F(ConfirmationTest, ANoisyButUnchangedWorkloadRaisesNoAlarmOverThirtyRuns) {
  flag("noisy");
  runs(0, 29);
  json status;
  EXPECT_TRUE(eventually([&] {
    const json s = series();
    status = s.is_null() ? json() : s.value("status", json::object());
    return status.value("pointCount", 0) == 30 &&
           status.value("/confirmation/state"_json_pointer, "") != "Confirming";
  })) << status.dump(2);
  // No alarm: no change point for the worse, no Regressed or NodeSuspect verdict. A trial that
  // noise made suspect may end NotConfirmed or, undecided after its reruns, Inconclusive.
  for (const json& change : status["changes"]) {
    EXPECT_GT(change["magnitude"].get<double>(), 0) << status.dump(2);
  }
  for (const std::string alarm : {"Regressed", "NodeSuspect"}) {
    EXPECT_NE(status.value("state", ""), alarm) << status.dump(2);
    EXPECT_NE(status.value("/confirmation/state"_json_pointer, ""), alarm) << status.dump(2);
  }
}

}  // namespace
}  // namespace hetbench::controller::testing
