#include "hetbench/benchmark/run.h"

#include <algorithm>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"

namespace hetbench::benchmark {
namespace {

using common::intMember;
using common::member;
using common::stringMember;
using common::timeMember;
using nlohmann::json;

constexpr std::pair<UnitPhase, const char*> kPhaseNames[] = {
    {UnitPhase::kPending, "Pending"},     {UnitPhase::kQueued, "Queued"},
    {UnitPhase::kRunning, "Running"},     {UnitPhase::kSucceeded, "Succeeded"},
    {UnitPhase::kFailed, "Failed"},       {UnitPhase::kTimedOut, "TimedOut"},
    {UnitPhase::kCancelled, "Cancelled"},
};

constexpr results::Verdict kVerdicts[] = {
    results::Verdict::kNoReference, results::Verdict::kPass,    results::Verdict::kInconclusive,
    results::Verdict::kRegressed,   results::Verdict::kInvalid, results::Verdict::kMetricMissing};

std::optional<std::int64_t> optionalInt(const json& object, std::string_view name) {
  const json& value = member(object, name);
  if (!value.is_number_integer()) return std::nullopt;
  return value.get<std::int64_t>();
}

std::optional<double> optionalNumber(const json& object, std::string_view name) {
  const json& value = member(object, name);
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

Params paramsFrom(const json& object) {
  Params params;
  if (!object.is_object()) return params;
  for (const auto& [key, value] : object.items())
    if (value.is_string()) params[key] = value.get<std::string>();
  return params;
}

std::map<std::string, std::string> stringMapFrom(const json& object) {
  std::map<std::string, std::string> out;
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items())
    if (value.is_string()) out[key] = value.get<std::string>();
  return out;
}

void putTime(json& out, const char* name, const std::optional<common::WallTime>& time) {
  if (time) out[name] = common::formatRfc3339(*time);
}

json toJson(const Condition& c) {
  json out = {{"type", c.type},
              {"status", c.status},
              {"reason", c.reason},
              {"message", c.message},
              {"observedGeneration", c.observedGeneration}};
  putTime(out, "lastTransitionTime", c.lastTransitionTime);
  return out;
}

// Reason and message are cut as the operator writes them, so that a status from before the
// bounds (or edited by hand) is written back within them.
Condition conditionFrom(const json& in) {
  return {stringMember(in, "type"),
          stringMember(in, "status"),
          statusReason(stringMember(in, "reason")),
          statusMessage(stringMember(in, "message")),
          timeMember(in, "lastTransitionTime"),
          intMember(in, "observedGeneration")};
}

json toJson(const TrialResult& r) {
  json metrics = json::object();
  for (const auto& [name, m] : r.metrics) {
    metrics[name] = {{"mean", m.stats.mean},
                     {"stddev", m.stats.stddev},
                     {"min", m.stats.min},
                     {"max", m.stats.max},
                     {"n", m.stats.n}};
    if (!m.unit.empty()) metrics[name]["unit"] = m.unit;
  }
  json out = {{"trial", r.trial},
              {"verdict", results::toString(r.verdict)},
              {"repetitions", r.repetitions},
              {"metrics", std::move(metrics)},
              {"parameters", r.parameters}};
  if (!r.invalid.empty()) out["invalid"] = r.invalid;
  if (!r.checks.empty()) {
    json checks = json::array();
    for (const results::MetricCheck& c : r.checks) {
      checks.push_back({{"metric", c.metric},
                        {"verdict", results::toString(c.verdict)},
                        {"message", c.message}});
    }
    out["checks"] = std::move(checks);
  }
  if (r.baselines) {
    json baselines = json::object();
    for (const auto& [metric, b] : *r.baselines) {
      json kept = {{"basis", b.basis}};
      if (b.value) {
        kept["value"] = *b.value;
        kept["runs"] = b.runs;
      }
      baselines[metric] = std::move(kept);
    }
    out["baselines"] = std::move(baselines);
  }
  return out;
}

TrialResult trialResultFrom(const json& in) {
  TrialResult r;
  r.trial = intMember(in, "trial");
  r.parameters = paramsFrom(member(in, "parameters"));
  r.verdict =
      verdictFromString(stringMember(in, "verdict")).value_or(results::Verdict::kNoReference);
  r.repetitions = intMember(in, "repetitions");
  r.invalid = stringMember(in, "invalid");
  if (const json& metrics = member(in, "metrics"); metrics.is_object()) {
    for (const auto& [name, m] : metrics.items()) {
      if (!member(m, "mean").is_number()) continue;
      TrialMetric metric;
      metric.stats.mean = m["mean"].get<double>();
      metric.stats.stddev = optionalNumber(m, "stddev").value_or(0);
      metric.stats.min = optionalNumber(m, "min").value_or(metric.stats.mean);
      metric.stats.max = optionalNumber(m, "max").value_or(metric.stats.mean);
      metric.stats.n = intMember(m, "n");
      metric.unit = stringMember(m, "unit");
      r.metrics.emplace(name, std::move(metric));
    }
  }
  if (const json& checks = member(in, "checks"); checks.is_array()) {
    for (const json& c : checks) {
      r.checks.push_back(
          {stringMember(c, "metric"),
           verdictFromString(stringMember(c, "verdict")).value_or(results::Verdict::kNoReference),
           stringMember(c, "message")});
    }
  }
  if (const json& baselines = member(in, "baselines"); baselines.is_object()) {
    r.baselines.emplace();
    for (const auto& [metric, kept] : baselines.items()) {
      if (!kept.is_object()) continue;
      (*r.baselines)[metric] = {optionalNumber(kept, "value"), stringMember(kept, "basis"),
                                common::stringList(member(kept, "runs"))};
    }
  }
  return r;
}

// At most `maxBytes` with the "...": a text read back from the status is then kept as it is.
std::string keepAtMost(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return std::string(text);
  return common::cutText(text, maxBytes - 3);
}

}  // namespace

std::string toString(UnitPhase phase) {
  for (const auto& [p, name] : kPhaseNames)
    if (p == phase) return name;
  return "Pending";
}

bool isTerminal(UnitPhase phase) { return phase != UnitPhase::kPending && !inFlight(phase); }

bool inFlight(UnitPhase phase) {
  return phase == UnitPhase::kQueued || phase == UnitPhase::kRunning;
}

bool isFailure(UnitPhase phase) {
  return phase == UnitPhase::kFailed || phase == UnitPhase::kTimedOut;
}

std::optional<results::Verdict> verdictFromString(const std::string& text) {
  for (results::Verdict v : kVerdicts)
    if (results::toString(v) == text) return v;
  return std::nullopt;
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
    if (!unit.slurmCluster.empty()) out["workload"]["cluster"] = unit.slurmCluster;
    if (unit.slurmJobId > 0) out["workload"]["jobId"] = unit.slurmJobId;
  }
  if (!unit.nodes.empty()) out["nodes"] = unit.nodes;
  putTime(out, "startTime", unit.startTime);
  putTime(out, "completionTime", unit.completionTime);
  if (unit.retained) out["retained"] = true;
  if (!unit.logDir.empty()) out["logDir"] = unit.logDir;
  if (unit.expectedPods > 0) out["expectedPods"] = unit.expectedPods;
  if (unit.metrics) out["metrics"] = results::toJson(*unit.metrics);
  if (!unit.verdict.empty()) out["verdict"] = unit.verdict;
  return out;
}

