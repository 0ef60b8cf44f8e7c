#include <fstream>

#include "hetbench/benchmark/baseline.h"
#include "hetbench/benchmark/judge.h"
#include "hetbench/logs/layout.h"
#include "hetbench/logs/lines.h"
#include "hetbench/results/measure.h"
#include "pass.h"

namespace hetbench::controller::detail {
namespace {

namespace reason = benchmark::reason;
namespace condition = benchmark::condition;
using benchmark::RunStatus;
using benchmark::TrialResult;

/// "trial 1 repetition 0 (gpus=4) Failed: Unschedulable (message)" for the first failed unit.
std::string firstFailure(const std::vector<UnitRecord>& units) {
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return benchmark::isFailure(u.phase); });
  if (failed == units.end()) return "";
  return unitLabel(*failed) + " " + benchmark::toString(failed->phase) + ": " + failed->reason +
         (failed->message.empty() ? "" : " (" + failed->message + ")");
}

TrialResult resultOf(const benchmark::JudgedTrial& judged, const results::MetricUnits& units) {
  TrialResult entry;
  entry.trial = judged.trial;
  entry.verdict = judged.verdict.verdict;
  entry.repetitions = judged.metrics.repetitions;
  entry.checks = judged.verdict.checks;
  entry.invalid = judged.verdict.invalid;
  for (const auto& [name, stats] : judged.metrics.metrics) {
    auto unit = units.find(name);
    entry.metrics[name] = {stats, unit == units.end() ? "" : unit->second};
  }
  return entry;
}

/// The effective throughput of the unit that succeeded last, where measured.
std::optional<double> latestEffectiveThroughput(const std::vector<UnitRecord>& units) {
  const std::string name(results::kEffectiveThroughput);
  const UnitRecord* latest = nullptr;
  for (const UnitRecord& unit : units) {
    if (unit.phase != UnitPhase::kSucceeded || !unit.completionTime || !unit.metrics ||
        !unit.metrics->values.contains(name)) {
      continue;
    }
    if (latest == nullptr || *latest->completionTime <= *unit.completionTime) latest = &unit;
  }
  if (latest == nullptr) return std::nullopt;
  return latest->metrics->values.at(name);
}

}  // namespace

void Pass::addResults(RunStatus& status) const {
  const results::MetricUnits metricUnits = results::metricUnits(accepted_.metricSpecs);
  const bool fromHistory =
      std::any_of(accepted_.references.begin(), accepted_.references.end(),
                  [](const auto& entry) { return entry.second.fromHistory.has_value(); });
  std::map<std::int64_t, const TrialResult*> previous;  // trial → its earlier entry
  for (const TrialResult& r : run_.status.results) previous[r.trial] = &r;
  benchmark::RunHistory history(run_, accepted_, [this] { return cache_.runs(run_.ref.ns); });
  std::map<std::int64_t, std::map<std::string, benchmark::Baseline>> baselines;
  auto referencesOf = [&](std::int64_t trial) {
    if (!fromHistory) return accepted_.references;
    const auto kept = previous.find(trial);
    benchmark::ResolvedReferences resolved = benchmark::resolveHistory(
        accepted_.references, trial, kept == previous.end() ? nullptr : kept->second, history);
    baselines[trial] = std::move(resolved.baselines);
    return resolved.references;
  };
  status.results.clear();
  std::vector<results::Verdict> verdicts;
  std::string regressed;
  for (const benchmark::JudgedTrial& judged :
       benchmark::judgeTrials(status.trials, referencesOf, accepted_.required)) {
    TrialResult entry = resultOf(judged, metricUnits);
    for (const results::MetricCheck& check : entry.checks) {
      // An invalid trial's checks say nothing about the software.
      if (entry.verdict == results::Verdict::kInvalid) break;
      if (check.verdict == results::Verdict::kRegressed && regressed.empty())
        regressed = "trial " + std::to_string(judged.trial) + ": " + check.message;
    }
    if (fromHistory) entry.baselines = baselines[judged.trial];
    for (const UnitRecord& unit : status.trials) {
      if (unit.trial == judged.trial) {
        entry.parameters = unit.params;
        break;
      }
    }
    verdicts.push_back(entry.verdict);
    status.results.push_back(std::move(entry));
  }
  status.verdict =
      status.results.empty() ? std::nullopt : std::optional(results::runVerdict(verdicts));
  if (std::optional<double> latest = latestEffectiveThroughput(status.trials))
    status.latestEffectiveThroughput = latest;
  if (!regressed.empty()) {
    benchmark::setCondition(status.conditions, condition::kRegressed, "True",
                            reason::kBelowReference, regressed, now_, run_.generation);
  } else {
    benchmark::setCondition(status.conditions, condition::kRegressed, "False",
                            reason::kNoRegression, "", now_, run_.generation);
  }
}

