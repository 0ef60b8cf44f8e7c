#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/benchmark/configuration.h"
#include "hetbench/common/clock.h"

namespace hetbench::metrics {

using benchmark::Configuration;

/// A reference's band and the trial's mean relative to it, in the metric's unit.
struct ReferencePoint {
  double value = 0;
  std::optional<double> lower;  // absent: that side of the band is open
  std::optional<double> upper;
  std::optional<double> ratio;  // the trial's mean / value; absent when the trial lacks it

  bool operator==(const ReferencePoint&) const = default;
};

/// One trial of a run that has ended, read from the run's status through the run model.
struct FinishedTrial {
  Configuration configuration;
  std::int64_t trial = 0;
  std::optional<common::WallTime> completion;  // its last unit's end
  /// The trial's verdict (Pass, Regressed, NoReference, MetricMissing), or Failed when none of
  /// its repetitions succeeded.
  std::string result;
  /// The trial's means: effective_throughput, compute_throughput, compute_fraction,
  /// samples_per_wh, and per measured epoch epoch_seconds, io_seconds and energy_joules.
  std::map<std::string, double> values;
  std::map<std::string, ReferencePoint> references;  // by metric

  bool operator==(const FinishedTrial&) const = default;
};

/// The ended trials of a BenchmarkRun, from its accepted spec and its status: the judged trials
/// of status.results, and the trials whose units all ended without one success. Trials that are
/// still running or were cancelled are left out, and so is everything of a run the operator has
/// not accepted. Never throws on a malformed object.
std::vector<FinishedTrial> finishedTrials(const nlohmann::json& run);

/// The series read off the status of every BenchmarkRun it is shown (docs/metrics.md):
/// `hetbench_benchmark_*` per configuration, the values of its latest judged trial, how many of
/// its latest trials failed in a row, and counters of trials by result (every result at 0 from
/// the configuration's planning on); and `hetbench_runs`, the runs by namespace and phase.
/// Fed from the informer of BenchmarkRuns, so a restarted operator rebuilds the same series
/// from the runs' status. Thread-safe.
class BenchmarkMetrics final : public prometheus::Collectable {
 public:
  /// `exporting` says whether the series are shown (only the leader shows them, so that the
  /// replicas of a highly available operator do not repeat them); always, when empty.
  explicit BenchmarkMetrics(std::function<bool()> exporting = {})
      : exporting_(std::move(exporting)) {}

  /// A run was added or changed.
  void observe(const nlohmann::json& run);
  /// A run was deleted: its trials leave the gauges; the counters keep what they counted.
  void forget(const nlohmann::json& run);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::function<bool()> exporting_;
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::string>> phases_;  // uid → (namespace, phase)
  std::map<std::string, std::vector<FinishedTrial>> trials_;           // by run uid
  std::map<std::string, std::set<std::int64_t>> counted_;              // by run uid
  std::map<std::pair<Configuration, std::string>, double> results_;    // (config, result) → count
};

}  // namespace hetbench::metrics
