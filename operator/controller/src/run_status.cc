#include "hetbench/controller/run_status.h"

#include <algorithm>

#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"

namespace hetbench::controller {
namespace {

using common::intMember;
using common::stringMember;
using nlohmann::json;

constexpr std::pair<UnitPhase, const char*> kPhaseNames[] = {
    {UnitPhase::kPending, "Pending"},     {UnitPhase::kRunning, "Running"},
    {UnitPhase::kSucceeded, "Succeeded"}, {UnitPhase::kFailed, "Failed"},
    {UnitPhase::kTimedOut, "TimedOut"},   {UnitPhase::kCancelled, "Cancelled"},
};

}  // namespace

std::string toString(UnitPhase phase) {
  for (const auto& [p, name] : kPhaseNames)
    if (p == phase) return name;
  return "Pending";
}

bool isTerminal(UnitPhase phase) {
  return phase != UnitPhase::kPending && phase != UnitPhase::kRunning;
}

bool isFailure(UnitPhase phase) {
  return phase == UnitPhase::kFailed || phase == UnitPhase::kTimedOut;
}

json toJson(const UnitRecord& unit) {
  json out = {{"trial", unit.trial},
              {"repetition", unit.repetition},
              {"parameters", unit.params},
              {"phase", toString(unit.phase)}};
  if (!unit.reason.empty()) out["reason"] = unit.reason;
  if (!unit.message.empty()) out["message"] = unit.message;
  if (!unit.workloadName.empty()) {
    out["workload"] = {{"apiVersion", unit.workloadApiVersion},
                       {"kind", unit.workloadKind},
                       {"name", unit.workloadName}};
  }
  if (!unit.nodes.empty()) out["nodes"] = unit.nodes;
  if (unit.startTime) out["startTime"] = common::formatRfc3339(*unit.startTime);
  if (unit.completionTime) out["completionTime"] = common::formatRfc3339(*unit.completionTime);
  if (unit.retained) out["retained"] = true;
  if (!unit.logDir.empty()) out["logDir"] = unit.logDir;
  if (unit.metrics.is_object() && !unit.metrics.empty()) out["metrics"] = unit.metrics;
  if (!unit.verdict.empty()) out["verdict"] = unit.verdict;
  return out;
}

UnitRecord unitFromJson(const json& in) {
  UnitRecord unit;
  if (!in.is_object()) return unit;
  unit.trial = intMember(in, "trial");
  unit.repetition = intMember(in, "repetition");
  if (auto it = in.find("parameters"); it != in.end() && it->is_object()) {
    for (const auto& [key, value] : it->items())
      if (value.is_string()) unit.params[key] = value.get<std::string>();
  }
  const std::string phase = stringMember(in, "phase");
  for (const auto& [p, name] : kPhaseNames)
    if (phase == name) unit.phase = p;
  unit.reason = stringMember(in, "reason");
  unit.message = stringMember(in, "message");
  if (auto it = in.find("workload"); it != in.end() && it->is_object()) {
    unit.workloadApiVersion = stringMember(*it, "apiVersion");
    unit.workloadKind = stringMember(*it, "kind");
    unit.workloadName = stringMember(*it, "name");
  }
  if (auto it = in.find("nodes"); it != in.end() && it->is_array()) {
    for (const json& node : *it)
      if (node.is_string()) unit.nodes.push_back(node.get<std::string>());
  }
  unit.startTime = common::timeMember(in, "startTime");
  unit.completionTime = common::timeMember(in, "completionTime");
  unit.retained = in.value("retained", json(false)).is_boolean() && in.value("retained", false);
  unit.logDir = stringMember(in, "logDir");
  if (auto it = in.find("metrics"); it != in.end() && it->is_object()) unit.metrics = *it;
  unit.verdict = stringMember(in, "verdict");
  return unit;
}

bool awaitsMetrics(const UnitRecord& unit) {
  return unit.phase == UnitPhase::kSucceeded && !unit.metrics.is_object();
}

std::string runPhase(const std::vector<UnitRecord>& units, bool suspended, bool measured) {
  const bool anyRunning = std::any_of(units.begin(), units.end(), [](const UnitRecord& u) {
    return u.phase == UnitPhase::kRunning;
  });
  if (suspended && !anyRunning) return "Cancelled";
  const bool allTerminal = std::all_of(units.begin(), units.end(),
                                       [](const UnitRecord& u) { return isTerminal(u.phase); });
  if (allTerminal) {
    if (std::any_of(units.begin(), units.end(),
                    [](const UnitRecord& u) { return u.phase == UnitPhase::kCancelled; }))
      return "Cancelled";
    // A succeeded unit's metrics may yet fail it: the run is not over until they are read.
    if (measured && std::any_of(units.begin(), units.end(), awaitsMetrics)) return "Running";
    const bool anyFailed = std::any_of(units.begin(), units.end(),
                                       [](const UnitRecord& u) { return isFailure(u.phase); });
    return anyFailed ? "Failed" : "Succeeded";
  }
  const bool anyStarted = std::any_of(units.begin(), units.end(), [](const UnitRecord& u) {
    return u.phase != UnitPhase::kPending;
  });
  return anyStarted ? "Running" : "Pending";
}

void setCondition(json& status, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& message, common::WallTime now,
                  std::int64_t observedGeneration) {
  if (!status.contains("conditions") || !status["conditions"].is_array())
    status["conditions"] = json::array();
  json& conditions = status["conditions"];
  auto it = std::find_if(conditions.begin(), conditions.end(), [&](const json& c) {
    return c.is_object() && stringMember(c, "type") == type;
  });
  std::string transition = common::formatRfc3339(now);
  if (it != conditions.end() && stringMember(*it, "status") == value) {
    const std::string previous = stringMember(*it, "lastTransitionTime");
    if (!previous.empty()) transition = previous;
  }
  json condition = {{"type", type},
                    {"status", value},
                    {"reason", reason},
                    {"message", message},
                    {"lastTransitionTime", transition},
                    {"observedGeneration", observedGeneration}};
  if (it != conditions.end()) {
    *it = std::move(condition);
  } else {
    conditions.push_back(std::move(condition));
  }
}

std::string conditionStatus(const json& status, const std::string& type) {
  auto it = status.find("conditions");
  if (it == status.end() || !it->is_array()) return "";
  for (const json& c : *it)
    if (c.is_object() && stringMember(c, "type") == type) return stringMember(c, "status");
  return "";
}

}  // namespace hetbench::controller
