#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/plan.h"
#include "hetbench/common/clock.h"

namespace hetbench::controller {

/// The phase of one (trial, repetition) unit, as `status.trials[].phase` spells it.
enum class UnitPhase { kPending, kRunning, kSucceeded, kFailed, kTimedOut, kCancelled };

std::string toString(UnitPhase phase);
bool isTerminal(UnitPhase phase);
/// Failed or TimedOut: the outcomes whose workloads follow cleanup.onFailure.
bool isFailure(UnitPhase phase);

/// What the run's status records about one unit: the durable record that survives the
/// workload's deletion and the operator's restarts.
struct UnitRecord {
  std::int64_t trial = 0;
  std::int64_t repetition = 0;
  benchmark::Params params;
  UnitPhase phase = UnitPhase::kPending;
  std::string reason;
  std::string message;
  std::string workloadApiVersion;
  std::string workloadKind;
  std::string workloadName;
  std::vector<std::string> nodes;
  std::optional<common::WallTime> startTime;
  std::optional<common::WallTime> completionTime;
  bool retained = false;
  std::string logDir;  // relative to the operator's log directory
  /// Filled in by the results module; carried through unchanged here.
  nlohmann::json metrics;
  std::string verdict;

  bool operator==(const UnitRecord&) const = default;
};

nlohmann::json toJson(const UnitRecord& unit);
/// Reads a record written by toJson; unknown or malformed fields are left at their defaults
/// (a record is only ever written by the operator, but a user may edit status by hand).
UnitRecord unitFromJson(const nlohmann::json& json);

/// A succeeded unit whose metrics have not been read from its logs yet.
bool awaitsMetrics(const UnitRecord& unit);

/// The run's phase from its units: Cancelled once suspended and nothing runs; Failed or
/// Succeeded once every unit is terminal (Failed if any failed or timed out) and, when units
/// are `measured`, none awaits its metrics (which may yet fail it); Running once a unit has
/// started; else Pending.
std::string runPhase(const std::vector<UnitRecord>& units, bool suspended, bool measured = false);

/// Sets a condition in a `status.conditions` array (creating the array), keeping
/// lastTransitionTime when the status does not change, as the API conventions ask.
void setCondition(nlohmann::json& status, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& message, common::WallTime now,
                  std::int64_t observedGeneration);
/// The condition's status ("True", "False", "Unknown"), or "" when absent.
std::string conditionStatus(const nlohmann::json& status, const std::string& type);

}  // namespace hetbench::controller
