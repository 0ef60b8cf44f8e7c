#include "hetbench/cli/report_figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "hetbench/benchmark/series.h"
#include "hetbench/common/time.h"
#include "hetbench/results/noise.h"

namespace hetbench::cli {
namespace {

/// Means of the trials that share a key, in key order.
struct Accumulator {
  double sum = 0;
  double squares = 0;  // of the standard deviations
  std::int64_t n = 0;

  void add(const Stat& s) {
    sum += s.mean;
    squares += s.stddev * s.stddev;
    ++n;
  }
  double mean() const { return sum / static_cast<double>(n); }
  double spread() const { return std::sqrt(squares / static_cast<double>(n)); }
};

std::string hardwareLine(const ReportRow& row) { return row.benchmark + " · " + row.hardware; }

LinePoint linePoint(const std::string& line, double x, const Accumulator& a) {
  return LinePoint{line, x, a.mean(), a.spread(), a.n};
}

}  // namespace

std::string configurationLabel(const ReportRow& row) {
  std::string label = hardwareLine(row);
  if (row.units) label += " ×" + std::to_string(*row.units);
  if (row.batchSize) label += " · batch " + std::to_string(*row.batchSize);
  return label;
}

std::vector<LinePoint> throughputByBatchSize(const std::vector<ReportRow>& rows) {
  auto usable = [](const ReportRow& r) { return r.batchSize && r.units && r.effectiveThroughput; };
  std::map<std::string, std::int64_t> smallest;  // per line
  for (const ReportRow& r : rows) {
    if (!usable(r)) continue;
    auto [it, added] = smallest.emplace(hardwareLine(r), *r.units);
    if (!added) it->second = std::min(it->second, *r.units);
  }
  std::map<std::pair<std::string, std::int64_t>, Accumulator> points;
  for (const ReportRow& r : rows) {
    if (!usable(r) || *r.units != smallest[hardwareLine(r)]) continue;
    points[{hardwareLine(r) + " ×" + std::to_string(*r.units), *r.batchSize}].add(
        *r.effectiveThroughput);
  }
  std::vector<LinePoint> out;
  for (const auto& [key, a] : points)
    out.push_back(linePoint(key.first, static_cast<double>(key.second), a));
  return out;
}

std::vector<ScalingPoint> scalingByCount(const std::vector<ReportRow>& rows) {
  std::map<std::string, std::map<std::int64_t, Accumulator>> lines;
  for (const ReportRow& r : rows) {
    if (!r.units || *r.units <= 0 || !r.effectiveThroughput) continue;
    std::string line = hardwareLine(r);
    if (r.batchSize) line += " · batch " + std::to_string(*r.batchSize);
    lines[line][*r.units].add(*r.effectiveThroughput);
  }
  std::vector<ScalingPoint> out;
  for (const auto& [line, counts] : lines) {
    if (counts.size() < 2) continue;
    const auto& [firstCount, first] = *counts.begin();
    const double perUnit = first.mean() / static_cast<double>(firstCount);
    for (const auto& [count, a] : counts)
      out.push_back(
          {linePoint(line, static_cast<double>(count), a), perUnit * static_cast<double>(count)});
  }
  return out;
}

std::vector<IoShare> ioShares(const std::vector<ReportRow>& rows) {
  std::map<std::string, std::pair<Accumulator, Accumulator>> configurations;
  for (const ReportRow& r : rows) {
    if (!r.computeThroughput || !r.effectiveThroughput) continue;
    auto& [compute, effective] = configurations[configurationLabel(r)];
    compute.add(*r.computeThroughput);
    effective.add(*r.effectiveThroughput);
  }
  std::vector<IoShare> out;
  for (const auto& [label, pair] : configurations)
    out.push_back({label, pair.first.mean(), pair.second.mean()});
  return out;
}

std::vector<EnergyPoint> energyPerSample(const std::vector<ReportRow>& rows) {
  std::map<std::string, Accumulator> configurations;
  for (const ReportRow& r : rows)
    if (r.samplesPerWh && r.samplesPerWh->mean > 0)
      configurations[configurationLabel(r)].add(*r.samplesPerWh);
  std::vector<EnergyPoint> out;
  for (const auto& [label, a] : configurations) {
    const double mean = a.mean();
    out.push_back({label, 3600 / mean, 3600 * a.spread() / (mean * mean)});
  }
  return out;
}

std::vector<History> histories(const std::vector<nlohmann::json>& objects) {
  std::vector<History> out;
  for (const nlohmann::json& object : objects) {
    const benchmark::Series series = benchmark::readSeries(object);
    const benchmark::SeriesStatus& status = series.status;
    if (status.points.empty()) continue;
    const benchmark::Configuration& c = series.spec.configuration;
    History history;
    history.title = c.benchmark + " · " + (c.accelerator.empty() ? "template" : c.accelerator) +
                    " ×" + c.accelerators + (c.batchSize.empty() ? "" : " · batch " + c.batchSize) +
                    " · " + c.system + " (" + series.name + ")";
    history.metric = series.spec.metric;
    const benchmark::SeriesPoint* latest = benchmark::latestJudged(status.points);
    const std::optional<benchmark::SeriesConfirmation>& confirmation = status.confirmation;
    for (const benchmark::SeriesPoint& p : status.points) {
      HistoryPoint point{
          common::formatRfc3339(p.time), p.run, p.trial, p.value, p.spread, p.verdict, ""};
      const bool confirmed = confirmation && confirmation->state == "Regressed" &&
                             confirmation->runUid == p.runUid && confirmation->trial == p.trial;
      if (p.verdict == "Regressed" || confirmed) {
        point.alarm = "Regressed";
      } else if (&p == latest && status.state == "Suspect") {
        point.alarm = "Suspect";
      }
      history.points.push_back(std::move(point));
    }
    const bool higherIsBetter = series.spec.direction == results::Direction::kHigher;
    for (const benchmark::SeriesChange& change : status.changes) {
      history.changes.push_back(
          {common::formatRfc3339(change.time), change.run, change.before, change.after,
           higherIsBetter ? change.after < change.before : change.after > change.before});
    }
    if (status.baseline && status.noise) {
      const double baseline = *status.baseline;
      const double half = results::screeningDistance(baseline, *status.noise);
      ReferenceBand band;
      band.from = status.changes.empty() ? history.points.front().time
                                         : common::formatRfc3339(status.changes.back().time);
      band.to = history.points.back().time;
      band.baseline = baseline;
      band.low = baseline - half;
      band.high = baseline + half;
      history.band = band;
    }
    out.push_back(std::move(history));
  }
  return out;
}

}  // namespace hetbench::cli
