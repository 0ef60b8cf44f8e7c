#include "hetbench/benchmark/completion.h"

#include <gtest/gtest.h>

namespace hetbench::benchmark {
namespace {

using nlohmann::json;
using Phase = WorkloadState::Phase;

// A pod as the scheduler and the kubelet report it.
class PodBuilder {
 public:
  explicit PodBuilder(std::string name) {
    pod_ = {{"metadata", {{"name", std::move(name)}}}, {"status", json::object()}};
  }
  PodBuilder& phase(const std::string& phase) {
    pod_["status"]["phase"] = phase;
    return *this;
  }
  PodBuilder& reason(const std::string& reason, const std::string& message) {
    pod_["status"]["reason"] = reason;
    pod_["status"]["message"] = message;
    return *this;
  }
  PodBuilder& unschedulable(const std::string& message) {
    pod_["status"]["phase"] = "Pending";
    pod_["status"]["conditions"].push_back({{"type", "PodScheduled"},
                                            {"status", "False"},
                                            {"reason", "Unschedulable"},
                                            {"message", message}});
    return *this;
  }
  PodBuilder& waiting(const std::string& container, const std::string& reason,
                      const std::string& message = "", bool init = false) {
    json waiting = {{"reason", reason}};
    if (!message.empty()) waiting["message"] = message;
    return container_(container, {{"waiting", waiting}}, init);
  }
  PodBuilder& running(const std::string& container) {
    return container_(container, {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}, false);
  }
  PodBuilder& terminated(const std::string& container, int exitCode, const std::string& reason,
                         const std::string& message = "", bool init = false) {
    json terminated = {{"exitCode", exitCode}, {"reason", reason}};
    if (!message.empty()) terminated["message"] = message;
    return container_(container, {{"terminated", terminated}}, init);
  }
  PodBuilder& deleting() {
    pod_["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
    return *this;
  }
  json obj() const { return pod_; }

 private:
  PodBuilder& container_(const std::string& name, const json& state, bool init) {
    pod_["status"][init ? "initContainerStatuses" : "containerStatuses"].push_back(
        {{"name", name}, {"state", state}});
    return *this;
  }
  json pod_;
};

json jobWithStatus(const json& status) { return {{"kind", "Job"}, {"status", status}}; }

json condition(const std::string& type, const std::string& status, const std::string& reason,
               const std::string& message) {
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}};
}

struct StateCase {
  std::string name;
  WorkloadKind kind;
  json object;
  WorkloadState want;
};

void expectStates(const std::vector<StateCase>& cases) {
  for (const StateCase& c : cases) {
    const WorkloadState got = workloadState(c.kind, c.object);
    EXPECT_EQ(got.phase, c.want.phase) << c.name;
    EXPECT_EQ(got.reason, c.want.reason) << c.name;
    EXPECT_EQ(got.message, c.want.message) << c.name;
  }
}

// Verifies that a pod's phase maps to the unit's, and that a failed pod explains itself by its
// own reason or by the container that ended it.
TEST(WorkloadState, Pod) {
  const std::vector<StateCase> cases = {
      {"no status", WorkloadKind::kPod, {{"metadata", {{"name", "p"}}}}, {}},
      {"pending",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Pending").waiting("benchmark", "ContainerCreating").obj(),
       {}},
      {"running",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Running").obj(),
       {Phase::kRunning, "", ""}},
      {"unknown is still placed",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Unknown").obj(),
       {Phase::kRunning, "", ""}},
      {"succeeded",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Succeeded").terminated("benchmark", 0, "Completed").obj(),
       {Phase::kSucceeded, "Completed", ""}},
      {"exit code",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Failed").terminated("benchmark", 3, "Error").obj(),
       {Phase::kFailed, "Error", "container benchmark exited with code 3"}},
      {"OOMKilled",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Failed").terminated("benchmark", 137, "OOMKilled").obj(),
       {Phase::kFailed, "OOMKilled", "container benchmark exited with code 137"}},
      {"terminated without a reason",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Failed").terminated("benchmark", 1, "").obj(),
       {Phase::kFailed, "Error", "container benchmark exited with code 1"}},
      {"the non-zero exit outranks an earlier clean one",
       WorkloadKind::kPod,
       PodBuilder("p")
           .phase("Failed")
           .terminated("sidecar", 0, "Completed")
           .terminated("benchmark", 2, "Error")
           .obj(),
       {Phase::kFailed, "Error", "container benchmark exited with code 2"}},
      {"container message",
       WorkloadKind::kPod,
       PodBuilder("p")
           .phase("Failed")
           .terminated("benchmark", 128, "StartError", "no command specified")
           .obj(),
       {Phase::kFailed, "StartError",
        "container benchmark exited with code 128: no command specified"}},
      {"init container",
       WorkloadKind::kPod,
       PodBuilder("p")
           .phase("Failed")
           .terminated("fetch", 1, "Error", "", true)
           .waiting("benchmark", "PodInitializing")
           .obj(),
       {Phase::kFailed, "Error", "init container fetch exited with code 1"}},
      {"the pod's reason outranks the containers'",
       WorkloadKind::kPod,
       PodBuilder("p")
           .phase("Failed")
           .reason("DeadlineExceeded", "Pod was active on the node longer than the deadline")
           .terminated("benchmark", 137, "Error")
           .obj(),
       {Phase::kFailed, "DeadlineExceeded", "Pod was active on the node longer than the deadline"}},
      {"failed with nothing to say",
       WorkloadKind::kPod,
       PodBuilder("p").phase("Failed").obj(),
       {Phase::kFailed, "Failed", "pod failed"}},
      {"hostile status", WorkloadKind::kPod, {{"status", "Failed"}}, {}},
      {"hostile phase", WorkloadKind::kPod, {{"status", {{"phase", 7}}}}, {}},
      {"hostile container statuses",
       WorkloadKind::kPod,
       json::parse(R"({"status": {"phase": "Failed",
                                  "containerStatuses": [1, {"state": {"terminated": "x"}}]}})"),
       {Phase::kFailed, "Failed", "pod failed"}},
  };
  expectStates(cases);
}

