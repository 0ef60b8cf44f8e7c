#pragma once

// The typed model of a BenchmarkRun: what the controller, the exporter, the history baselines,
// the schedule controller and the CLI read of a run object, and the status the controller
// writes. Nothing else walks a run's status JSON. Pure: no I/O, no clock.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/benchmark/plan.h"
#include "hetbench/benchmark/render.h"
#include "hetbench/common/clock.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/reference.h"
#include "hetbench/results/summary.h"

namespace hetbench::benchmark {

/// The phase of one (trial, repetition) unit, as `status.trials[].phase` spells it. Queued: its
/// workload exists and waits for a Kueue queue to admit it (queue.h).
enum class UnitPhase { kPending, kQueued, kRunning, kSucceeded, kFailed, kTimedOut, kCancelled };

std::string toString(UnitPhase phase);
bool isTerminal(UnitPhase phase);
/// Queued or Running: the unit's workload exists and has not ended.
bool inFlight(UnitPhase phase);
/// Failed or TimedOut: the outcomes whose workloads follow cleanup.onFailure.
bool isFailure(UnitPhase phase);

/// What the run's status records about one unit (`status.trials[]`): the durable record that
/// survives the workload's deletion and the operator's restarts.
struct UnitRecord {
  std::int64_t trial = 0;
  std::int64_t repetition = 0;
  Params params;
  UnitPhase phase = UnitPhase::kPending;
  std::string reason;
  std::string message;
  std::string workloadApiVersion;
  std::string workloadKind;
  std::string workloadName;
  /// A Slurm unit's SlurmCluster and job id (0 until it is submitted).
  std::string slurmCluster;
  std::int64_t slurmJobId = 0;
  std::vector<std::string> nodes;
  std::optional<common::WallTime> startTime;
  std::optional<common::WallTime> completionTime;
  bool retained = false;
  std::string logDir;  // relative to the operator's log directory
  /// Pods the unit's workload runs, recorded when it starts (0: not recorded, read as 1).
  std::int64_t expectedPods = 0;
  /// What its logs gave; absent until a succeeded unit has been measured.
  std::optional<results::UnitSummary> metrics;
  std::string verdict;  // its trial's

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

/// A unit's reason, and a unit's or a condition's message, as the status keeps them: cut to
/// kMaxStatusReasonBytes and kMaxStatusMessageBytes at a rune boundary, "..." included (so
/// that a kept text is kept again unchanged).
std::string statusReason(std::string_view text);
std::string statusMessage(std::string_view text);

/// A condition of `status.conditions`, as the API conventions shape it.
struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::optional<common::WallTime> lastTransitionTime;
  std::int64_t observedGeneration = 0;

  bool operator==(const Condition&) const = default;
};

/// Sets a condition (adding it when absent), keeping lastTransitionTime when its status does
/// not change, as the API conventions ask; its reason and message as statusReason and
/// statusMessage keep them.
void setCondition(std::vector<Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string message,
                  common::WallTime now, std::int64_t observedGeneration);
/// The condition's status ("True", "False", "Unknown"), or "" when absent.
std::string conditionStatus(const std::vector<Condition>& conditions, std::string_view type);
/// A `status.conditions` array (of a run or a schedule) and back; entries without a type are
/// dropped. Never throws.
nlohmann::json toJson(const std::vector<Condition>& conditions);
std::vector<Condition> conditionsFromJson(const nlohmann::json& conditions);

/// A fromHistory baseline as a judged trial keeps it, so that its verdict does not move when
/// later runs finish: the value (absent while there was too little history), how it was found,
/// and the runs it came from.
struct Baseline {
  std::optional<double> value;
  std::string basis;
  std::vector<std::string> runs;

  bool operator==(const Baseline&) const = default;
};

/// One metric of a judged trial over its succeeded repetitions.
struct TrialMetric {
  results::MetricStats stats;
  std::string unit;

  bool operator==(const TrialMetric&) const = default;
};

/// One judged trial (`status.results[]`).
struct TrialResult {
  std::int64_t trial = 0;
  Params parameters;
  results::Verdict verdict = results::Verdict::kNoReference;
  std::int64_t repetitions = 0;
  std::map<std::string, TrialMetric> metrics;
  std::vector<results::MetricCheck> checks;
  /// Why the trial is Invalid; "" otherwise.
  std::string invalid = {};
  /// Only for runs with fromHistory references: the baselines by metric.
  std::optional<std::map<std::string, Baseline>> baselines;

  bool operator==(const TrialResult&) const = default;
};

/// A BenchmarkRun's status.
struct RunStatus {
  std::string phase;  // "" until the controller first writes it
  std::optional<std::int64_t> observedGeneration;
  std::optional<std::int64_t> trialsTotal;
  std::optional<std::int64_t> trialsDone;
  std::string progress;
  std::optional<common::WallTime> startTime;
  std::optional<common::WallTime> completionTime;
  std::vector<UnitRecord> trials;
  std::vector<TrialResult> results;
  std::optional<results::Verdict> verdict;
  std::optional<double> latestEffectiveThroughput;
  std::vector<Condition> conditions;

  bool operator==(const RunStatus&) const = default;
};

nlohmann::json toJson(const RunStatus& status);
/// Reads a status written by toJson; malformed members read as absent. Never throws.
RunStatus runStatusFromJson(const nlohmann::json& json);

/// "Pass", ... as status.verdict spells it; nullopt for anything else.
std::optional<results::Verdict> verdictFromString(const std::string& text);

/// A BenchmarkRun object as the operator and its clients read it.
struct Run {
  RunRef ref;
  std::int64_t generation = 0;
  std::optional<common::WallTime> creationTime;
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::vector<std::string> finalizers;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  nlohmann::json spec;  // as the user wrote it; validate.h reads it
  /// The spec the controller accepted (annotation kAcceptedSpecAnnotation), as text; "" before.
  std::string acceptedSpecText;
  RunStatus status;

  bool hasFinalizer(std::string_view finalizer) const;
  /// spec.suspend, the one field that may change once the run is accepted.
  bool suspended() const;
};

/// Reads a BenchmarkRun object; never throws, whatever the JSON.
Run readRun(const nlohmann::json& object);

/// The spec without `suspend`: what must not change once the run is accepted.
nlohmann::json frozenSpec(nlohmann::json spec);

}  // namespace hetbench::benchmark
