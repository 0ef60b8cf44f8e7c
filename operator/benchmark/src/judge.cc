#include "hetbench/benchmark/judge.h"

#include <algorithm>
#include <map>

namespace hetbench::benchmark {

std::vector<JudgedTrial> judgeTrials(
    const std::vector<UnitRecord>& units,
    const std::function<results::References(std::int64_t trial)>& referencesOf,
    const std::vector<std::string>& required) {
  std::map<std::int64_t, std::vector<const UnitRecord*>> byTrial;
  for (const UnitRecord& unit : units) byTrial[unit.trial].push_back(&unit);
  std::vector<JudgedTrial> out;
  for (const auto& [trial, records] : byTrial) {
    const bool ready = std::all_of(records.begin(), records.end(), [](const UnitRecord* u) {
      return isTerminal(u->phase) && !awaitsMetrics(*u);
    });
    if (!ready) continue;
    std::vector<results::MetricValues> values;
    for (const UnitRecord* unit : records) {
      if (unit->phase == UnitPhase::kSucceeded && unit->metrics)
        values.push_back(unit->metrics->values);
    }
    if (values.empty()) continue;
    JudgedTrial result;
    result.trial = trial;
    result.metrics = results::aggregateTrial(values);
    result.verdict = results::judgeTrial(result.metrics, referencesOf(trial), required);
    for (const UnitRecord* unit : records) {
      if (unit->phase != UnitPhase::kSucceeded || !unit->metrics || unit->metrics->invalid.empty())
        continue;
      // A missing metric stays the verdict: the trial is broken whatever its GPUs did.
      if (result.verdict.verdict != results::Verdict::kMetricMissing)
        result.verdict.verdict = results::Verdict::kInvalid;
      result.verdict.invalid =
          "repetition " + std::to_string(unit->repetition) + ": " + unit->metrics->invalid;
      break;
    }
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace hetbench::benchmark
