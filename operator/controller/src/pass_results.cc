#include "history_baseline.h"
#include "pass.h"

namespace hetbench::controller::detail {

void Pass::addResults(json& status, const std::vector<UnitRecord>& units) const {
  const results::MetricUnits metricUnits = results::metricUnits(metricSpecs_);
  json trialResults = json::array();
  std::vector<results::Verdict> verdicts;
  std::string regressed;
  const bool fromHistory =
      std::any_of(references_.begin(), references_.end(),
                  [](const auto& entry) { return entry.second.fromHistory.has_value(); });
  std::map<std::int64_t, const json*> previous;  // trial → its earlier status.results entry
  if (const json& old = member(member(run_, "status"), "results"); fromHistory && old.is_array()) {
    for (const json& r : old)
      if (member(r, "trial").is_number_integer()) previous[r["trial"].get<std::int64_t>()] = &r;
  }
  RunHistory history(run_, [this] { return cache_.runs(ref_.ns); });
  std::map<std::int64_t, json> baselines;
  auto referencesOf = [&](std::int64_t trial) {
    if (!fromHistory) return references_;
    const auto kept = previous.find(trial);
    ResolvedReferences resolved = resolveHistory(
        references_, trial, kept == previous.end() ? json() : *kept->second, history);
    baselines[trial] = std::move(resolved.baselines);
    return resolved.references;
  };
  for (const TrialResult& judged : judgeTrials(units, referencesOf, required_)) {
    json metrics = json::object();
    for (const auto& [name, stats] : judged.metrics.metrics) {
      metrics[name] = {{"mean", stats.mean},
                       {"stddev", stats.stddev},
                       {"min", stats.min},
                       {"max", stats.max},
                       {"n", stats.n}};
      if (auto unit = metricUnits.find(name); unit != metricUnits.end() && !unit->second.empty())
        metrics[name]["unit"] = unit->second;
    }
    json checks = json::array();
    for (const results::MetricCheck& check : judged.verdict.checks) {
      checks.push_back({{"metric", check.metric},
                        {"verdict", results::toString(check.verdict)},
                        {"message", check.message}});
      if (check.verdict == results::Verdict::kRegressed && regressed.empty())
        regressed = "trial " + std::to_string(judged.trial) + ": " + check.message;
    }
    json entry = {{"trial", judged.trial},
                  {"verdict", results::toString(judged.verdict.verdict)},
                  {"repetitions", judged.metrics.repetitions},
                  {"metrics", std::move(metrics)}};
    if (!checks.empty()) entry["checks"] = std::move(checks);
    if (fromHistory) entry["baselines"] = baselines[judged.trial];
    for (const UnitRecord& unit : units) {
      if (unit.trial == judged.trial) {
        entry["parameters"] = unit.params;
        break;
      }
    }
    trialResults.push_back(std::move(entry));
    verdicts.push_back(judged.verdict.verdict);
  }
  if (trialResults.empty()) {
    status.erase("results");
    status.erase("verdict");
  } else {
    status["results"] = std::move(trialResults);
    status["verdict"] = results::toString(results::runVerdict(verdicts));
  }
  const UnitRecord* latest = nullptr;
  for (const UnitRecord& unit : units) {
    const results::UnitSummary summary = results::unitSummaryFromJson(unit.metrics);
    if (unit.phase != UnitPhase::kSucceeded || !unit.completionTime ||
        !summary.values.contains(std::string(results::kEffectiveThroughput))) {
      continue;
    }
    if (latest == nullptr || *latest->completionTime <= *unit.completionTime) latest = &unit;
  }
  if (latest != nullptr) {
    status["latestEffectiveThroughput"] =
        results::unitSummaryFromJson(latest->metrics)
            .values.at(std::string(results::kEffectiveThroughput));
  }
  if (!regressed.empty()) {
    setCondition(status, "Regressed", "True", "BelowReference", regressed, now_, generation_);
  } else {
    setCondition(status, "Regressed", "False", "NoRegression", "", now_, generation_);
  }
}

void Pass::noteRegressions(const json& oldStatus, json& newStatus) {
  std::map<std::int64_t, std::string> before;
  if (const json& old = member(oldStatus, "results"); old.is_array()) {
    for (const json& r : old)
      if (r.is_object() && r.value("trial", json()).is_number_integer())
        before[r["trial"].get<std::int64_t>()] = stringMember(r, "verdict");
  }
  const json& now = member(newStatus, "results");
  if (!now.is_array()) return;
  std::map<std::int64_t, std::string> verdictOf;
  for (const json& r : now) {
    const std::int64_t trial = r["trial"].get<std::int64_t>();
    verdictOf[trial] = stringMember(r, "verdict");
    if (stringMember(r, "verdict") != "Regressed" || before[trial] == "Regressed") continue;
    std::string message = "trial " + std::to_string(trial);
    for (const json& check : member(r, "checks"))
      if (stringMember(check, "verdict") == "Regressed")
        message += ": " + stringMember(check, "message");
    event(EventType::kWarning, "Regressed", message);
  }
  for (json& t : newStatus["trials"]) {
    auto it = verdictOf.find(t.value("trial", std::int64_t{-1}));
    if (it != verdictOf.end()) t["verdict"] = it->second;
  }
}

void Pass::measure(UnitRecord& unit) {
  const UnitMeasurement m = measureUnit(options_.logDir / logDirOf(unit), metricSpecs_,
                                        results::AggregationOptions{spec_.warmupEpochs}, required_);
  std::string reason;
  std::string message;
  if (!m.status.isOk()) {
    reason = "InvalidMetrics";
    message = "the metrics in the log cannot be read: " + m.status.message();
  } else {
    unit.metrics = results::toJson(m.summary);
    if (!m.missing.empty()) {
      reason = "MetricMissing";
      message = "the log has no " + m.missing.front();
      for (std::size_t i = 1; i < m.missing.size(); ++i) message += ", " + m.missing[i];
    }
  }
  if (reason.empty()) return;
  unit.phase = UnitPhase::kFailed;
  unit.reason = reason;
  unit.message = message;
  event(EventType::kWarning, "TrialFailed",
        unitLabel(unit) + " Failed (" + reason + "): " + message);
}

json Pass::buildStatus(const std::vector<UnitRecord>& units) const {
  json status = member(run_, "status").is_object() ? run_["status"] : json::object();
  const std::string phase = runPhase(units, suspend_, measuring());
  const auto done = std::count_if(units.begin(), units.end(),
                                  [](const UnitRecord& u) { return isTerminal(u.phase); });
  const auto running = std::count_if(units.begin(), units.end(), [](const UnitRecord& u) {
    return u.phase == UnitPhase::kRunning;
  });
  status["phase"] = phase;
  status["observedGeneration"] = generation_;
  status["trialsTotal"] = units.size();
  status["trialsDone"] = done;
  status["progress"] = std::to_string(done) + "/" + std::to_string(units.size());
  json trials = json::array();
  std::optional<common::WallTime> firstStart;
  for (const UnitRecord& unit : units) {
    trials.push_back(toJson(unit));
    if (unit.startTime && (!firstStart || *unit.startTime < *firstStart))
      firstStart = unit.startTime;
  }
  status["trials"] = std::move(trials);
  if (firstStart && !status.contains("startTime"))
    status["startTime"] = common::formatRfc3339(*firstStart);
  const bool terminal = phase == "Succeeded" || phase == "Failed" || phase == "Cancelled";
  if (terminal && !status.contains("completionTime")) {
    status["completionTime"] = common::formatRfc3339(now_);
  }
  if (!terminal) status.erase("completionTime");

  addResults(status, units);

  const std::string planned = std::to_string(units.size()) + " unit(s)";
  setCondition(status, "Accepted", "True", "Accepted", planned + " planned", now_, generation_);
  setCondition(status, "Running", running > 0 ? "True" : "False",
               running > 0 ? "UnitsRunning" : phase,
               std::to_string(running) + " of " + planned + " running", now_, generation_);
  setCondition(status, "Complete", phase == "Succeeded" ? "True" : "False",
               phase == "Succeeded" ? "AllSucceeded" : phase,
               std::to_string(done) + " of " + planned + " finished", now_, generation_);
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return isFailure(u.phase); });
  if (failed != units.end()) {
    setCondition(status, "Failed", "True", failed->reason, firstFailure(units), now_, generation_);
  } else {
    setCondition(status, "Failed", "False", "NoFailure", "", now_, generation_);
  }
  return status;
}

}  // namespace hetbench::controller::detail
