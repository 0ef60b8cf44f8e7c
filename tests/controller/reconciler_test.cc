// The run reconciler in process: the fake client's store as the cluster, a cache over it, a
// fake log tracker and a FakeClock, so that every lifecycle path runs without a wall-clock wait.
// The test plays the kubelet and the Job controller by writing workload status itself.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hetbench/benchmark/requeue.h"
#include "hetbench/common/time.h"
#include "hetbench/logs/layout.h"
#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;
using kube::resources::kJobs;
using kube::resources::kPods;

class ReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logDir_ = std::filesystem::temp_directory_path() /
              ("hetbench-reconciler-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ReconcilerOptions options;
    options.logDir = logDir_;
    reconciler_ = std::make_unique<Reconciler>(client_, cache_, clock_, events_, options, &logs_);
  }
  void TearDown() override { std::filesystem::remove_all(logDir_); }

  void apply(const json& run) { ASSERT_TRUE(client_.create(kBenchmarkRuns, "lab", run).isOk()); }
  ReconcileResult reconcile(const std::string& name) {
    common::Result<ReconcileResult> r = reconciler_->reconcile("lab", name);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? r.value() : ReconcileResult{};
  }
  json run(const std::string& name) { return client_.get(kBenchmarkRuns, "lab", name).value(); }
  json trial(const std::string& name, std::size_t i = 0) {
    return run(name)["status"]["trials"][i];
  }
  std::string phase(const std::string& name) { return run(name)["status"].value("phase", ""); }
  std::vector<json> objects(const kube::GroupVersionResource& gvr, const std::string& runName) {
    std::vector<json> out;
    for (const json& o : client_.objects(gvr))
      if (o["metadata"]["labels"].value("hetbench.io/run", "") == runName) out.push_back(o);
    return out;
  }
  std::string podOf(const std::string& runName, std::size_t i = 0) {
    const std::vector<json> pods = objects(kPods, runName);
    return i < pods.size() ? pods[i]["metadata"].value("name", "") : "";
  }
  /// Writes into an object's stored JSON, as the kubelet or a controller would.
  void edit(const kube::GroupVersionResource& gvr, const std::string& name,
            const std::function<void(json&)>& change) {
    std::shared_ptr<kube::testing::FakeStore> store = client_.store();
    std::lock_guard lock(store->mu);
    json& object = store->objects[gvr.group + "/" + gvr.resource]["lab/" + name];
    change(object);
    object["metadata"]["resourceVersion"] = std::to_string(++store->resourceVersion);
  }
  void podPhase(const std::string& pod, const std::string& phase, int exitCode = 0) {
    edit(kPods, pod, [&](json& o) {
      o["status"]["phase"] = phase;
      if (phase == "Succeeded" || phase == "Failed") {
        const json terminated = {{"exitCode", exitCode},
                                 {"reason", exitCode == 0 ? "Completed" : "Error"}};
        o["status"]["containerStatuses"] =
            json::array({{{"name", "benchmark"}, {"state", {{"terminated", terminated}}}}});
      }
    });
  }
  std::string unitDir(const std::string& runName) {
    const std::string uid = run(runName)["metadata"]["uid"];
    return logs::LogLayout::unitDir("lab", runName, uid, 0, 0);
  }
  void writeLog(const std::string& runName, const std::string& pod,
                const std::vector<std::string>& lines) {
    const std::filesystem::path file =
        logDir_ / logs::LogLayout::containerLog(unitDir(runName), pod, "benchmark");
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file);
    for (const std::string& line : lines) out << "2026-11-22T10:00:00.000000001Z " << line << "\n";
    logs_.completeLogs(pod);
  }
  /// Starts a one-unit run and its pod: accepted, created and Running.
  std::string startOne(const json& run) {
    apply(run);
    const std::string name = run["metadata"]["name"];
    reconcile(name);
    const std::string pod = podOf(name);
    EXPECT_FALSE(pod.empty());
    podPhase(pod, "Running");
    reconcile(name);
    return pod;
  }

  kube::testing::FakeKubeClient client_;
  StoreCache cache_{client_};
  common::FakeClock clock_;
  RecordingEvents events_;
  FakeLogTracker logs_;
  std::filesystem::path logDir_;
  std::unique_ptr<Reconciler> reconciler_;
};

