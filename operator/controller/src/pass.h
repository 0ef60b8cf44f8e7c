#pragma once

// One reconcile of one BenchmarkRun (Pass), shared by reconciler.cc (acceptance, finalizer,
// observation), pass_units.cc (each unit's lifecycle and its workload) and pass_results.cc
// (metrics, verdicts and the status). Internal to the controller.

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "hetbench/benchmark/completion.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/retention.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/controller/measure.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/logs/collector.h"

namespace hetbench::controller::detail {

using benchmark::WorkloadKind;
using common::member;
using common::stringMember;
using kube::EventType;
using nlohmann::json;

constexpr std::size_t kMaxCausesInMessage = 5;

inline std::string label(const json& object, std::string_view key) {
  return stringMember(member(member(object, "metadata"), "labels"), std::string(key).c_str());
}

inline bool terminating(const json& object) {
  return !stringMember(member(object, "metadata"), "deletionTimestamp").empty();
}

inline bool ownedBy(const json& object, const std::string& uid) {
  const json& refs = member(member(object, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const json& ref) { return stringMember(ref, "uid") == uid; });
}

inline std::optional<common::WallTime> creationTime(const json& object) {
  return common::timeMember(member(object, "metadata"), "creationTimestamp");
}

inline std::optional<WorkloadKind> kindFromName(const std::string& kind) {
  if (kind == "Pod") return WorkloadKind::kPod;
  if (kind == "Job") return WorkloadKind::kJob;
  if (kind == "IPUJob") return WorkloadKind::kIpuJob;
  return std::nullopt;
}

/// Neither ended by itself nor stopped (a suspended Job is stopped).
inline bool stillRuns(WorkloadKind kind, const json& object) {
  const benchmark::WorkloadState::Phase phase = benchmark::workloadState(kind, object).phase;
  if (phase == benchmark::WorkloadState::Phase::kSucceeded ||
      phase == benchmark::WorkloadState::Phase::kFailed) {
    return false;
  }
  return !(kind == WorkloadKind::kJob && member(member(object, "spec"), "suspend") == json(true));
}

inline std::string describeParams(const benchmark::Params& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (!out.empty()) out += ", ";
    out += key + "=" + value;
  }
  return out;
}

inline std::string unitLabel(const UnitRecord& unit) {
  std::string out =
      "trial " + std::to_string(unit.trial) + " repetition " + std::to_string(unit.repetition);
  if (!unit.params.empty()) out += " (" + describeParams(unit.params) + ")";
  return out;
}

/// "trial 1 repetition 0 (gpus=4) Failed: Unschedulable (message)" for the first failed unit.
inline std::string firstFailure(const std::vector<UnitRecord>& units) {
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return isFailure(u.phase); });
  if (failed == units.end()) return "";
  return unitLabel(*failed) + " " + toString(failed->phase) + ": " + failed->reason +
         (failed->message.empty() ? "" : " (" + failed->message + ")");
}

/// "spec.x: msg; spec.y: msg" from an Invalid status, bounded.
inline std::string describeInvalid(const common::Status& status) {
  if (status.causes().empty()) return status.message();
  std::string out;
  std::size_t shown = 0;
  for (const common::StatusCause& cause : status.causes()) {
    if (shown == kMaxCausesInMessage) {
      out += "; and " + std::to_string(status.causes().size() - shown) + " more";
      break;
    }
    if (!out.empty()) out += "; ";
    out += cause.field.empty() ? cause.message : cause.field + ": " + cause.message;
    ++shown;
  }
  return out;
}

/// The spec without `suspend`: what must not change once the run is accepted.
inline json frozenSpec(json spec) {
  if (spec.is_object()) spec.erase("suspend");
  return spec;
}

inline bool writeFileAtomically(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return false;
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return false;
  }
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

/// The metrics a unit must report: the required spec.metrics, every metric with a reference
/// and, for hetbench's own benchmarks read without patterns, the effective throughput.
inline std::vector<std::string> requiredMetrics(const benchmark::RunSpec& spec,
                                                const std::vector<results::MetricSpec>& specs,
                                                const results::References& references) {
  std::vector<std::string> out = results::requiredMetrics(specs);
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& [name, reference] : references) add(name);
  if (spec.benchmark != benchmark::Benchmark::kCustom && specs.empty())
    add(std::string(results::kEffectiveThroughput));
  return out;
}

