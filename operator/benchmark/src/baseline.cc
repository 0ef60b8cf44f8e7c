#include "hetbench/benchmark/baseline.h"

#include <algorithm>
#include <tuple>

#include "hetbench/benchmark/validate.h"

namespace hetbench::benchmark {
namespace {

/// When a run was created, with its name to order runs created in the same second.
std::tuple<common::WallTime, std::string> createdAt(const Run& run) {
  return {run.creationTime.value_or(common::WallTime()), run.ref.name};
}

bool passing(results::Verdict verdict) {
  return verdict == results::Verdict::kPass || verdict == results::Verdict::kNoReference;
}

}  // namespace

void RunHistory::load() {
  loaded_ = true;
  mine_ = trialConfigurations(run_.ref.ns, accepted_);
  const auto created = createdAt(run_);
  for (const nlohmann::json& object : runs_()) {
    Run other = readRun(object);
    if (other.ref.uid == run_.ref.uid || !(createdAt(other) < created)) continue;
    // Not finished, or nothing judged.
    if (!other.status.completionTime || other.status.results.empty()) continue;
    // Only the run-level spec: its configurations need neither its metrics nor its references.
    if (other.acceptedSpecText.empty()) continue;
    const common::Result<RunSpec> spec =
        parseRunSpec(nlohmann::json::parse(other.acceptedSpecText, nullptr, false));
    if (!spec.isOk()) continue;
    const std::vector<Configuration> configurations =
        trialConfigurations(other.ref.ns, spec.value());
    for (TrialResult& result : other.status.results) {
      if (result.trial < 0 || result.trial >= static_cast<std::int64_t>(configurations.size()))
        continue;
      trials_.push_back({configurations[static_cast<std::size_t>(result.trial)], other.ref.name,
                         *other.status.completionTime, std::move(result)});
    }
  }
}

std::vector<RunHistory::Sample> RunHistory::samples(std::int64_t trial, const std::string& metric) {
  if (!loaded_) load();
  std::vector<Sample> out;
  if (trial < 0 || trial >= static_cast<std::int64_t>(mine_.size())) return out;
  const Configuration& configuration = mine_[static_cast<std::size_t>(trial)];
  for (const Trial& t : trials_) {
    if (!(t.configuration == configuration) || !passing(t.result.verdict)) continue;
    auto m = t.result.metrics.find(metric);
    if (m == t.result.metrics.end()) continue;
    out.push_back({t.completion, t.run, m->second.stats.mean});
  }
  std::sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.completion, a.run) > std::tie(b.completion, b.run);
  });
  return out;
}

results::Reference frozenBaseline(const results::Reference& configured, const TrialResult& entry,
                                  const std::string& metric) {
  results::Reference out = configured;
  out.value = 0;
  out.basis.clear();
  if (!entry.baselines) return out;
  auto kept = entry.baselines->find(metric);
  if (kept == entry.baselines->end()) return out;
  out.value = kept->second.value.value_or(0);
  out.basis = kept->second.basis;
  return out;
}

ResolvedReferences resolveHistory(const results::References& configured, std::int64_t trial,
                                  const TrialResult* previous, RunHistory& history) {
  ResolvedReferences out;
  for (const auto& [metric, reference] : configured) {
    if (!reference.fromHistory) {
      out.references[metric] = reference;
      continue;
    }
    if (previous != nullptr && previous->baselines && previous->baselines->contains(metric)) {
      out.references[metric] = frozenBaseline(reference, *previous, metric);
      out.baselines[metric] = previous->baselines->at(metric);
      continue;
    }
    const results::HistoryBaseline& wanted = *reference.fromHistory;
    std::vector<RunHistory::Sample> samples = history.samples(trial, metric);
    if (static_cast<std::int64_t>(samples.size()) > wanted.runs)
      samples.resize(static_cast<std::size_t>(wanted.runs));
    results::Reference resolved = reference;
    Baseline kept;
    if (static_cast<std::int64_t>(samples.size()) < wanted.minRuns) {
      resolved.value = 0;
      resolved.basis = std::to_string(samples.size()) +
                       " earlier passing run(s) of this configuration, fewer than the " +
                       std::to_string(wanted.minRuns) + " that fromHistory.minRuns asks for";
    } else {
      std::vector<double> values;
      for (const RunHistory::Sample& s : samples) {
        values.push_back(s.value);
        kept.runs.push_back(s.run);
      }
      resolved.value = results::baselineOf(wanted.statistic, values);
      resolved.basis = "the " + results::toString(wanted.statistic) + " of the last " +
                       std::to_string(samples.size()) + " passing run(s)";
      kept.value = resolved.value;
    }
    kept.basis = resolved.basis;
    out.baselines[metric] = std::move(kept);
    out.references[metric] = std::move(resolved);
  }
  return out;
}

}  // namespace hetbench::benchmark