// Verifies a Pod run from acceptance to success: the accepted spec and finalizer recorded, the
// pod created with its manifest kept, the run Running until the unit's logs are on disk, then
// measured, the pod deleted and the run Succeeded with its Events.
TEST_F(ReconcilerTest, PodRunSucceedsOnceItsLogsAreKept) {
  apply(RunBuilder("ok").obj());
  reconcile("ok");
  const json accepted = run("ok");
  EXPECT_TRUE(accepted["metadata"]["annotations"].contains("hetbench.io/accepted-spec"));
  EXPECT_EQ(accepted["metadata"]["finalizers"], json::array({"hetbench.io/cleanup"}));
  const std::string pod = podOf("ok");
  ASSERT_FALSE(pod.empty());
  EXPECT_TRUE(std::filesystem::exists(logDir_ / logs::LogLayout::manifestFile(unitDir("ok"))));
  EXPECT_EQ(trial("ok")["expectedPods"], 1);

  podPhase(pod, "Succeeded");
  reconcile("ok");
  EXPECT_EQ(trial("ok")["phase"], "Succeeded");
  EXPECT_EQ(phase("ok"), "Running");  // its metrics are not read yet
  reconcile("ok");
  EXPECT_EQ(objects(kPods, "ok").size(), 1u) << "deleted before its logs were complete";
  EXPECT_EQ(logs_.unitDirOf(pod), unitDir("ok"));

  writeLog("ok", pod, {"done"});
  reconcile("ok");
  EXPECT_TRUE(objects(kPods, "ok").empty());
  EXPECT_EQ(phase("ok"), "Succeeded");
  for (const char* reason : {"Accepted", "Created", "TrialSucceeded", "RunSucceeded"})
    EXPECT_EQ(events_.count(reason), 1) << reason;
}

// Verifies that what the cluster says of a failed workload reaches the status within its bounds
// however long it is: the container's reason and termination message (a workload writes the
// latter), and the Failed condition that repeats them.
TEST_F(ReconcilerTest, LongTerminationTextIsCutInTheStatus) {
  const std::string pod = startOne(RunBuilder("loud").obj());
  edit(kPods, pod, [&](json& o) {
    o["status"]["phase"] = "Failed";
    const json terminated = {
        {"exitCode", 1}, {"reason", std::string(500, 'R')}, {"message", std::string(200000, 'm')}};
    o["status"]["containerStatuses"] =
        json::array({{{"name", "benchmark"}, {"state", {{"terminated", terminated}}}}});
  });
  reconcile("loud");
  reconcile("loud");
  EXPECT_EQ(phase("loud"), "Failed");
  const std::string reason = trial("loud")["reason"];
  const std::string message = trial("loud")["message"];
  EXPECT_EQ(reason, std::string(125, 'R') + "...");
  EXPECT_EQ(message.size(), benchmark::kMaxStatusMessageBytes);
  EXPECT_TRUE(message.ends_with("..."));
  const json status = run("loud")["status"];
  for (const json& c : status["conditions"]) {
    EXPECT_LE(c.value("message", "").size(), benchmark::kMaxStatusMessageBytes) << c.dump();
    EXPECT_LE(c.value("reason", "").size(), benchmark::kMaxStatusReasonBytes) << c.dump();
  }
  const std::string before = status.dump();
  reconcile("loud");
  EXPECT_EQ(run("loud")["status"].dump(), before) << "the cut text must read back unchanged";
}

// Verifies a failed unit: Failed with the pod's reason, the pod kept and labelled as retained,
// and deleted once retainFor has passed.
TEST_F(ReconcilerTest, FailedUnitRetainsItsPodForRetainFor) {
  const std::string pod = startOne(RunBuilder("fails").cleanup({{"retainFor", "2s"}}).obj());
  podPhase(pod, "Failed", 3);
  reconcile("fails");
  EXPECT_EQ(trial("fails")["reason"], "Error");
  EXPECT_NE(trial("fails").value("message", "").find("exited with code 3"), std::string::npos);
  const ReconcileResult kept = reconcile("fails");
  EXPECT_EQ(objects(kPods, "fails")[0]["metadata"]["labels"]["hetbench.io/retained"], "true");
  EXPECT_TRUE(trial("fails").value("retained", false));
  EXPECT_EQ(phase("fails"), "Failed");
  EXPECT_EQ(events_.count("Retained"), 1);
  ASSERT_TRUE(kept.requeueAfter);
  EXPECT_EQ(*kept.requeueAfter, 2s);

  clock_.advance(2s);
  reconcile("fails");
  EXPECT_TRUE(objects(kPods, "fails").empty());
  EXPECT_FALSE(trial("fails").value("retained", false));
  EXPECT_EQ(events_.count("RetentionExpired"), 1);
}