struct PendingEvent {
  EventType type;
  std::string reason;
  std::string message;
};

/// One reconcile of one run: the observed state, the decisions and the status to write.
class Pass {
 public:
  Pass(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
       const ReconcilerOptions& options, logs::LogTracker* logs, json run)
      : client_(client),
        cache_(cache),
        clock_(clock),
        options_(options),
        logs_(logs),
        run_(std::move(run)) {
    const json& meta = run_["metadata"];
    ref_ = {stringMember(meta, "namespace"), stringMember(meta, "name"), stringMember(meta, "uid")};
    id_ = benchmark::runId(ref_.uid);
    generation_ = meta.value("generation", json(0)).is_number_integer()
                      ? meta["generation"].get<std::int64_t>()
                      : 0;
    now_ = clock_.now();
  }

  common::Result<ReconcileResult> execute();
  const std::vector<PendingEvent>& events() const { return events_; }
  const json& run() const { return run_; }
  std::string finishedPhase() const { return finishedPhase_; }

 private:
  common::Result<ReconcileResult> finalize();
  common::Result<ReconcileResult> reject(const std::string& reason, const std::string& message);
  common::Status ensureAccepted(const json& accepted);
  void observe();
  const json* workloadOf(const UnitRecord& unit) const;
  common::Status advance(UnitRecord& unit);
  common::Status start(UnitRecord& unit, const benchmark::Unit& planned);
  common::Status stop(UnitRecord& unit, bool failure);
  common::Status cleanUp(UnitRecord& unit, bool endRecorded);
  common::Status applyRetention(std::vector<UnitRecord>& units);
  common::Status removeWorkload(WorkloadKind kind, const std::string& name);
  void finish(UnitRecord& unit, UnitPhase phase, std::string reason, std::string message);
  std::vector<std::string> nodesOf(const UnitRecord& unit) const;
  std::vector<json> podsOf(const UnitRecord& unit) const;
  /// Follows the logs of the unit's pods; true once all of them are complete on disk.
  bool collectLogs(const UnitRecord& unit);
  /// Whether units are measured: only with log collection into a log directory.
  bool measuring() const { return logs_ != nullptr && !options_.logDir.empty(); }
  std::string logDirOf(const UnitRecord& unit) const {
    return ref_.ns + "/" + ref_.name + "/" + std::to_string(unit.trial) + "-" +
           std::to_string(unit.repetition);
  }
  /// Reads a succeeded unit's metrics from its kept logs; a malformed metrics line or a
  /// required metric the logs lack fails the unit.
  void measure(UnitRecord& unit);
  /// A Warning Event for each trial whose verdict has just become Regressed.
  void noteRegressions(const json& oldStatus, json& newStatus);
  /// status.results (per judged trial), status.verdict, latestEffectiveThroughput, Regressed.
  void addResults(json& status, const std::vector<UnitRecord>& units) const;
  json buildStatus(const std::vector<UnitRecord>& units) const;
  void event(EventType type, std::string reason, std::string message) {
    events_.push_back({type, std::move(reason), std::move(message)});
  }

  kube::KubeClient& client_;
  const RunCache& cache_;
  const common::Clock& clock_;
  const ReconcilerOptions& options_;
  logs::LogTracker* logs_;
  json run_;
  benchmark::RunRef ref_;
  std::string id_;
  std::int64_t generation_ = 0;
  common::WallTime now_;
  benchmark::RunSpec spec_;
  std::vector<results::MetricSpec> metricSpecs_;
  results::References references_;
  std::vector<std::string> required_;
  bool suspend_ = false;
  std::vector<json> pods_;
  std::map<std::string, json> jobs_;
  std::map<std::string, json> ipuJobs_;
  std::map<std::string, json> podsByName_;
  std::optional<common::WallTime> nextDeadline_;
  std::vector<PendingEvent> events_;
  std::string finishedPhase_;
};

inline void noteDeadline(std::optional<common::WallTime>& next, common::WallTime at) {
  if (!next || at < *next) next = at;
}

}  // namespace hetbench::controller::detail
