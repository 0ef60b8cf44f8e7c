#pragma once

// The data of the figures of `hetbench report --format html`, the figures of the papers this
// project grows from (docs/api.md, "hetbench report"): pure functions of the report's rows and
// of BenchmarkSeries objects, so that what each figure shows is tested without a browser.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/cli/report.h"

namespace hetbench::cli {

/// A point of a line: the mean of the trials with the same line and x (several runs of one
/// configuration), with the root mean square of their standard deviations.
struct LinePoint {
  std::string line;
  double x = 0;
  double y = 0;
  double spread = 0;
  std::int64_t trials = 0;
};

/// Effective throughput against global batch size, one line per benchmark and accelerator, at
/// that accelerator's smallest count (the line's name says which). Rows without a batch size,
/// a count or effective throughput are left out.
std::vector<LinePoint> throughputByBatchSize(const std::vector<ReportRow>& rows);

/// A point of the scaling figure, with the throughput of linear scaling from the line's
/// smallest count.
struct ScalingPoint {
  LinePoint measured;
  double ideal = 0;
};

/// Effective throughput against accelerator count, one line per benchmark, accelerator and
/// batch size; only lines measured at two counts or more.
std::vector<ScalingPoint> scalingByCount(const std::vector<ReportRow>& rows);

/// One configuration's compute and effective throughput: effective / compute is the share of
/// the time not spent waiting for input.
struct IoShare {
  std::string configuration;
  double compute = 0;
  double effective = 0;
};

/// The configurations whose trials report both throughputs (means over their trials).
std::vector<IoShare> ioShares(const std::vector<ReportRow>& rows);

/// One configuration's energy per sample, in joules: 3600 / (samples per Wh).
struct EnergyPoint {
  std::string configuration;
  double joulesPerSample = 0;
  /// The standard deviation carried through 3600 / x to first order.
  double spread = 0;
};

/// The configurations whose trials measured samples per Wh (positive).
std::vector<EnergyPoint> energyPerSample(const std::vector<ReportRow>& rows);

/// "resnet50 · NVIDIA-A100 ×4 · batch 256": benchmark, hardware, accelerators, batch size.
std::string configurationLabel(const ReportRow& row);

/// One point of a configuration's history.
struct HistoryPoint {
  std::string time;  // RFC 3339
  std::string run;
  std::int64_t trial = 0;
  double value = 0;
  double spread = 0;
  std::string verdict;  // in its run
  /// "Regressed" (its run's verdict, or confirmed by reruns), "Suspect" (the series' latest
  /// judged point, screened suspect and not yet confirmed) or "" (neither).
  std::string alarm;
};

/// A change point: the first point of a new level, worse or better than the level before.
struct HistoryChange {
  std::string time;
  std::string run;
  double before = 0;
  double after = 0;
  bool worse = false;
};

/// The values screening takes as within noise, around the baseline, from `from` (the latest
/// change point, else the first point) to the latest point: baseline ± the larger of
/// ScreeningOptions' minChange × baseline and minScales × noise (the operator's defaults).
struct ReferenceBand {
  std::string from;
  std::string to;
  double baseline = 0;
  double low = 0;
  double high = 0;
};

/// One BenchmarkSeries: its points, reference band and change points.
struct History {
  std::string title;  // the configuration, as configurationLabel words it, and the system
  std::string metric;
  std::vector<HistoryPoint> points;
  std::optional<ReferenceBand> band;
  std::vector<HistoryChange> changes;
};

/// The histories of BenchmarkSeries objects that have points, in the order given.
std::vector<History> histories(const std::vector<nlohmann::json>& series);

}  // namespace hetbench::cli