// Verifies that a Job ends only on its Complete or Failed condition (the Job controller applies
// backoffLimit, activeDeadlineSeconds and podFailurePolicy) and runs once it has had a pod.
TEST(WorkloadState, Job) {
  const std::vector<StateCase> cases = {
      {"no status", WorkloadKind::kJob, {{"kind", "Job"}}, {}},
      {"pods pending", WorkloadKind::kJob, jobWithStatus({{"active", 2}, {"ready", 0}}), {}},
      {"a pod ready",
       WorkloadKind::kJob,
       jobWithStatus({{"active", 2}, {"ready", 1}}),
       {Phase::kRunning, "", ""}},
      {"pods finished, condition not yet written",
       WorkloadKind::kJob,
       jobWithStatus({{"active", 0}, {"succeeded", 1}}),
       {Phase::kRunning, "", ""}},
      {"complete",
       WorkloadKind::kJob,
       jobWithStatus({{"conditions",
                       {condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                  "Reached expected number of succeeded pods"),
                        condition("Complete", "True", "CompletionsReached",
                                  "Reached expected number of succeeded pods")}}}),
       {Phase::kSucceeded, "CompletionsReached", "Reached expected number of succeeded pods"}},
      {"backoff limit",
       WorkloadKind::kJob,
       jobWithStatus({{"failed", 1},
                      {"conditions",
                       {condition("FailureTarget", "True", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit"),
                        condition("Failed", "True", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit")}}}),
       {Phase::kFailed, "BackoffLimitExceeded", "Job has reached the specified backoff limit"}},
      {"deadline",
       WorkloadKind::kJob,
       jobWithStatus({{"conditions",
                       {condition("Failed", "True", "DeadlineExceeded",
                                  "Job was active longer than specified deadline")}}}),
       {Phase::kFailed, "DeadlineExceeded", "Job was active longer than specified deadline"}},
      {"pod failure policy",
       WorkloadKind::kJob,
       jobWithStatus(
           {{"conditions",
             {condition("Failed", "True", "PodFailurePolicy",
                        "Container benchmark for pod lab/x-0 failed with exit code 42 matching "
                        "FailJob rule at index 0")}}}),
       {Phase::kFailed, "PodFailurePolicy",
        "Container benchmark for pod lab/x-0 failed with exit code 42 matching FailJob rule at "
        "index 0"}},
      {"failure target only: pods still terminating",
       WorkloadKind::kJob,
       jobWithStatus({{"active", 0},
                      {"terminating", 1},
                      {"conditions",
                       {condition("FailureTarget", "True", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit")}}}),
       {Phase::kRunning, "", ""}},
      {"success criteria only",
       WorkloadKind::kJob,
       jobWithStatus({{"conditions",
                       {condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                  "Reached expected number of succeeded pods")}}}),
       {Phase::kRunning, "", ""}},
      {"conditions that are not True",
       WorkloadKind::kJob,
       jobWithStatus(
           {{"conditions",
             {condition("Complete", "False", "", ""), condition("Failed", "Unknown", "", "")}}}),
       {}},
      {"suspended",
       WorkloadKind::kJob,
       jobWithStatus(
           {{"conditions", {condition("Suspended", "True", "JobSuspended", "Job suspended")}}}),
       {}},
      {"hostile conditions",
       WorkloadKind::kJob,
       jobWithStatus({{"conditions", {1, "Complete", {{"type", 3}}}}, {"ready", "1"}}),
       {}},
  };
  expectStates(cases);
}

// Verifies the IPUJob's status.state mapping, with the Failed condition's reason and message.
TEST(WorkloadState, IpuJob) {
  const std::vector<StateCase> cases = {
      {"no status", WorkloadKind::kIpuJob, {{"kind", "IPUJob"}}, {}},
      {"pending",
       WorkloadKind::kIpuJob,
       json::parse(R"({"status": {"state": "Pending",
                                  "lastMessage": "Waiting for 2 instances to start"}})"),
       {}},
      {"running",
       WorkloadKind::kIpuJob,
       {{"status", {{"state", "Running"}, {"lastMessage", "1 of 2 instances running"}}}},
       {Phase::kRunning, "", ""}},
      {"completed",
       WorkloadKind::kIpuJob,
       {{"status",
         {{"state", "Completed"},
          {"lastMessage", "All instances done"},
          {"conditions",
           {condition("Created", "True", "IPUJobCreated", "IPUJob x is created"),
            condition("Completed", "True", "IPUJobCompleted", "All instances done")}}}}},
       {Phase::kSucceeded, "IPUJobCompleted", "All instances done"}},
      {"failed worker",
       WorkloadKind::kIpuJob,
       {{"status",
         {{"state", "Failed"},
          {"lastMessage", "pod x-worker-1 failed with exit code 2"},
          {"conditions",
           {condition("Running", "False", "WorkerFailed", "pod x-worker-1 failed"),
            condition("Failed", "True", "WorkerFailed",
                      "pod x-worker-1 failed with exit code 2")}}}}},
       {Phase::kFailed, "WorkerFailed", "pod x-worker-1 failed with exit code 2"}},
      {"failed without conditions",
       WorkloadKind::kIpuJob,
       {{"status", {{"state", "Failed"}, {"lastMessage", "partition lost"}}}},
       {Phase::kFailed, "Failed", "partition lost"}},
      {"unknown state", WorkloadKind::kIpuJob, {{"status", {{"state", "Restarting"}}}}, {}},
      {"hostile", WorkloadKind::kIpuJob, {{"status", {{"state", {1, 2}}}}}, {}},
  };
  expectStates(cases);
}

struct StartCase {
  std::string name;
  std::vector<json> pods;
  std::int64_t expectedPods;
  StartCheck want;
};

// Verifies when a unit counts as started and which stuck pod explains a unit that has not.
TEST(StartCheck, Table) {
  const std::string noNodes =
      "0/7 nodes are available: 7 Insufficient nvidia.com/gpu. preemption: 0/7 nodes are "
      "available: 7 No preemption victims found for incoming pod.";
  const std::vector<StartCase> cases = {
      {"no pods", {}, 1, {false, "PodsNotStarted", "0 of 1 pods started"}},
      {"nothing expected", {}, 0, {true, "", ""}},
      {"container creating is not stuck",
       {PodBuilder("x-0").phase("Pending").waiting("benchmark", "ContainerCreating").obj()},
       1,
       {false, "PodsNotStarted", "0 of 1 pods started"}},
      {"pod initializing is not stuck",
       {PodBuilder("x-0")
            .phase("Pending")
            .running("fetch")
            .waiting("benchmark", "PodInitializing")
            .obj()},
       1,
       {false, "PodsNotStarted", "0 of 1 pods started"}},
      {"unschedulable",
       {PodBuilder("x-0").unschedulable(noNodes).obj()},
       1,
       {false, "Unschedulable", "pod x-0: " + noNodes}},
      {"image pull back-off",
       {PodBuilder("x-0")
            .phase("Pending")
            .waiting("benchmark", "ImagePullBackOff", "Back-off pulling image \"r/absent:1\"")
            .obj()},
       1,
       {false, "ImagePullBackOff",
        "pod x-0, container benchmark: Back-off pulling image \"r/absent:1\""}},
      {"image pull error",
       {PodBuilder("x-0")
            .phase("Pending")
            .waiting("benchmark", "ErrImagePull", "failed to pull image \"r/absent:1\"")
            .obj()},
       1,
       {false, "ErrImagePull",
        "pod x-0, container benchmark: failed to pull image \"r/absent:1\""}},
      {"crash loop in a running pod",
       {PodBuilder("x-0")
            .phase("Running")
            .waiting("benchmark", "CrashLoopBackOff",
                     "back-off 10s restarting failed container=benchmark")
            .obj()},
       1,
       {false, "CrashLoopBackOff",
        "pod x-0, container benchmark: back-off 10s restarting failed container=benchmark"}},
      {"config error without a message",
       {PodBuilder("x-0")
            .phase("Pending")
            .waiting("benchmark", "CreateContainerConfigError")
            .obj()},
       1,
       {false, "CreateContainerConfigError",
        "pod x-0, container benchmark: CreateContainerConfigError"}},
      {"stuck init container",
       {PodBuilder("x-0").phase("Pending").waiting("fetch", "ErrImagePull", "", true).obj()},
       1,
       {false, "ErrImagePull", "pod x-0, container fetch: ErrImagePull"}},
      {"unschedulable wins over image pull and crash loop",
       {PodBuilder("x-0").phase("Running").waiting("benchmark", "CrashLoopBackOff").obj(),
        PodBuilder("x-1").phase("Pending").waiting("benchmark", "ImagePullBackOff").obj(),
        PodBuilder("x-2").unschedulable(noNodes).obj()},
       3,
       {false, "Unschedulable", "pod x-2: " + noNodes}},
      {"image pull wins over crash loop",
       {PodBuilder("x-0").phase("Running").waiting("benchmark", "CrashLoopBackOff").obj(),
        PodBuilder("x-1").phase("Pending").waiting("benchmark", "ImagePullBackOff").obj()},
       2,
       {false, "ImagePullBackOff", "pod x-1, container benchmark: ImagePullBackOff"}},
      {"crash loop wins over other reasons",
       {PodBuilder("x-0").phase("Pending").waiting("benchmark", "CreateContainerError").obj(),
        PodBuilder("x-1").phase("Running").waiting("benchmark", "CrashLoopBackOff").obj()},
       2,
       {false, "CrashLoopBackOff", "pod x-1, container benchmark: CrashLoopBackOff"}},
      {"equal reasons: the first pod by name",
       {PodBuilder("x-1").unschedulable("b").obj(), PodBuilder("x-0").unschedulable("a").obj()},
       2,
       {false, "Unschedulable", "pod x-0: a"}},
      {"a stuck pod holds back a unit with enough running pods",
       {PodBuilder("x-0").phase("Running").running("benchmark").obj(),
        PodBuilder("x-1").phase("Running").running("benchmark").obj(),
        PodBuilder("x-2").unschedulable("c").obj()},
       2,
       {false, "Unschedulable", "pod x-2: c"}},
      {"multi-node, one pod missing",
       {PodBuilder("x-0").phase("Running").running("benchmark").obj()},
       2,
       {false, "PodsNotStarted", "1 of 2 pods started"}},
      {"multi-node, all running",
       {PodBuilder("x-0").phase("Running").running("benchmark").obj(),
        PodBuilder("x-1").phase("Running").running("benchmark").obj()},
       2,
       {true, "", ""}},
      {"terminal pods have started",
       {PodBuilder("x-0").phase("Succeeded").terminated("benchmark", 0, "Completed").obj(),
        PodBuilder("x-1").phase("Failed").terminated("benchmark", 1, "Error").obj()},
       2,
       {true, "", ""}},
      {"a deleted pod does not count",
       {PodBuilder("x-0").phase("Running").running("benchmark").deleting().obj()},
       1,
       {false, "PodsNotStarted", "0 of 1 pods started"}},
      {"hostile pods",
       {json("pod"), json::array(), {{"status", {{"conditions", {1, "PodScheduled"}}}}}},
       1,
       {false, "PodsNotStarted", "0 of 1 pods started"}},
  };
  for (const StartCase& c : cases) {
    const StartCheck got = startCheck(c.pods, c.expectedPods);
    EXPECT_EQ(got.started, c.want.started) << c.name;
    EXPECT_EQ(got.reason, c.want.reason) << c.name;
    EXPECT_EQ(got.message, c.want.message) << c.name;
  }
}

}  // namespace
}  // namespace hetbench::benchmark
