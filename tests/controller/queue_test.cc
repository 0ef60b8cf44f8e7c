// The hetbench-operator binary against kubesim with the test playing Kueue's part, as Kueue's own
// integration tests do: admitting a queued Job (resuming it with a flavor's node selector),
// admitting a queued Pod (removing its scheduling gate), preempting, or never admitting.
#include <gtest/gtest.h>

#include <algorithm>

#include "hetbench/common/time.h"
#include "operator_fixture.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;

const char kQueueLabel[] = "kueue.x-k8s.io/queue-name";
const char kGate[] = "kueue.x-k8s.io/admission";
const char kFinalizer[] = "kueue.x-k8s.io/managed";
// The node labels of the flavor the test admits workloads to: kubesim's A100 nodes.
const json kFlavor = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"}};

std::string nameOf(const json& object) { return object["metadata"].value("name", ""); }

std::vector<std::string> trialPhases(const json& run) {
  std::vector<std::string> phases;
  for (const json& trial : run.value("/status/trials"_json_pointer, json::array()))
    phases.push_back(trial.value("phase", ""));
  return phases;
}

bool allAre(const std::vector<std::string>& phases, std::size_t n, const std::string& phase) {
  return phases.size() == n && std::all_of(phases.begin(), phases.end(),
                                           [&](const std::string& p) { return p == phase; });
}

class QueueTest : public OperatorTest {
 protected:
  /// A one-GPU Job workload submitted to the queue `gpu`.
  json queuedJobSpec(const std::string& script) {
    json spec = scriptSpec(script);
    spec["workload"]["kind"] = "Job";
    spec["workload"]["accelerator"] = {{"resource", "nvidia.com/gpu"}, {"count", 1}};
    spec["queueName"] = "gpu";
    return spec;
  }

