#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/benchmark/configuration.h"
#include "hetbench/benchmark/series.h"

namespace hetbench::metrics {

/// What /metrics shows of one BenchmarkSeries, read from its status through the series model.
struct SeriesGauges {
  benchmark::Configuration configuration = {};
  std::string series = {};  // the object's name
  std::string metric = {};
  std::size_t points = 0;
  std::optional<double> latest = {};
  std::optional<double> baseline = {};
  std::optional<double> noise = {};
  /// results::toString(Screen) of the latest judged point; "" before there is one.
  std::string state = {};
  std::size_t changes = 0;
  /// The newest change point, when there is one.
  std::optional<benchmark::SeriesChange> lastChange = {};

  bool operator==(const SeriesGauges&) const = default;
};

/// The gauges of a BenchmarkSeries object; never throws on a malformed one.
SeriesGauges seriesGauges(const nlohmann::json& object);

/// The `hetbench_series_*` series (docs/metrics.md): per BenchmarkSeries, labelled with its
/// configuration, name and metric, its points, latest judged value, baseline and noise, state
/// (one-hot) and change points, the latest with its time and magnitude. Fed from the informer of
/// BenchmarkSeries, so a restarted operator shows the same series again from their status.
/// Thread-safe.
class SeriesMetrics final : public prometheus::Collectable {
 public:
  /// `exporting` says whether the series are shown (only the leader shows them, as
  /// BenchmarkMetrics); always, when empty.
  explicit SeriesMetrics(std::function<bool()> exporting = {}) : exporting_(std::move(exporting)) {}

  /// A series was added or changed.
  void observe(const nlohmann::json& series);
  /// A series was deleted: its gauges go.
  void forget(const nlohmann::json& series);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::function<bool()> exporting_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, SeriesGauges> series_;  // by (namespace, name)
};

}  // namespace hetbench::metrics