// Verifies maxRetained 1 with three units failing one after another: only the newest stays.
TEST_F(ReconcilerTest, MaxRetainedKeepsOnlyTheNewest) {
  apply(RunBuilder("max").repetitions(3).parallelism(3).cleanup({{"maxRetained", 1}}).obj());
  reconcile("max");
  ASSERT_EQ(objects(kPods, "max").size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    podPhase(trial("max", i)["workload"]["name"], "Failed", 1);
    reconcile("max");
    reconcile("max");
    clock_.advance(1s);
  }
  const std::vector<json> pods = objects(kPods, "max");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0]["metadata"]["name"], trial("max", 2)["workload"]["name"]);
  EXPECT_TRUE(trial("max", 2).value("retained", false));
  EXPECT_FALSE(trial("max", 0).value("retained", false));
}

// Verifies timeLimit on a Pod: TimedOut at the limit, not before, and the pod deleted.
TEST_F(ReconcilerTest, TimeLimitStopsThePod) {
  startOne(RunBuilder("slow").timeLimit("2s").obj());
  clock_.advance(1999ms);
  const ReconcileResult before = reconcile("slow");
  EXPECT_EQ(trial("slow")["phase"], "Running");
  ASSERT_TRUE(before.requeueAfter);
  EXPECT_EQ(*before.requeueAfter, benchmark::kMinRequeue);
  clock_.advance(1ms);
  reconcile("slow");
  EXPECT_EQ(trial("slow")["phase"], "TimedOut");
  EXPECT_EQ(trial("slow")["reason"], "TimeLimitExceeded");
  reconcile("slow");
  EXPECT_TRUE(objects(kPods, "slow").empty());
  EXPECT_EQ(phase("slow"), "Failed");
  EXPECT_EQ(events_.count("TrialTimedOut"), 1);
}

// Verifies timeLimit under onFailure Delete: the running pod is deleted at once, without waiting
// for logs that cannot end while it runs, so that it does not hold its accelerators.
TEST_F(ReconcilerTest, TimeLimitDeletesARunningPodUnderDelete) {
  startOne(RunBuilder("slow").timeLimit("2s").cleanup({{"onFailure", "Delete"}}).obj());
  clock_.advance(2s);
  reconcile("slow");
  EXPECT_EQ(trial("slow")["phase"], "TimedOut");
  reconcile("slow");
  EXPECT_TRUE(objects(kPods, "slow").empty()) << "a timed-out pod kept its accelerators";
  EXPECT_EQ(phase("slow"), "Failed");
}

// Verifies startTimeout under onFailure Delete: the Pending pod is deleted, so that it cannot be
// scheduled later and take accelerators from a run that has already failed.
TEST_F(ReconcilerTest, StartTimeoutDeletesAPendingPodUnderDelete) {
  apply(RunBuilder("stuck").startTimeout("30s").cleanup({{"onFailure", "Delete"}}).obj());
  reconcile("stuck");
  edit(kPods, podOf("stuck"), [](json& o) { o["status"] = {{"phase", "Pending"}}; });
  clock_.advance(30s);
  reconcile("stuck");
  EXPECT_EQ(trial("stuck")["phase"], "Failed");
  reconcile("stuck");
  EXPECT_TRUE(objects(kPods, "stuck").empty());
}

// Verifies logs that do not end after the pod has: waited for two minutes, then given up as
// incomplete, the unit measured from what was kept (nothing is required of it here), the pod
// deleted, and a Warning.
TEST_F(ReconcilerTest, OverdueLogsAreGivenUp) {
  const std::string pod = startOne(RunBuilder("hung").obj());
  podPhase(pod, "Succeeded");
  reconcile("hung");
  EXPECT_EQ(trial("hung")["phase"], "Succeeded");
  clock_.advance(119s);
  reconcile("hung");
  EXPECT_TRUE(logs_.abandoned().empty());
  EXPECT_EQ(objects(kPods, "hung").size(), 1u);
  clock_.advance(1s);
  reconcile("hung");
  ASSERT_EQ(logs_.abandoned().size(), 1u);
  EXPECT_EQ(logs_.abandoned().begin()->second,
            "the stream had not ended 2m0s after the unit ended");
  reconcile("hung");
  EXPECT_TRUE(objects(kPods, "hung").empty());
  EXPECT_EQ(phase("hung"), "Succeeded");
  EXPECT_EQ(trial("hung").value("message", ""),
            "log incomplete: the stream had not ended 2m0s after the unit ended");
  EXPECT_EQ(events_.count("LogIncomplete"), 1);
}

