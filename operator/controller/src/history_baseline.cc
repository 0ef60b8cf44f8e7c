#include "history_baseline.h"

#include <algorithm>
#include <tuple>

#include "hetbench/common/json_fields.h"

namespace hetbench::controller::detail {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

/// When a run was created, with its name to order runs created in the same second.
std::tuple<common::WallTime, std::string> createdAt(const json& run) {
  const json& meta = member(run, "metadata");
  return {common::timeMember(meta, "creationTimestamp").value_or(common::WallTime()),
          stringMember(meta, "name")};
}

}  // namespace

void RunHistory::load() {
  loaded_ = true;
  mine_ = trialConfigurations(run_);
  const auto created = createdAt(run_);
  const std::string uid = stringMember(member(run_, "metadata"), "uid");
  runsRead_ = runs_();
  for (const json& other : runsRead_) {
    if (stringMember(member(other, "metadata"), "uid") == uid || !(createdAt(other) < created))
      continue;
    const json& status = member(other, "status");
    const std::optional<common::WallTime> completion = common::timeMember(status, "completionTime");
    const json& results = member(status, "results");
    if (!completion || !results.is_array()) continue;  // not finished, or nothing judged
    const std::vector<Configuration> configurations = trialConfigurations(other);
    for (const json& entry : results) {
      const json& index = member(entry, "trial");
      if (!index.is_number_integer()) continue;
      const std::int64_t t = index.get<std::int64_t>();
      if (t < 0 || t >= static_cast<std::int64_t>(configurations.size())) continue;
      trials_.push_back({configurations[static_cast<std::size_t>(t)],
                         stringMember(member(other, "metadata"), "name"), *completion, &entry});
    }
  }
}

std::vector<RunHistory::Sample> RunHistory::samples(std::int64_t trial, const std::string& metric) {
  if (!loaded_) load();
  std::vector<Sample> out;
  if (trial < 0 || trial >= static_cast<std::int64_t>(mine_.size())) return out;
  const Configuration& configuration = mine_[static_cast<std::size_t>(trial)];
  for (const Trial& t : trials_) {
    if (!(t.configuration == configuration)) continue;
    const std::string verdict = stringMember(*t.entry, "verdict");
    const json& mean = member(member(member(*t.entry, "metrics"), metric), "mean");
    if ((verdict != "Pass" && verdict != "NoReference") || !mean.is_number()) continue;
    out.push_back({t.completion, t.run, mean.get<double>()});
  }
  std::sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.completion, a.run) > std::tie(b.completion, b.run);
  });
  return out;
}

results::Reference frozenBaseline(const results::Reference& configured, const json& entry,
                                  const std::string& metric) {
  results::Reference out = configured;
  const json& kept = member(member(entry, "baselines"), metric);
  const json& value = member(kept, "value");
  out.value = value.is_number() ? value.get<double>() : 0;
  out.basis = stringMember(kept, "basis");
  return out;
}

ResolvedReferences resolveHistory(const results::References& configured, std::int64_t trial,
                                  const json& previous, RunHistory& history) {
  ResolvedReferences out;
  for (const auto& [metric, reference] : configured) {
    if (!reference.fromHistory) {
      out.references[metric] = reference;
      continue;
    }
    if (member(member(previous, "baselines"), metric).is_object()) {
      out.references[metric] = frozenBaseline(reference, previous, metric);
      out.baselines[metric] = previous["baselines"][metric];
      continue;
    }
    const results::HistoryBaseline& wanted = *reference.fromHistory;
    std::vector<RunHistory::Sample> samples = history.samples(trial, metric);
    if (static_cast<std::int64_t>(samples.size()) > wanted.runs) {
      samples.resize(static_cast<std::size_t>(wanted.runs));
    }
    results::Reference resolved = reference;
    json kept = json::object();
    if (static_cast<std::int64_t>(samples.size()) < wanted.minRuns) {
      resolved.value = 0;
      resolved.basis = std::to_string(samples.size()) +
                       " earlier passing run(s) of this configuration, fewer than the " +
                       std::to_string(wanted.minRuns) + " that fromHistory.minRuns asks for";
    } else {
      std::vector<double> values;
      json runs = json::array();
      for (const RunHistory::Sample& s : samples) {
        values.push_back(s.value);
        runs.push_back(s.run);
      }
      resolved.value = results::baselineOf(wanted.statistic, values);
      resolved.basis = "the " + results::toString(wanted.statistic) + " of the last " +
                       std::to_string(samples.size()) + " passing run(s)";
      kept["value"] = resolved.value;
      kept["runs"] = std::move(runs);
    }
    kept["basis"] = resolved.basis;
    out.baselines[metric] = std::move(kept);
    out.references[metric] = std::move(resolved);
  }
  return out;
}

}  // namespace hetbench::controller::detail