UnitRecord unitFromJson(const json& in) {
  UnitRecord unit;
  if (!in.is_object()) return unit;
  unit.trial = intMember(in, "trial");
  unit.repetition = intMember(in, "repetition");
  unit.params = paramsFrom(member(in, "parameters"));
  const std::string phase = stringMember(in, "phase");
  for (const auto& [p, name] : kPhaseNames)
    if (phase == name) unit.phase = p;
  unit.reason = statusReason(stringMember(in, "reason"));
  unit.message = statusMessage(stringMember(in, "message"));
  if (const json& workload = member(in, "workload"); workload.is_object()) {
    unit.workloadApiVersion = stringMember(workload, "apiVersion");
    unit.workloadKind = stringMember(workload, "kind");
    unit.workloadName = stringMember(workload, "name");
    unit.slurmCluster = stringMember(workload, "cluster");
    unit.slurmJobId = intMember(workload, "jobId");
  }
  unit.nodes = common::stringList(member(in, "nodes"));
  unit.startTime = timeMember(in, "startTime");
  unit.completionTime = timeMember(in, "completionTime");
  unit.retained = member(in, "retained") == json(true);
  unit.logDir = stringMember(in, "logDir");
  unit.expectedPods = std::max<std::int64_t>(0, intMember(in, "expectedPods"));
  if (const json& metrics = member(in, "metrics"); metrics.is_object())
    unit.metrics = results::unitSummaryFromJson(metrics);
  unit.verdict = stringMember(in, "verdict");
  return unit;
}

bool awaitsMetrics(const UnitRecord& unit) {
  return unit.phase == UnitPhase::kSucceeded && !unit.metrics;
}

