#include "hetbench/benchmark/queue.h"

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/duration.h"
#include "json_fields.h"

namespace hetbench::benchmark {
namespace {

using internal::member;
using internal::stringMember;
using internal::trueCondition;
using nlohmann::json;

bool hasAdmissionGate(const json& podSpec) {
  const json& gates = member(podSpec, "schedulingGates");
  if (!gates.is_array()) return false;
  for (const json& gate : gates)
    if (stringMember(gate, "name") == kAdmissionGate) return true;
  return false;
}

}  // namespace

bool isQueueName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto lowerAlnum = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); };
  if (!lowerAlnum(name.front()) || !lowerAlnum(name.back())) return false;
  for (char c : name) {
    if (!lowerAlnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

bool queueable(WorkloadKind kind) { return kind != WorkloadKind::kIpuJob; }

void submitToQueue(RenderedUnit& unit, const std::string& queue) {
  json& workload = unit.workload;
  json& labels = workload["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  labels[std::string(kQueueNameLabel)] = queue;
  if (unit.kind == WorkloadKind::kJob) {
    workload["spec"]["suspend"] = true;
    return;
  }
  json& spec = workload["spec"];
  if (!hasAdmissionGate(spec)) {
    json& gates = spec["schedulingGates"];
    if (!gates.is_array()) gates = json::array();
    gates.push_back({{"name", std::string(kAdmissionGate)}});
  }
}

QueueState queueState(WorkloadKind kind, const json& object) {
  const json& metadata = member(object, "metadata");
  if (kind == WorkloadKind::kIpuJob ||
      stringMember(member(metadata, "labels"), kQueueNameLabel).empty()) {
    return {};
  }
  const json& status = member(object, "status");
  if (kind == WorkloadKind::kJob) {
    const bool finished = trueCondition(status, "Complete").is_object() ||
                          trueCondition(status, "Failed").is_object();
    if (!finished && member(member(object, "spec"), "suspend") == json(true)) {
      return {QueueStage::kWaiting, std::nullopt, ""};
    }
    return {QueueStage::kAdmitted, common::timeMember(status, "startTime"), ""};
  }
  if (const json& stopped = trueCondition(status, kTerminationTargetCondition);
      stopped.is_object()) {
    std::string why = stringMember(stopped, "reason");
    const std::string detail = stringMember(stopped, "message");
    if (!detail.empty()) why += why.empty() ? detail : ": " + detail;
    return {QueueStage::kStopped, std::nullopt, why};
  }
  if (hasAdmissionGate(member(object, "spec"))) return {QueueStage::kWaiting, std::nullopt, ""};
  return {QueueStage::kAdmitted, std::nullopt, ""};
}

QueueDecision checkQueue(UnitPhase phase, const QueueState& state, common::WallTime queuedSince,
                         std::chrono::nanoseconds queueTimeout, common::WallTime now) {
  if (state.stage == QueueStage::kNone || !inFlight(phase)) return {};
  if (state.stage == QueueStage::kStopped) {
    return {UnitEnd{UnitPhase::kFailed, std::string(reason::kEvicted),
                    "Kueue stopped the pod" +
                        (state.message.empty() ? std::string() : " (" + state.message + ")")},
            std::nullopt, std::nullopt};
  }
  if (phase == UnitPhase::kRunning) {
    if (state.stage != QueueStage::kWaiting) return {};
    return {UnitEnd{UnitPhase::kFailed, std::string(reason::kEvicted),
                    "Kueue suspended the Job after admitting it (preempted, or its admission was "
                    "withdrawn); its pods were stopped"},
            std::nullopt, std::nullopt};
  }
  if (state.stage == QueueStage::kAdmitted) {
    return {std::nullopt, std::nullopt, state.admittedAt.value_or(now)};
  }
  const common::WallTime deadline = queuedSince + queueTimeout;
  if (now < deadline) return {std::nullopt, deadline, std::nullopt};
  return {UnitEnd{UnitPhase::kFailed, std::string(reason::kQueueTimeout),
                  "not admitted by its queue within queueTimeout " +
                      common::formatDuration(queueTimeout)},
          std::nullopt, std::nullopt};
}

}  // namespace hetbench::benchmark