// Verifies timeLimit on a Job kept on failure: suspended (which stops its pods) and retained.
TEST_F(ReconcilerTest, TimeLimitSuspendsARetainedJob) {
  apply(RunBuilder("job").kind("Job").timeLimit("2s").obj());
  reconcile("job");
  const std::vector<json> jobs = objects(kJobs, "job");
  ASSERT_EQ(jobs.size(), 1u);
  const std::string name = jobs[0]["metadata"]["name"];
  edit(kJobs, name, [](json& o) { o["status"]["ready"] = 1; });
  clock_.advance(2s);
  reconcile("job");
  EXPECT_EQ(trial("job")["phase"], "TimedOut");
  reconcile("job");
  const json job = client_.get(kJobs, "lab", name).value();
  EXPECT_EQ(job["spec"]["suspend"], true);
  EXPECT_EQ(job["metadata"]["labels"]["hetbench.io/retained"], "true");
  EXPECT_TRUE(trial("job").value("retained", false));
}

// Verifies a unit in a Kueue queue that is never admitted: its Job created suspended with the
// queue label, the unit Queued past startTimeout (waiting is not starting), then Failed
// QueueTimeout at queueTimeout and its Job deleted although cleanup.onFailure is Retain (Kueue
// could still admit a suspended Job).
TEST_F(ReconcilerTest, QueuedJobFailsAtQueueTimeoutAndIsDeleted) {
  apply(RunBuilder("starved")
            .kind("Job")
            .set("queueName", "gpu")
            .set("queueTimeout", "1h")
            .startTimeout("10m")
            .obj());
  reconcile("starved");
  const std::vector<json> jobs = objects(kJobs, "starved");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["spec"]["suspend"], true);
  EXPECT_EQ(jobs[0]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "gpu");
  EXPECT_EQ(trial("starved")["phase"], "Queued");
  EXPECT_EQ(phase("starved"), "Running");

  clock_.advance(59min);
  const ReconcileResult waiting = reconcile("starved");
  EXPECT_EQ(trial("starved")["phase"], "Queued");
  ASSERT_TRUE(waiting.requeueAfter);
  EXPECT_EQ(*waiting.requeueAfter, 1min);
  clock_.advance(1min);
  reconcile("starved");
  EXPECT_EQ(trial("starved")["phase"], "Failed");
  EXPECT_EQ(trial("starved")["reason"], "QueueTimeout");
  reconcile("starved");
  EXPECT_TRUE(objects(kJobs, "starved").empty());
  EXPECT_FALSE(trial("starved").value("retained", false));
  EXPECT_EQ(phase("starved"), "Failed");
}

// Verifies admission: the unit Running from the Job's start time, startTimeout counted from there
// and not from the Job's creation 90 minutes earlier (its pods never start here).
TEST_F(ReconcilerTest, AdmissionStartsTheStartTimeout) {
  apply(RunBuilder("queued").kind("Job").set("queueName", "gpu").startTimeout("10m").obj());
  reconcile("queued");
  const std::string name = objects(kJobs, "queued")[0]["metadata"]["name"];
  clock_.advance(90min);
  edit(kJobs, name, [&](json& o) {
    o["spec"]["suspend"] = false;
    o["status"]["startTime"] = common::formatRfc3339(clock_.now());
  });
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "Running");
  clock_.advance(10min - 1s);
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "Running");
  clock_.advance(1s);
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "Failed");
  EXPECT_EQ(trial("queued")["reason"], "PodsNotStarted");
}

