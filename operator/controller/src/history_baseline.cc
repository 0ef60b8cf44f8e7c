#include "history_baseline.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/controller/benchmark_metrics.h"

namespace hetbench::controller::detail {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

/// When a run was created, with its name to order runs created in the same second.
std::tuple<common::WallTime, std::string> createdAt(const json& run) {
  const json& meta = member(run, "metadata");
  common::Result<common::WallTime> t =
      common::parseRfc3339(stringMember(meta, "creationTimestamp"));
  return {t.isOk() ? t.value() : common::WallTime(), stringMember(meta, "name")};
}

struct Sample {
  common::WallTime completion;
  std::string run;
  double value = 0;
};

/// The trial means of `metric` in the passing trials of `configuration` among the earlier runs,
/// newest first.
std::vector<Sample> samplesOf(const json& run, const Configuration& configuration,
                              const std::string& metric, const std::vector<json>& history) {
  const auto mine = createdAt(run);
  const std::string uid = stringMember(member(run, "metadata"), "uid");
  std::vector<Sample> out;
  for (const json& other : history) {
    if (stringMember(member(other, "metadata"), "uid") == uid || !(createdAt(other) < mine))
      continue;
    const json& status = member(other, "status");
    common::Result<common::WallTime> completion =
        common::parseRfc3339(stringMember(status, "completionTime"));
    if (!completion.isOk()) continue;  // not finished
    const std::vector<Configuration> configurations = trialConfigurations(other);
    const json& results = member(status, "results");
    if (!results.is_array()) continue;
    for (const json& entry : results) {
      const json& index = member(entry, "trial");
      if (!index.is_number_integer()) continue;
      const std::int64_t t = index.get<std::int64_t>();
      if (t < 0 || t >= static_cast<std::int64_t>(configurations.size()) ||
          !(configurations[static_cast<std::size_t>(t)] == configuration)) {
        continue;
      }
      const std::string verdict = stringMember(entry, "verdict");
      const json& mean = member(member(member(entry, "metrics"), metric), "mean");
      if ((verdict != "Pass" && verdict != "NoReference") || !mean.is_number()) continue;
      out.push_back({completion.value(), stringMember(member(other, "metadata"), "name"),
                     mean.get<double>()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.completion, a.run) > std::tie(b.completion, b.run);
  });
  return out;
}

}  // namespace

results::Reference frozenBaseline(const results::Reference& configured, const json& entry,
                                  const std::string& metric) {
  results::Reference out = configured;
  const json& kept = member(member(entry, "baselines"), metric);
  const json& value = member(kept, "value");
  out.value = value.is_number() ? value.get<double>() : 0;
  out.basis = stringMember(kept, "basis");
  return out;
}

ResolvedReferences resolveHistory(const results::References& configured, const json& run,
                                  std::int64_t trial, const json& previous,
                                  const std::vector<json>& history) {
  ResolvedReferences out;
  std::optional<std::vector<Configuration>> configurations;
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
    if (!configurations) configurations = trialConfigurations(run);
    const results::HistoryBaseline& wanted = *reference.fromHistory;
    std::vector<Sample> samples;
    if (trial >= 0 && trial < static_cast<std::int64_t>(configurations->size())) {
      samples = samplesOf(run, (*configurations)[static_cast<std::size_t>(trial)], metric, history);
    }
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
      for (const Sample& s : samples) {
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
