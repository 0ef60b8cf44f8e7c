#include "hetbench/metrics/series_metrics.h"

#include <chrono>
#include <initializer_list>
#include <string>
#include <vector>

#include "exposition.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/results/noise.h"

namespace hetbench::metrics {
namespace {

using detail::family;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

/// Every state a series shows: screening's, then a confirmation's (benchmark::settleSeriesState).
const std::vector<std::string>& states() {
  static const std::vector<std::string> all = {
      results::toString(results::Screen::kInsufficientHistory),
      results::toString(results::Screen::kWithinNoise),
      results::toString(results::Screen::kImproved),
      results::toString(results::Screen::kSuspect),
      std::string(benchmark::reason::kConfirming),
      std::string(benchmark::reason::kRegressed),
      std::string(benchmark::reason::kNodeSuspect),
      std::string(benchmark::reason::kNotConfirmed),
      std::string(benchmark::reason::kInconclusive)};
  return all;
}

ClientMetric sample(const SeriesGauges& s, double value,
                    std::initializer_list<ClientMetric::Label> extra = {}) {
  std::vector<ClientMetric::Label> labels = detail::configurationLabels(s.configuration);
  labels.push_back({"series", s.series});
  labels.push_back({"metric", s.metric});
  labels.insert(labels.end(), extra.begin(), extra.end());
  return detail::sample(value, std::move(labels));
}

double unixSeconds(common::WallTime time) {
  return std::chrono::duration<double>(time.time_since_epoch()).count();
}

}  // namespace

SeriesGauges seriesGauges(const nlohmann::json& object) {
  benchmark::Series series = benchmark::readSeries(object);
  SeriesGauges out;
  out.configuration = std::move(series.spec.configuration);
  out.series = std::move(series.name);
  out.metric = std::move(series.spec.metric);
  out.points = series.status.points.size();
  out.latest = series.status.latest;
  out.baseline = series.status.baseline;
  out.noise = series.status.noise;
  out.state = std::move(series.status.state);
  out.changes = series.status.changes.size();
  if (!series.status.changes.empty()) out.lastChange = std::move(series.status.changes.back());
  return out;
}

void SeriesMetrics::observe(const nlohmann::json& object) {
  SeriesGauges gauges = seriesGauges(object);
  if (gauges.series.empty()) return;
  std::pair<std::string, std::string> key{gauges.configuration.ns, gauges.series};
  std::lock_guard lock(mu_);
  series_.insert_or_assign(std::move(key), std::move(gauges));
}

void SeriesMetrics::forget(const nlohmann::json& object) {
  const benchmark::Series series = benchmark::readSeries(object);
  std::lock_guard lock(mu_);
  series_.erase({series.spec.configuration.ns, series.name});
}

std::vector<MetricFamily> SeriesMetrics::Collect() const {
  if (exporting_ && !exporting_()) return {};
  MetricFamily points =
      family("hetbench_series_points",
             "Trials the BenchmarkSeries keeps (its newest 100 at most), judged or not.",
             MetricType::Gauge);
  MetricFamily latest =
      family("hetbench_series_latest",
             "The series' latest judged trial: its mean of the series' metric.", MetricType::Gauge);
  MetricFamily baseline =
      family("hetbench_series_baseline",
             "The median of the stable trials the latest judged trial was screened against; absent "
             "while the history is too short.",
             MetricType::Gauge);
  MetricFamily noise = family(
      "hetbench_series_noise",
      "1.4826 times the median absolute deviation of those stable trials, in the metric's unit.",
      MetricType::Gauge);
  MetricFamily state = family("hetbench_series_state",
                              "1 for the screening of the series' latest judged trial, 0 for the "
                              "other states; absent before the series has one.",
                              MetricType::Gauge);
  MetricFamily changes =
      family("hetbench_series_change_points", "Change points among the trials the series keeps.",
             MetricType::Gauge);
  MetricFamily changeTime =
      family("hetbench_series_last_change_timestamp_seconds",
             "When the first trial at the level of the series' latest change point finished.",
             MetricType::Gauge);
  MetricFamily changeMagnitude =
      family("hetbench_series_last_change_magnitude",
             "The series' latest change point: the mean after it over the mean before it, minus 1.",
             MetricType::Gauge);
  std::lock_guard lock(mu_);
  for (const auto& [key, s] : series_) {
    points.metric.push_back(sample(s, static_cast<double>(s.points)));
    if (s.latest) latest.metric.push_back(sample(s, *s.latest));
    if (s.baseline) baseline.metric.push_back(sample(s, *s.baseline));
    if (s.noise) noise.metric.push_back(sample(s, *s.noise));
    if (!s.state.empty()) {
      bool known = false;
      for (const std::string& name : states()) {
        known = known || name == s.state;
        state.metric.push_back(sample(s, name == s.state ? 1 : 0, {{"state", name}}));
      }
      // A state this operator does not know (a newer one wrote it) shows as it is.
      if (!known) state.metric.push_back(sample(s, 1, {{"state", s.state}}));
    }
    changes.metric.push_back(sample(s, static_cast<double>(s.changes)));
    if (s.lastChange) {
      changeTime.metric.push_back(
          sample(s, unixSeconds(s.lastChange->time), {{"run", s.lastChange->run}}));
      changeMagnitude.metric.push_back(
          sample(s, s.lastChange->magnitude, {{"run", s.lastChange->run}}));
    }
  }
  std::vector<MetricFamily> out;
  for (MetricFamily* f :
       {&points, &latest, &baseline, &noise, &state, &changes, &changeTime, &changeMagnitude}) {
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace hetbench::metrics