// Verifies admission: timeLimit counted from the Job's start time, not from its creation, and the
// Job deleted at the time limit rather than suspended.
TEST_F(ReconcilerTest, AdmissionStartsTheTimeLimitAndATimedOutQueuedJobIsDeleted) {
  apply(RunBuilder("queued")
            .kind("Job")
            .set("queueName", "gpu")
            .timeLimit("2h")
            .startTimeout("3h")
            .obj());
  reconcile("queued");
  const std::string name = objects(kJobs, "queued")[0]["metadata"]["name"];
  clock_.advance(90min);
  const common::WallTime admitted = clock_.now();
  edit(kJobs, name, [&](json& o) {
    o["spec"]["suspend"] = false;
    o["status"]["startTime"] = common::formatRfc3339(admitted);
    o["status"]["ready"] = 1;
  });
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "Running");
  EXPECT_EQ(trial("queued")["startTime"], common::formatRfc3339(admitted));
  EXPECT_EQ(events_.count("Admitted"), 1);

  clock_.advance(2h - 1s);
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "Running");
  clock_.advance(1s);
  reconcile("queued");
  EXPECT_EQ(trial("queued")["phase"], "TimedOut");
  reconcile("queued");
  EXPECT_TRUE(objects(kJobs, "queued").empty()) << "a queued Job was kept suspended";
}

// Verifies the operator's default queue for a Pod: the label and Kueue's admission gate, the
// unit Queued until the gate goes; and that spec.queueName "" opts out of the default.
TEST_F(ReconcilerTest, DefaultQueueGatesThePodAndAnEmptyQueueNameOptsOut) {
  ReconcilerOptions options;
  options.logDir = logDir_;
  options.defaultQueueName = "shared";
  reconciler_ = std::make_unique<Reconciler>(client_, cache_, clock_, events_, options, &logs_);
  apply(RunBuilder("gated").obj());
  apply(RunBuilder("direct").set("queueName", "").obj());
  reconcile("gated");
  reconcile("direct");
  const json pod = objects(kPods, "gated")[0];
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "shared");
  EXPECT_EQ(pod["spec"]["schedulingGates"], json::array({{{"name", "kueue.x-k8s.io/admission"}}}));
  EXPECT_EQ(trial("gated")["phase"], "Queued");
  const json direct = objects(kPods, "direct")[0];
  EXPECT_FALSE(direct["metadata"]["labels"].contains("kueue.x-k8s.io/queue-name"));
  EXPECT_FALSE(direct["spec"].contains("schedulingGates"));
  EXPECT_EQ(trial("direct")["phase"], "Running");

  edit(kPods, podOf("gated"), [](json& o) { o["spec"].erase("schedulingGates"); });
  reconcile("gated");
  EXPECT_EQ(trial("gated")["phase"], "Running");
}

// Verifies suspend: the running unit Cancelled with its pod deleted at once (no wait for logs),
// the pending one Cancelled before it starts, and the run Cancelled.
TEST_F(ReconcilerTest, SuspendCancelsTheRun) {
  const std::string pod = startOne(RunBuilder("pause").repetitions(2).obj());
  edit(kBenchmarkRuns, "pause", [](json& o) { o["spec"]["suspend"] = true; });
  reconcile("pause");
  EXPECT_EQ(trial("pause", 0)["phase"], "Cancelled");
  EXPECT_EQ(trial("pause", 1)["message"], "the run was suspended before it started");
  reconcile("pause");
  EXPECT_TRUE(objects(kPods, "pause").empty());
  EXPECT_EQ(phase("pause"), "Cancelled");
  EXPECT_EQ(events_.count("RunCancelled"), 1);
}

// Verifies that a spec edit after acceptance is ignored with a Warning, and the accepted spec
// still runs.
TEST_F(ReconcilerTest, SpecEditsAfterAcceptanceAreIgnored) {
  apply(RunBuilder("frozen").repetitions(1).obj());
  reconcile("frozen");
  edit(kBenchmarkRuns, "frozen", [](json& o) {
    o["spec"]["repetitions"] = 5;
    o["metadata"]["generation"] = 2;
  });
  reconcile("frozen");
  EXPECT_EQ(events_.count("SpecImmutable"), 1);
  EXPECT_EQ(run("frozen")["status"]["trialsTotal"], 1);
  EXPECT_EQ(objects(kPods, "frozen").size(), 1u);
}

// Verifies the finalizer: a deleted run's workloads go and its log streams end, then the
// finalizer.
TEST_F(ReconcilerTest, DeletedRunRemovesWorkloadsAndFinalizer) {
  startOne(RunBuilder("gone").obj());
  edit(kBenchmarkRuns, "gone",
       [&](json& o) { o["metadata"]["deletionTimestamp"] = common::formatRfc3339(clock_.now()); });
  reconcile("gone");
  EXPECT_TRUE(objects(kPods, "gone").empty());
  EXPECT_EQ(run("gone")["metadata"]["finalizers"], json::array());
  EXPECT_EQ(logs_.forgotten(), std::vector<std::string>{"lab/gone"});
}

