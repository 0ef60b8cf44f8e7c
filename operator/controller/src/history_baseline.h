#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/controller/benchmark_metrics.h"
#include "hetbench/results/reference.h"

namespace hetbench::controller::detail {

/// What fromHistory references of one run may draw on: the judged trials of the runs of its
/// namespace created before it that have finished, read from `runs` (the informer cache) and
/// their accepted specs parsed once, and only when a baseline is first needed.
class RunHistory {
 public:
  RunHistory(const nlohmann::json& run, std::function<std::vector<nlohmann::json>()> runs)
      : run_(run), runs_(std::move(runs)) {}

  struct Sample {
    common::WallTime completion;
    std::string run;
    double value = 0;
  };
  /// The trial means of `metric` in the passing (Pass or NoReference) trials of the
  /// configuration of this run's trial `trial`, newest first.
  std::vector<Sample> samples(std::int64_t trial, const std::string& metric);

 private:
  struct Trial {
    Configuration configuration;
    std::string run;
    common::WallTime completion;
    const nlohmann::json* entry;  // the status.results entry, in runs
  };
  void load();

  const nlohmann::json& run_;
  std::function<std::vector<nlohmann::json>()> runs_;
  bool loaded_ = false;
  std::vector<Configuration> mine_;  // this run's configuration of each trial
  std::vector<nlohmann::json> runsRead_;
  std::vector<Trial> trials_;
};

/// One trial's references with their fromHistory values resolved, and what to keep of the
/// resolution in the trial's status.results entry (`baselines`: per metric its value, how it was
/// found and from which runs), so that the verdict does not move when later runs finish.
struct ResolvedReferences {
  results::References references;
  nlohmann::json baselines = nlohmann::json::object();
};

/// Resolves the fromHistory references of trial `trial`. A baseline already kept in `previous`
/// (the trial's earlier status.results entry) stands; any other is the statistic of the metric
/// over the latest `runs` samples of `history`. With fewer than minRuns of them the reference has
/// value 0: no reference yet.
ResolvedReferences resolveHistory(const results::References& configured, std::int64_t trial,
                                  const nlohmann::json& previous, RunHistory& history);

/// A history reference as a status.results entry keeps it (value 0 when none was kept).
results::Reference frozenBaseline(const results::Reference& configured, const nlohmann::json& entry,
                                  const std::string& metric);

}  // namespace hetbench::controller::detail