void Pass::noteRegressions(const RunStatus& before, RunStatus& after) {
  std::map<std::int64_t, results::Verdict> earlier;
  for (const TrialResult& r : before.results) earlier[r.trial] = r.verdict;
  std::map<std::int64_t, std::string> verdictOf;
  for (const TrialResult& r : after.results) {
    verdictOf[r.trial] = results::toString(r.verdict);
    auto was = earlier.find(r.trial);
    if (was != earlier.end() && was->second == r.verdict) continue;
    if (r.verdict == results::Verdict::kInvalid) {
      event(EventType::kWarning, reason::kTrialInvalid,
            "trial " + std::to_string(r.trial) + " cannot be judged: " + r.invalid);
      continue;
    }
    if (r.verdict != results::Verdict::kRegressed) continue;
    std::string message = "trial " + std::to_string(r.trial);
    for (const results::MetricCheck& check : r.checks)
      if (check.verdict == results::Verdict::kRegressed) message += ": " + check.message;
    event(EventType::kWarning, reason::kRegressed, message);
  }
  for (UnitRecord& unit : after.trials) {
    auto it = verdictOf.find(unit.trial);
    if (it != verdictOf.end()) unit.verdict = it->second;
  }
}

void Pass::measure(UnitRecord& unit, const std::string& incomplete) {
  common::Result<results::UnitMeasurer> measurer =
      results::UnitMeasurer::make(accepted_.metricSpecs);
  results::UnitMeasurement m;
  if (measurer.isOk()) {
    for (const logs::LogLayout::UnitLog& log :
         logs::LogLayout::unitLogs(options_.logDir / logDirOf(unit))) {
      std::ifstream in(log.file, std::ios::binary);
      logs::forEachLine(in,
                        [&](std::string_view line) { measurer.value().consume(log.source, line); });
    }
    m = measurer.value().finish(results::AggregationOptions{accepted_.spec.warmupEpochs},
                                accepted_.required);
  } else {
    m.status = measurer.status();
  }
  std::string why;
  std::string message;
  if (!m.status.isOk()) {
    why = reason::kInvalidMetrics;
    message = "the metrics in the log cannot be read: " + m.status.message();
  } else {
    unit.metrics = m.summary;
    if (!m.missing.empty()) {
      why = reason::kMetricMissing;
      message = "the log has no " + m.missing.front();
      for (std::size_t i = 1; i < m.missing.size(); ++i) message += ", " + m.missing[i];
    }
  }
  if (why.empty()) {
    if (incomplete.empty()) return;
    unit.message = benchmark::statusMessage("log incomplete: " + incomplete);
    event(EventType::kWarning, reason::kLogIncomplete,
          unitLabel(unit) + " was measured from an incomplete log: " + incomplete);
    return;
  }
  if (!incomplete.empty()) message += " (log incomplete: " + incomplete + ")";
  unit.phase = UnitPhase::kFailed;
  unit.reason = why;
  unit.message = benchmark::statusMessage(message);
  event(EventType::kWarning, reason::kTrialFailed,
        unitLabel(unit) + " Failed (" + why + "): " + message);
}

RunStatus Pass::buildStatus(const std::vector<UnitRecord>& units) const {
  RunStatus status = run_.status;
  const std::string phase = benchmark::runPhase(units, accepted_.spec.suspend, measuring());
  const auto done = std::count_if(units.begin(), units.end(), [](const UnitRecord& u) {
    return benchmark::isTerminal(u.phase);
  });
  const auto running = std::count_if(
      units.begin(), units.end(), [](const UnitRecord& u) { return benchmark::inFlight(u.phase); });
  const auto total = static_cast<std::int64_t>(units.size());
  status.phase = phase;
  status.observedGeneration = run_.generation;
  status.trialsTotal = total;
  status.trialsDone = done;
  status.progress = std::to_string(done) + "/" + std::to_string(total);
  status.trials = units;
  if (!status.startTime) {
    for (const UnitRecord& unit : units)
      if (unit.startTime && (!status.startTime || *unit.startTime < *status.startTime))
        status.startTime = unit.startTime;
  }
  const bool terminal = phase == "Succeeded" || phase == "Failed" || phase == "Cancelled";
  if (terminal && !status.completionTime) status.completionTime = now_;
  if (!terminal) status.completionTime.reset();

  addResults(status);

  const std::string planned = std::to_string(total) + " unit(s)";
  auto set = [&](std::string_view type, bool value, std::string_view why, std::string message) {
    benchmark::setCondition(status.conditions, type, value ? "True" : "False", why,
                            std::move(message), now_, run_.generation);
  };
  set(condition::kAccepted, true, reason::kAccepted, planned + " planned");
  set(condition::kRunning, running > 0, running > 0 ? reason::kUnitsRunning : phase,
      std::to_string(running) + " of " + planned + " running");
  set(condition::kComplete, phase == "Succeeded",
      phase == "Succeeded" ? reason::kAllSucceeded : phase,
      std::to_string(done) + " of " + planned + " finished");
  auto failed = std::find_if(units.begin(), units.end(),
                             [](const UnitRecord& u) { return benchmark::isFailure(u.phase); });
  if (failed != units.end()) {
    set(condition::kFailed, true, failed->reason, firstFailure(units));
  } else {
    set(condition::kFailed, false, reason::kNoFailure, "");
  }
  return status;
}

}  // namespace hetbench::controller::detail