std::string runPhase(const std::vector<UnitRecord>& units, bool suspended, bool measured) {
  const bool anyRunning = std::any_of(units.begin(), units.end(),
                                      [](const UnitRecord& u) { return inFlight(u.phase); });
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

std::string statusReason(std::string_view text) { return keepAtMost(text, kMaxStatusReasonBytes); }

std::string statusMessage(std::string_view text) {
  return keepAtMost(text, kMaxStatusMessageBytes);
}

void setCondition(std::vector<Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string message,
                  common::WallTime now, std::int64_t observedGeneration) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const Condition& c) { return c.type == type; });
  Condition condition{
      std::string(type), std::string(status), statusReason(reason), statusMessage(message), now,
      observedGeneration};
  if (it == conditions.end()) {
    conditions.push_back(std::move(condition));
    return;
  }
  if (it->status == status && it->lastTransitionTime)
    condition.lastTransitionTime = it->lastTransitionTime;
  *it = std::move(condition);
}

std::string conditionStatus(const std::vector<Condition>& conditions, std::string_view type) {
  for (const Condition& c : conditions)
    if (c.type == type) return c.status;
  return "";
}

json toJson(const std::vector<Condition>& conditions) {
  json out = json::array();
  for (const Condition& c : conditions) out.push_back(toJson(c));
  return out;
}

std::vector<Condition> conditionsFromJson(const json& conditions) {
  std::vector<Condition> out;
  if (!conditions.is_array()) return out;
  for (const json& c : conditions)
    if (c.is_object() && !stringMember(c, "type").empty()) out.push_back(conditionFrom(c));
  return out;
}

json toJson(const RunStatus& s) {
  json out = json::object();
  if (!s.phase.empty()) out["phase"] = s.phase;
  if (s.observedGeneration) out["observedGeneration"] = *s.observedGeneration;
  if (s.trialsTotal) out["trialsTotal"] = *s.trialsTotal;
  if (s.trialsDone) out["trialsDone"] = *s.trialsDone;
  if (!s.progress.empty()) out["progress"] = s.progress;
  putTime(out, "startTime", s.startTime);
  putTime(out, "completionTime", s.completionTime);
  if (!s.trials.empty()) {
    json trials = json::array();
    for (const UnitRecord& unit : s.trials) trials.push_back(toJson(unit));
    out["trials"] = std::move(trials);
  }
  if (!s.results.empty()) {
    json results = json::array();
    for (const TrialResult& r : s.results) results.push_back(toJson(r));
    out["results"] = std::move(results);
  }
  if (s.verdict) out["verdict"] = results::toString(*s.verdict);
  if (s.latestEffectiveThroughput) out["latestEffectiveThroughput"] = *s.latestEffectiveThroughput;
  if (!s.conditions.empty()) out["conditions"] = toJson(s.conditions);
  return out;
}

RunStatus runStatusFromJson(const json& in) {
  RunStatus s;
  if (!in.is_object()) return s;
  s.phase = stringMember(in, "phase");
  s.observedGeneration = optionalInt(in, "observedGeneration");
  s.trialsTotal = optionalInt(in, "trialsTotal");
  s.trialsDone = optionalInt(in, "trialsDone");
  s.progress = stringMember(in, "progress");
  s.startTime = timeMember(in, "startTime");
  s.completionTime = timeMember(in, "completionTime");
  if (const json& trials = member(in, "trials"); trials.is_array())
    for (const json& t : trials) s.trials.push_back(unitFromJson(t));
  if (const json& results = member(in, "results"); results.is_array()) {
    for (const json& r : results)
      if (r.is_object() && member(r, "trial").is_number_integer())
        s.results.push_back(trialResultFrom(r));
  }
  s.verdict = verdictFromString(stringMember(in, "verdict"));
  s.latestEffectiveThroughput = optionalNumber(in, "latestEffectiveThroughput");
  s.conditions = conditionsFromJson(member(in, "conditions"));
  return s;
}

bool Run::hasFinalizer(std::string_view finalizer) const {
  return std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end();
}

bool Run::suspended() const { return member(spec, "suspend") == json(true); }

Run readRun(const json& object) {
  Run run;
  const json& meta = member(object, "metadata");
  run.ref = {stringMember(meta, "namespace"), stringMember(meta, "name"),
             stringMember(meta, "uid")};
  run.generation = intMember(meta, "generation");
  run.creationTime = timeMember(meta, "creationTimestamp");
  run.deleting = !stringMember(meta, "deletionTimestamp").empty();
  run.finalizers = common::stringList(member(meta, "finalizers"));
  run.labels = stringMapFrom(member(meta, "labels"));
  run.annotations = stringMapFrom(member(meta, "annotations"));
  run.spec = member(object, "spec");
  if (auto it = run.annotations.find(std::string(kAcceptedSpecAnnotation));
      it != run.annotations.end())
    run.acceptedSpecText = it->second;
  run.status = runStatusFromJson(member(object, "status"));
  return run;
}

json frozenSpec(json spec) {
  if (spec.is_object()) spec.erase("suspend");
  return spec;
}

}  // namespace hetbench::benchmark