// Verifies startTimeout: an unschedulable pod fails the unit with the scheduler's reason once
// the timeout has passed.
TEST_F(ReconcilerTest, UnschedulableUnitFailsAfterStartTimeout) {
  apply(RunBuilder("stuck").startTimeout("30s").obj());
  reconcile("stuck");
  const std::string pod = podOf("stuck");
  edit(kPods, pod, [](json& o) {
    o["status"] = {{"phase", "Pending"},
                   {"conditions",
                    {{{"type", "PodScheduled"},
                      {"status", "False"},
                      {"reason", "Unschedulable"},
                      {"message", "0/4 nodes are available"}}}}};
  });
  const ReconcileResult waiting = reconcile("stuck");
  ASSERT_TRUE(waiting.requeueAfter);
  EXPECT_EQ(*waiting.requeueAfter, 30s);
  clock_.advance(30s);
  reconcile("stuck");
  EXPECT_EQ(trial("stuck")["phase"], "Failed");
  EXPECT_EQ(trial("stuck")["reason"], "Unschedulable");
  reconcile("stuck");
  EXPECT_TRUE(objects(kPods, "stuck").empty()) << "a Pending pod is deleted, not retained";
}

// Verifies startTimeout against a cache that has not yet seen the pod start: the API server,
// where the pod runs, decides, and the unit is not failed.
TEST_F(ReconcilerTest, StartTimeoutIsConfirmedOnTheApiServer) {
  apply(RunBuilder("late").startTimeout("30s").obj());
  reconcile("late");
  const std::string pod = podOf("late");
  edit(kPods, pod, [](json& o) { o["status"] = {{"phase", "Pending"}}; });
  cache_.freeze();
  podPhase(pod, "Running");
  clock_.advance(30s);
  reconcile("late");
  cache_.thaw();
  EXPECT_EQ(trial("late")["phase"], "Running");
  EXPECT_EQ(objects(kPods, "late").size(), 1u);
}

// Verifies a spec too large to record in the accepted-spec annotation: the run is refused with
// Accepted=False saying so, once, and nothing is created (the API server would refuse the
// annotation on every pass, leaving the run without a status).
TEST_F(ReconcilerTest, SpecTooLargeToRecordIsRefused) {
  json workload = {{"kind", "Pod"},
                   {"image", "busybox"},
                   {"env", {{{"name", "BIG"}, {"value", std::string(300000, 'x')}}}}};
  apply(RunBuilder("big").set("workload", workload).obj());
  reconcile("big");
  reconcile("big");
  EXPECT_EQ(phase("big"), "Failed");
  const json accepted = run("big")["status"]["conditions"];
  bool refused = false;
  for (const json& c : accepted) {
    if (c["type"] == "Accepted") {
      refused = c["status"] == "False" &&
                c.value("message", "").find("does not fit") != std::string::npos;
    }
  }
  EXPECT_TRUE(refused) << accepted.dump(2);
  EXPECT_TRUE(objects(kPods, "big").empty());
  EXPECT_EQ(events_.count("InvalidSpec"), 1);
}

// Verifies parallelism: at most two units run at once, the next starting when one ends.
TEST_F(ReconcilerTest, ParallelismBoundsTheRunningUnits) {
  apply(RunBuilder("par").matrix({{"n", {1, 2, 3}}}).parallelism(2).obj());
  reconcile("par");
  ASSERT_EQ(objects(kPods, "par").size(), 2u);
  podPhase(podOf("par", 0), "Succeeded");
  reconcile("par");
  EXPECT_EQ(objects(kPods, "par").size(), 3u);
}

// Verifies that an invalid spec is refused once: Failed with Accepted=False and one Event.
TEST_F(ReconcilerTest, InvalidSpecIsRefusedOnce) {
  apply(RunBuilder("bad").metrics(json::array({{{"name", "x"}, {"pattern", "x ([0-9"}}})).obj());
  reconcile("bad");
  reconcile("bad");
  const json status = run("bad")["status"];
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["conditions"][0]["type"], "Accepted");
  EXPECT_EQ(status["conditions"][0]["status"], "False");
  EXPECT_NE(status["conditions"][0]["message"].get<std::string>().find("spec.metrics[0].pattern"),
            std::string::npos);
  EXPECT_EQ(events_.count("InvalidSpec"), 1);
  EXPECT_TRUE(objects(kPods, "bad").empty());
}

