#include "hetbench/benchmark/completion.h"

#include <optional>
#include <tuple>

#include "json_fields.h"

namespace hetbench::benchmark {
namespace {

using internal::intMember;
using internal::member;
using internal::stringMember;
using internal::trueCondition;
using nlohmann::json;
using Phase = WorkloadState::Phase;

// The container that explains a failed pod: the first one that exited non-zero, else the
// first that terminated at all; init containers after the others, as a failed init container
// leaves the others waiting.
std::optional<WorkloadState> terminatedContainer(const json& status) {
  struct List {
    const char* field;
    const char* noun;
  };
  std::optional<WorkloadState> anyExit;
  for (const List& list : {List{"containerStatuses", "container "},
                           List{"initContainerStatuses", "init container "}}) {
    const json& statuses = member(status, list.field);
    if (!statuses.is_array()) continue;
    for (const json& cs : statuses) {
      const json& terminated = member(member(cs, "state"), "terminated");
      if (!terminated.is_object()) continue;
      const std::int64_t code = intMember(terminated, "exitCode");
      const std::string reason = stringMember(terminated, "reason");
      std::string message =
          list.noun + stringMember(cs, "name") + " exited with code " + std::to_string(code);
      const std::string detail = stringMember(terminated, "message");
      if (!detail.empty()) message += ": " + detail;
      WorkloadState state{Phase::kFailed, reason.empty() ? "Error" : reason, message};
      if (code != 0) return state;
      if (!anyExit) anyExit = std::move(state);
    }
  }
  return anyExit;
}

WorkloadState podState(const json& pod) {
  const json& status = member(pod, "status");
  const std::string phase = stringMember(status, "phase");
  if (phase == "Succeeded") return {Phase::kSucceeded, "Completed", ""};
  // Unknown: the node stopped reporting; the pod was placed and may still run.
  if (phase == "Running" || phase == "Unknown") return {Phase::kRunning, "", ""};
  if (phase != "Failed") return {};
  // The kubelet's own verdict (DeadlineExceeded, Evicted, ...) outranks the containers'.
  const std::string reason = stringMember(status, "reason");
  if (!reason.empty()) return {Phase::kFailed, reason, stringMember(status, "message")};
  if (std::optional<WorkloadState> container = terminatedContainer(status)) return *container;
  const std::string message = stringMember(status, "message");
  return {Phase::kFailed, "Failed", message.empty() ? "pod failed" : message};
}

WorkloadState jobState(const json& job) {
  const json& status = member(job, "status");
  if (const json& c = trueCondition(status, "Complete"); c.is_object()) {
    const std::string reason = stringMember(c, "reason");
    return {Phase::kSucceeded, reason.empty() ? "Completed" : reason, stringMember(c, "message")};
  }
  if (const json& c = trueCondition(status, "Failed"); c.is_object()) {
    const std::string reason = stringMember(c, "reason");
    return {Phase::kFailed, reason.empty() ? "Failed" : reason, stringMember(c, "message")};
  }
  // FailureTarget and SuccessCriteriaMet come first; Failed or Complete follow once no pod runs.
  const bool decided = trueCondition(status, "FailureTarget").is_object() ||
                       trueCondition(status, "SuccessCriteriaMet").is_object();
  const bool hadPods = intMember(status, "ready") > 0 || intMember(status, "succeeded") > 0 ||
                       intMember(status, "failed") > 0;
  if (decided || hadPods) return {Phase::kRunning, "", ""};
  return {};
}

WorkloadState ipuJobState(const json& job) {
  const json& status = member(job, "status");
  const std::string state = stringMember(status, "state");
  const std::string lastMessage = stringMember(status, "lastMessage");
  if (state == "Completed") {
    const std::string reason = stringMember(trueCondition(status, "Completed"), "reason");
    return {Phase::kSucceeded, reason.empty() ? "Completed" : reason, lastMessage};
  }
  if (state == "Failed") {
    const json& c = trueCondition(status, "Failed");
    const std::string reason = stringMember(c, "reason");
    const std::string message = stringMember(c, "message");
    return {Phase::kFailed, reason.empty() ? "Failed" : reason,
            message.empty() ? lastMessage : message};
  }
  if (state == "Running") return {Phase::kRunning, "", ""};
  return {};
}

// Why a pod cannot start, ranked: the lower the rank, the more it explains.
struct Stuck {
  int rank = 0;
  std::string pod;
  std::string reason;
  std::string message;
};

int waitingRank(const std::string& reason) {
  if (reason == "ErrImagePull" || reason == "ImagePullBackOff") return 1;
  if (reason == "CrashLoopBackOff") return 2;
  return 3;
}

// The pod's most telling stuck reason, if it has one.
std::optional<Stuck> stuckReason(const json& pod) {
  const std::string name = stringMember(member(pod, "metadata"), "name");
  const json& status = member(pod, "status");
  const json& conditions = member(status, "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (stringMember(c, "type") != "PodScheduled" || stringMember(c, "status") != "False") {
        continue;
      }
      const std::string reason = stringMember(c, "reason");
      const std::string detail = stringMember(c, "message");
      return Stuck{0, name, reason.empty() ? "Unschedulable" : reason,
                   "pod " + name + ": " + (detail.empty() ? "not scheduled" : detail)};
    }
  }
  std::optional<Stuck> best;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const json& statuses = member(status, list);
    if (!statuses.is_array()) continue;
    for (const json& cs : statuses) {
      const json& waiting = member(member(cs, "state"), "waiting");
      const std::string reason = stringMember(waiting, "reason");
      if (reason.empty() || reason == "ContainerCreating" || reason == "PodInitializing") continue;
      const std::string detail = stringMember(waiting, "message");
      Stuck stuck{waitingRank(reason), name, reason,
                  "pod " + name + ", container " + stringMember(cs, "name") + ": " +
                      (detail.empty() ? reason : detail)};
      if (!best || stuck.rank < best->rank) best = std::move(stuck);
    }
  }
  return best;
}

}  // namespace

WorkloadState workloadState(WorkloadKind kind, const nlohmann::json& object) {
  switch (kind) {
    case WorkloadKind::kPod:
      return podState(object);
    case WorkloadKind::kJob:
      return jobState(object);
    case WorkloadKind::kIpuJob:
      return ipuJobState(object);
  }
  return {};
}

StartCheck startCheck(const std::vector<nlohmann::json>& pods, std::int64_t expectedPods) {
  std::int64_t started = 0;
  std::optional<Stuck> worst;
  for (const json& pod : pods) {
    // A pod on its way out neither starts the unit nor holds it back.
    if (member(member(pod, "metadata"), "deletionTimestamp").is_string()) continue;
    const std::string phase = stringMember(member(pod, "status"), "phase");
    // A finished pod has started; what its end means is workloadState's to say.
    if (phase == "Succeeded" || phase == "Failed") {
      ++started;
      continue;
    }
    if (std::optional<Stuck> stuck = stuckReason(pod)) {
      if (!worst || std::tie(stuck->rank, stuck->pod) < std::tie(worst->rank, worst->pod)) {
        worst = std::move(stuck);
      }
      continue;
    }
    if (phase == "Running") ++started;
  }
  if (worst) return {false, worst->reason, worst->message};
  if (started >= expectedPods) return {true, "", ""};
  return {false, "PodsNotStarted",
          std::to_string(started) + " of " + std::to_string(expectedPods) + " pods started"};
}

}  // namespace hetbench::benchmark