  /// Patches a Job as Kueue would.
  ::testing::AssertionResult patchJob(const std::string& name, const json& patch) {
    const common::Result<json> patched = client_->patch(kube::resources::kJobs, "default", name,
                                                        kube::PatchType::kMerge, patch, false);
    if (patched.isOk()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << name << ": " << patched.status().toString();
  }

  /// What Kueue does when it admits a Job: resume it with the flavor's node selector.
  ::testing::AssertionResult admitJob(const std::string& name) {
    return patchJob(
        name,
        {{"spec", {{"suspend", false}, {"template", {{"spec", {{"nodeSelector", kFlavor}}}}}}}});
  }

  /// What Kueue does first when it preempts an admitted Job: suspend it (the Job controller
  /// deletes its pods). Kueue then clears its start time and gives its pod template back the
  /// node selector it had; the operator does not wait for that.
  ::testing::AssertionResult preemptJob(const std::string& name) {
    return patchJob(name, {{"spec", {{"suspend", true}}}});
  }

  std::vector<json> jobs(const std::string& run) { return workloads(kube::resources::kJobs, run); }
};

// Verifies the queue deciding when a run's units start: four Jobs created suspended with the
// queue label while no pod runs; the two the test admits run on the flavor's nodes while the
// other two stay Queued; once all are admitted, every unit is judged as usual, each starting at
// its admission.
TEST_F(QueueTest, JobsWaitSuspendedUntilAdmittedThenRunAndAreJudged) {
  startOperator();
  json spec = referenced(queuedJobSpec(trainingScript(3, 1000, 10)), 100);
  spec["matrix"] = {{"batch", {32, 64}}};
  spec["repetitions"] = 2;
  spec["parallelism"] = 4;
  createRun("queued", spec);

  ASSERT_TRUE(eventually([&] { return allAre(trialPhases(getRun("queued")), 4, "Queued"); }))
      << getRun("queued").dump(2);
  std::vector<json> created = jobs("queued");
  ASSERT_EQ(created.size(), 4u);
  for (const json& job : created) {
    EXPECT_EQ(job["metadata"]["labels"].value(kQueueLabel, ""), "gpu") << nameOf(job);
    EXPECT_EQ(job["spec"]["suspend"], true) << nameOf(job);
  }
  EXPECT_TRUE(workloads(kube::resources::kPods, "queued").empty());

  std::sort(created.begin(), created.end(),
            [](const json& a, const json& b) { return nameOf(a) < nameOf(b); });
  const common::WallTime admittedFrom = common::SystemClock().now();
  ASSERT_TRUE(admitJob(nameOf(created[0])));
  ASSERT_TRUE(admitJob(nameOf(created[1])));
  ASSERT_TRUE(eventually([&] {
    std::vector<std::string> phases = trialPhases(getRun("queued"));
    return std::count(phases.begin(), phases.end(), "Succeeded") == 2 &&
           std::count(phases.begin(), phases.end(), "Queued") == 2;
  })) << getRun("queued").dump(2);
  for (const json& pod : workloads(kube::resources::kPods, "queued")) {
    EXPECT_EQ(pod["spec"].value("nodeSelector", json::object()), kFlavor) << nameOf(pod);
    EXPECT_EQ(pod["spec"].value("nodeName", "").rfind("a100-", 0), 0u) << nameOf(pod);
  }

  ASSERT_TRUE(admitJob(nameOf(created[2])));
  ASSERT_TRUE(admitJob(nameOf(created[3])));
  const json run = waitForPhase("queued", "Succeeded");
  EXPECT_EQ(run["status"]["verdict"], "Pass") << run.dump(2);
  ASSERT_EQ(run["status"]["results"].size(), 2u);
  for (const json& trial : run["status"]["trials"]) {
    EXPECT_EQ(trial["verdict"], "Pass");
    const common::Result<common::WallTime> started =
        common::parseRfc3339(trial.value("startTime", ""));
    ASSERT_TRUE(started.isOk()) << trial.dump();
    // Start times have whole seconds: the admission, not the creation, is the start.
    EXPECT_GE(started.value(), std::chrono::floor<std::chrono::seconds>(admittedFrom))
        << trial.dump();
  }
  EXPECT_TRUE(waitForEvent("queued", "Admitted"));
}

// Verifies a preempted unit: Kueue suspends the Job it had admitted while its pod runs, and the
// unit fails Evicted with its Job deleted rather than kept suspended (Kueue would resume it).
TEST_F(QueueTest, PreemptedJobIsReportedAndDeleted) {
  startOperator();
  json spec = queuedJobSpec("sleep 60");
  spec["cleanup"] = {{"onFailure", "Retain"}};
  createRun("preempted", spec);
  ASSERT_TRUE(eventually([&] { return jobs("preempted").size() == 1; }));
  const std::string job = nameOf(jobs("preempted")[0]);
  ASSERT_TRUE(admitJob(job));
  ASSERT_TRUE(eventually([&] {
    for (const json& pod : workloads(kube::resources::kPods, "preempted"))
      if (pod.value("/status/phase"_json_pointer, std::string()) == "Running") return true;
    return false;
  }));
  ASSERT_TRUE(allAre(trialPhases(getRun("preempted")), 1, "Running"));

  ASSERT_TRUE(preemptJob(job));
  const json run = waitForPhase("preempted", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["reason"], "Evicted") << run.dump(2);
  EXPECT_NE(trial.value("message", "").find("Kueue suspended the Job"), std::string::npos);
  EXPECT_FALSE(trial.value("retained", false));
  EXPECT_TRUE(eventually([&] {
    return jobs("preempted").empty() && workloads(kube::resources::kPods, "preempted").empty();
  }));
}

// Verifies the Pod integration with the queue taken from the operator's flag: the pod is created
// behind Kueue's gate, starts once the test removes it as Kueue does at admission, and a pod that
// Kueue stops (its TerminationTarget condition, then its deletion, which Kueue's finalizer holds
// until Kueue lets the pod go) ends the unit Evicted.
TEST_F(QueueTest, GatedPodRunsWhenUngatedAndIsReportedWhenStopped) {
  startOperator({"--default-queue-name=gpu"});
  createRun("pod", scriptSpec("sleep 60"));
  ASSERT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "pod").size() == 1; }));
  const json pod = workloads(kube::resources::kPods, "pod")[0];
  const std::string name = nameOf(pod);
  EXPECT_EQ(pod["metadata"]["labels"].value(kQueueLabel, ""), "gpu");
  EXPECT_EQ(pod["spec"]["schedulingGates"], json::array({{{"name", kGate}}}));
  ASSERT_TRUE(eventually([&] { return allAre(trialPhases(getRun("pod")), 1, "Queued"); }));
  ASSERT_TRUE(eventually([&] {
    const common::Result<json> got = client_->get(kube::resources::kPods, "default", name);
    return got.isOk() && got.value().value("/status/conditions/0/reason"_json_pointer,
                                           std::string()) == "SchedulingGated";
  }));

  // Kueue's webhook puts its finalizer on the pods it manages; the test adds it here.
  const common::Result<json> ungated =
      client_->patch(kube::resources::kPods, "default", name, kube::PatchType::kMerge,
                     {{"metadata", {{"finalizers", {kFinalizer}}}},
                      {"spec", {{"schedulingGates", nullptr}, {"nodeSelector", kFlavor}}}},
                     false);
  ASSERT_TRUE(ungated.isOk()) << ungated.status().toString();
  ASSERT_TRUE(eventually([&] { return allAre(trialPhases(getRun("pod")), 1, "Running"); }));

  const common::Result<json> stopped = client_->patch(
      kube::resources::kPods, "default", name, kube::PatchType::kStrategicMerge,
      {{"status",
        {{"conditions",
          {{{"type", "TerminationTarget"},
            {"status", "True"},
            {"reason", "WorkloadEvicted"},
            {"message", "Preempted to accommodate a workload of higher priority"}}}}}}},
      true);
  ASSERT_TRUE(stopped.isOk()) << stopped.status().toString();
  ASSERT_TRUE(client_->remove(kube::resources::kPods, "default", name, {}).isOk());
  const json run = waitForPhase("pod", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["reason"], "Evicted") << run.dump(2);
  EXPECT_NE(trial.value("message", "").find("WorkloadEvicted"), std::string::npos) << run.dump(2);
  const common::Result<json> released =
      client_->patch(kube::resources::kPods, "default", name, kube::PatchType::kMerge,
                     {{"metadata", {{"finalizers", nullptr}}}}, false);
  ASSERT_TRUE(released.isOk()) << released.status().toString();
  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "pod").empty(); }));
}

// Verifies a unit never admitted: it fails QueueTimeout at spec.queueTimeout, and neither its Job
// nor any pod is left behind, whatever cleanup.onFailure says.
TEST_F(QueueTest, NeverAdmittedFailsWithQueueTimeoutAndLeavesNothing) {
  startOperator();
  json spec = queuedJobSpec("echo never");
  spec["queueTimeout"] = "2s";
  spec["cleanup"] = {{"onFailure", "Retain"}};
  createRun("starved", spec);
  ASSERT_TRUE(eventually([&] { return jobs("starved").size() == 1; }));
  const json run = waitForPhase("starved", "Failed");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["reason"], "QueueTimeout") << run.dump(2);
  EXPECT_EQ(trial["message"], "not admitted by its queue within queueTimeout 2s");
  EXPECT_TRUE(eventually([&] {
    return jobs("starved").empty() && workloads(kube::resources::kPods, "starved").empty();
  }));
}

}  // namespace
}  // namespace hetbench::controller::testing
