// The hetbench-operator binary against kubesim: what becomes of the workloads of failed,
// timed-out and deleted runs with a real container, Job controller and garbage collector. Every
// other lifecycle path is in reconciler_test.cc, in process on a FakeClock.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "operator_fixture.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string label(const json& object, const std::string& key) {
  return object.value("/metadata/labels"_json_pointer, json::object()).value(key, "");
}

// Verifies a unit whose container exits 3: the unit and the run Failed with the pod's reason,
// and the pod kept, labelled as retained.
TEST_F(OperatorTest, FailedUnitRetainsItsPod) {
  startOperator();
  createRun("fails", scriptSpec("exit 3"));
  const json run = waitForPhase("fails", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["phase"], "Failed");
  EXPECT_EQ(trial["reason"], "Error");
  EXPECT_NE(trial.value("message", "").find("exited with code 3"), std::string::npos)
      << trial.dump();
  EXPECT_EQ(condition(run, "Failed")["status"], "True");
  EXPECT_EQ(condition(run, "Complete")["status"], "False");
  EXPECT_EQ(condition(run, "Accepted")["status"], "True");

  json pod;
  EXPECT_TRUE(eventually([&] {
    const std::vector<json> pods = workloads(kube::resources::kPods, "fails");
    if (pods.size() != 1) return false;
    pod = pods[0];
    return label(pod, "hetbench.io/retained") == "true";
  })) << pod.dump(2);
  EXPECT_EQ(pod["metadata"]["name"], trial["workload"]["name"]);
  EXPECT_EQ(pod["status"]["phase"], "Failed");
  EXPECT_TRUE(eventually([&] {
    const json now = getRun("fails");
    return now["status"]["trials"][0].value("retained", false);
  }));
  EXPECT_TRUE(waitForEvent("fails", "Retained"));
  EXPECT_TRUE(waitForEvent("fails", "TrialFailed"));
  EXPECT_TRUE(waitForEvent("fails", "RunFailed"));
}

// Verifies deleting a running run: its workloads go, then the finalizer, then the run.
TEST_F(OperatorTest, DeletedRunRemovesWorkloadsAndFinalizer) {
  startOperator();
  json spec = scriptSpec("sleep 60");
  spec["workload"]["kind"] = "Job";
  createRun("gone", spec);
  ASSERT_TRUE(eventually([&] {
    const json run = getRun("gone");
    const auto& finalizers = run.value("/metadata/finalizers"_json_pointer, json::array());
    return run.value("/status/phase"_json_pointer, std::string()) == "Running" &&
           std::find(finalizers.begin(), finalizers.end(), "hetbench.io/cleanup") !=
               finalizers.end() &&
           workloads(kube::resources::kPods, "gone").size() == 1;
  }));
  const common::Status removed = client_->remove(kRuns, "default", "gone", {});
  ASSERT_TRUE(removed.isOk()) << removed.toString();
  EXPECT_TRUE(eventually([&] { return getRun("gone").is_null(); }));
  EXPECT_TRUE(eventually([&] {
    return workloads(kube::resources::kJobs, "gone").empty() &&
           workloads(kube::resources::kPods, "gone").empty();
  }));
}

// Verifies the log janitor: a deleted run's logs stay for --log-retention after the operator
// first saw it gone (here 0: the next sweep), then go, counted by reason, while the logs of a
// run that exists stay.
TEST_F(OperatorTest, DeletedRunsLogsGoAfterTheRetention) {
  OperatorProcess& op = startOperator({"--log-retention=0", "--log-sweep-interval=200ms"});
  createRun("kept", scriptSpec("echo kept"));
  createRun("gone", scriptSpec("echo gone"));
  const json kept = waitForPhase("kept", "Succeeded");
  const json gone = waitForPhase("gone", "Succeeded");
  const std::filesystem::path keptDir =
      logDir_ / "default/kept" / kept["metadata"]["uid"].get<std::string>();
  const std::filesystem::path goneDir =
      logDir_ / "default/gone" / gone["metadata"]["uid"].get<std::string>();
  ASSERT_TRUE(std::filesystem::exists(goneDir / "0-0/manifest.json"));

  const common::Status removed = client_->remove(kRuns, "default", "gone", {});
  ASSERT_TRUE(removed.isOk()) << removed.toString();
  EXPECT_TRUE(eventually([&] { return !std::filesystem::exists(logDir_ / "default/gone"); }));
  EXPECT_TRUE(std::filesystem::exists(keptDir / "0-0/manifest.json"));
  std::string scraped;
  EXPECT_TRUE(eventually([&] {
    scraped = op.scrapeMetrics().value_or("");
    return scraped.find("hetbench_log_pruned_runs_total{reason=\"retention\"} 1") !=
               std::string::npos &&
           scraped.find("\nhetbench_log_dir_bytes 0") == std::string::npos &&
           scraped.find("\nhetbench_log_dir_bytes ") != std::string::npos;
  })) << scraped;
}

}  // namespace
}  // namespace hetbench::controller::testing
