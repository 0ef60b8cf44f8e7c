// The hetbench-operator binary against kubesim: failed, timed-out, unschedulable, suspended and
// deleted runs, and what becomes of their workloads.
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

// Verifies that a retained pod goes once retainFor has passed, and the unit no longer counts
// as retained.
TEST_F(OperatorTest, RetainedPodIsDeletedAfterRetainFor) {
  startOperator();
  json spec = scriptSpec("exit 3");
  spec["cleanup"] = {{"retainFor", "2s"}};
  createRun("expires", spec);
  waitForPhase("expires", "Failed");
  EXPECT_TRUE(eventually([&] {
    const std::vector<json> pods = workloads(kube::resources::kPods, "expires");
    return pods.size() == 1 && label(pods[0], "hetbench.io/retained") == "true";
  }));
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "expires").empty(); }));
  EXPECT_TRUE(eventually([&] {
    const json now = getRun("expires");
    return !now["status"]["trials"][0].value("retained", false);
  }));
  EXPECT_TRUE(waitForEvent("expires", "RetentionExpired"));
}

// Verifies maxRetained 1 with three units failing together: only the pod of the unit that
// failed last stays retained.
TEST_F(OperatorTest, MaxRetainedKeepsOnlyTheNewest) {
  startOperator();
  json spec = scriptSpec("exit 1");
  spec["repetitions"] = 3;
  spec["parallelism"] = 3;
  spec["cleanup"] = {{"maxRetained", 1}};
  createRun("max", spec);
  waitForPhase("max", "Failed");
  // Units may end in different passes, so retention may first keep another one: wait until
  // the status and the pods agree on a single retained unit.
  json run;
  json retained;
  std::vector<json> pods;
  ASSERT_TRUE(eventually([&] {
    run = getRun("max");
    const json& trials = run["status"]["trials"];
    std::vector<json> kept;
    std::copy_if(trials.begin(), trials.end(), std::back_inserter(kept),
                 [](const json& t) { return t.value("retained", false); });
    pods = workloads(kube::resources::kPods, "max");
    if (kept.size() != 1 || pods.size() != 1) return false;
    retained = kept[0];
    return retained["workload"]["name"] == pods[0]["metadata"]["name"] &&
           label(pods[0], "hetbench.io/retained") == "true";
  })) << run.dump(2);
  const json& trials = run["status"]["trials"];
  ASSERT_EQ(trials.size(), 3u);
  std::string newest;
  for (const json& t : trials) {
    EXPECT_EQ(t["phase"], "Failed");
    newest = std::max(newest, t.value("completionTime", ""));
  }
  EXPECT_EQ(retained["completionTime"], newest) << run.dump(2);
}

// Verifies timeLimit on a Pod: the unit TimedOut soon after the limit and its pod deleted, so
// that its accelerators are free.
TEST_F(OperatorTest, TimeLimitStopsPod) {
  startOperator();
  json spec = scriptSpec("sleep 60");
  spec["timeLimit"] = "2s";
  spec["workload"]["accelerator"] = {{"resource", "nvidia.com/gpu"}, {"count", 1}};
  createRun("slow", spec);
  const json run = waitForPhase("slow", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["phase"], "TimedOut");
  EXPECT_EQ(trial["reason"], "TimeLimitExceeded");
  EXPECT_FALSE(trial.value("retained", false));
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "slow").empty(); }));
  EXPECT_TRUE(waitForEvent("slow", "TrialTimedOut"));
}

// Verifies timeLimit on a Job kept on failure: the Job suspended and retained, with no pod left.
TEST_F(OperatorTest, TimeLimitSuspendsRetainedJob) {
  startOperator();
  json spec = scriptSpec("sleep 60");
  spec["workload"]["kind"] = "Job";
  spec["timeLimit"] = "2s";
  createRun("slowjob", spec);
  const json run = waitForPhase("slowjob", "Failed");
  EXPECT_EQ(run["status"]["trials"][0]["phase"], "TimedOut");
  json job;
  EXPECT_TRUE(eventually([&] {
    const std::vector<json> jobs = workloads(kube::resources::kJobs, "slowjob");
    if (jobs.size() != 1) return false;
    job = jobs[0];
    return job.value("/spec/suspend"_json_pointer, false) &&
           label(job, "hetbench.io/retained") == "true" &&
           job.value("/status/active"_json_pointer, 0) == 0 &&
           workloads(kube::resources::kPods, "slowjob").empty();
  })) << job.dump(2);
  EXPECT_TRUE(eventually(
      [&] { return getRun("slowjob")["status"]["trials"][0].value("retained", false); }));
}

// Verifies suspending a running run: the unit is Cancelled, its pod deleted, the run Cancelled.
TEST_F(OperatorTest, SuspendCancelsRunningRun) {
  startOperator();
  createRun("pause", scriptSpec("sleep 60"));
  ASSERT_TRUE(eventually([&] {
    const json run = getRun("pause");
    const std::vector<json> pods = workloads(kube::resources::kPods, "pause");
    return run.value("/status/phase"_json_pointer, std::string()) == "Running" &&
           pods.size() == 1 && pods[0].value("/status/phase"_json_pointer, "") == "Running";
  }));
  common::Result<json> patched = client_->patch(kRuns, "default", "pause", kube::PatchType::kMerge,
                                                {{"spec", {{"suspend", true}}}});
  ASSERT_TRUE(patched.isOk()) << patched.status().toString();
  const json run = waitForPhase("pause", "Cancelled");
  EXPECT_EQ(run["status"]["trials"][0]["phase"], "Cancelled");
  EXPECT_EQ(run["status"]["trials"][0]["reason"], "Suspended");
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "pause").empty(); }));
  EXPECT_TRUE(waitForEvent("pause", "RunCancelled"));
}

// Verifies the spec is frozen once accepted: an edit other than suspend is ignored with a
// Warning Event, and the run goes on as accepted.
TEST_F(OperatorTest, SpecEditsAfterAcceptanceAreIgnored) {
  startOperator();
  createRun("frozen", scriptSpec("sleep 1"));
  ASSERT_TRUE(eventually([&] {
    return getRun("frozen").value("/status/phase"_json_pointer, std::string()) == "Running";
  }));
  common::Result<json> patched = client_->patch(kRuns, "default", "frozen", kube::PatchType::kMerge,
                                                {{"spec", {{"repetitions", 3}}}});
  ASSERT_TRUE(patched.isOk()) << patched.status().toString();
  EXPECT_TRUE(waitForEvent("frozen", "SpecImmutable"));
  const json run = waitForPhase("frozen", "Succeeded");
  EXPECT_EQ(run["status"]["trialsTotal"], 1);
  EXPECT_EQ(run["status"]["observedGeneration"], run["metadata"]["generation"]);
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

// Verifies a unit that fits on no node: Failed as Unschedulable once startTimeout passed, its
// pod deleted.
TEST_F(OperatorTest, UnschedulableUnitFailsAfterStartTimeout) {
  startOperator();
  json spec = scriptSpec("true");
  spec["workload"]["accelerator"] = {{"resource", "nvidia.com/gpu"}, {"count", 64}};
  spec["startTimeout"] = "2s";
  createRun("toobig", spec);
  const json run = waitForPhase("toobig", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["phase"], "Failed");
  EXPECT_EQ(trial["reason"], "Unschedulable");
  EXPECT_NE(trial.value("message", "").find("startTimeout 2s"), std::string::npos) << trial.dump();
  EXPECT_EQ(condition(run, "Failed")["reason"], "Unschedulable");
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "toobig").empty(); }));
}

}  // namespace
}  // namespace hetbench::controller::testing
