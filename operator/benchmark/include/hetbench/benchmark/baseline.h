#pragma once

// fromHistory references (docs/metrics.md): a baseline is the statistic of a metric over the
// same configuration's trials in the latest passing runs of the namespace created before the
// run, resolved when the trial is first judged and kept in its status.results entry.

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/benchmark/configuration.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/clock.h"
#include "hetbench/results/reference.h"

namespace hetbench::benchmark {

/// What the fromHistory references of one run may draw on: the judged trials of the runs of its
/// namespace created before it that have finished, read from `runs` (the informer cache) through
/// the run model, and only when a baseline is first needed.
class RunHistory {
 public:
  RunHistory(const Run& run, const AcceptedRun& accepted,
             std::function<std::vector<nlohmann::json>()> runs)
      : run_(run), accepted_(accepted), runs_(std::move(runs)) {}

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
    TrialResult result;
  };
  void load();

  const Run& run_;
  const AcceptedRun& accepted_;
  std::vector<Configuration> mine_;  // this run's configuration of each trial
  std::function<std::vector<nlohmann::json>()> runs_;
  bool loaded_ = false;
  std::vector<Trial> trials_;
};

/// One trial's references with their fromHistory values resolved, and the baselines to keep in
/// the trial's status.results entry, so that the verdict does not move when later runs finish.
struct ResolvedReferences {
  results::References references;
  std::map<std::string, Baseline> baselines;
};

/// Resolves the fromHistory references of trial `trial`. A baseline already kept in `previous`
/// (the trial's earlier status.results entry, if any) stands; any other is the statistic of the
/// metric over the latest `runs` samples of `history`. With fewer than minRuns of them the
/// reference has value 0: no reference yet.
ResolvedReferences resolveHistory(const results::References& configured, std::int64_t trial,
                                  const TrialResult* previous, RunHistory& history);

/// A history reference as a judged trial keeps it (value 0 when none was kept).
results::Reference frozenBaseline(const results::Reference& configured, const TrialResult& entry,
                                  const std::string& metric);

}  // namespace hetbench::benchmark