// Verifies that a pass over a stale cache meets a Conflict and is redone from a fresh read,
// sending its Events once.
TEST_F(ReconcilerTest, ConflictRedoesThePassFromAFreshRead) {
  apply(RunBuilder("stale").obj());
  cache_.freeze();
  edit(kBenchmarkRuns, "stale", [](json& o) { o["metadata"]["labels"]["team"] = "a"; });
  reconcile("stale");
  cache_.thaw();
  EXPECT_GE(client_.callCount("get"), 1);
  EXPECT_EQ(run("stale")["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(events_.count("Accepted"), 1);
  EXPECT_EQ(events_.count("Created"), 1);
  EXPECT_EQ(objects(kPods, "stale").size(), 1u);
}

// Verifies the defect of the stored summary: a referenced metric that does not fit the unit
// summary's 512 bytes is still judged, at its exact value, and not MetricMissing.
TEST_F(ReconcilerTest, MetricBeyondTheSummaryBudgetIsStillJudged) {
  json specs = json::array();
  std::vector<std::string> lines;
  for (int i = 0; i < 31; ++i) {
    const std::string name = "a_rather_long_metric_name_" + std::to_string(100 + i);
    specs.push_back({{"name", name}, {"pattern", name + " = ([0-9.]+)"}, {"required", false}});
    lines.push_back(name + " = 1.23456789");
  }
  specs.push_back({{"name", "zz_speed"}, {"pattern", "zz_speed = ([0-9.]+)"}});
  lines.push_back("zz_speed = 99.9999");
  const std::string pod =
      startOne(RunBuilder("wide")
                   .metrics(specs)
                   .references({{"zz_speed", {{"value", 100}, {"lower", 0.01}}}})
                   .obj());
  podPhase(pod, "Succeeded");
  writeLog("wide", pod, lines);
  reconcile("wide");
  reconcile("wide");
  const json status = run("wide")["status"];
  ASSERT_EQ(status["results"].size(), 1u) << status.dump(2);
  EXPECT_EQ(status["results"][0]["verdict"], "Pass") << status.dump(2);
  EXPECT_EQ(status["results"][0]["metrics"]["zz_speed"]["mean"], 99.9999);
  EXPECT_GT(status["trials"][0]["metrics"]["omitted"].get<int>(), 0);
  EXPECT_EQ(phase("wide"), "Succeeded");
}

// Verifies defect 5 of issue 19: a run deleted and applied again under its name (kubectl
// delete, then apply) is measured from its own logs only, as each run keeps its logs below its
// uid.
TEST_F(ReconcilerTest, ReappliedRunIsMeasuredFromItsOwnLogsOnly) {
  const json spec =
      RunBuilder("again").metrics({{{"name", "speed"}, {"pattern", "speed = ([0-9.]+)"}}}).obj();
  std::string pod = startOne(spec);
  const std::string firstDir = unitDir("again");
  podPhase(pod, "Succeeded");
  writeLog("again", pod, {"speed = 100"});
  reconcile("again");
  reconcile("again");
  ASSERT_EQ(phase("again"), "Succeeded");
  {
    std::shared_ptr<kube::testing::FakeStore> store = client_.store();
    std::lock_guard lock(store->mu);
    store->objects[kBenchmarkRuns.group + "/" + kBenchmarkRuns.resource].erase("lab/again");
  }

  pod = startOne(spec);
  ASSERT_NE(unitDir("again"), firstDir);
  podPhase(pod, "Succeeded");
  writeLog("again", pod, {"speed = 7"});
  reconcile("again");
  reconcile("again");
  const json status = run("again")["status"];
  ASSERT_EQ(status["results"].size(), 1u) << status.dump(2);
  EXPECT_EQ(status["results"][0]["metrics"]["speed"]["mean"], 7) << status.dump(2);
  EXPECT_EQ(status["results"][0]["metrics"]["speed"]["n"], 1) << status.dump(2);
  EXPECT_TRUE(std::filesystem::exists(logDir_ / firstDir)) << "the first run's logs are kept";
}

}  // namespace
}  // namespace hetbench::controller::testing
