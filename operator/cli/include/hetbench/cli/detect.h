#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/change_points.h"
#include "hetbench/results/noise.h"
#include "hetbench/results/reference.h"

namespace hetbench::cli {

/// One trial of a series, as `hetbench detect --file` reads it.
struct SeriesPoint {
  /// The `time` column as written (RFC 3339, seconds, a run number): only shown, never parsed.
  std::string time;
  double value = 0;
  /// The standard deviation of the trial's repetitions, when the file has a `spread` column.
  std::optional<double> spread = {};
};

/// Reads a series from CSV: a header naming the columns `time` and `value` and optionally
/// `spread` (in any order; no other column), then one trial per line, oldest first. Fields are
/// plain (no quoting); blank lines are skipped. Invalid, naming the line, when a row has the
/// wrong number of fields, a value or spread is not a finite number, a spread is negative, or
/// there is no row.
common::Result<std::vector<SeriesPoint>> parseSeriesCsv(std::string_view text);

struct DetectOptions {
  results::ChangePointOptions changePoints = {};
  results::ScreeningOptions screening = {};
  results::Direction direction = results::Direction::kHigher;
};

/// What the operator's method makes of a series (docs/metrics.md, "Change points"): its change
/// points (results::findChangePoints over the latest window), and the last point screened
/// (results::screen) against the points before it since the latest change point, as JSON:
///   {"points": N, "changePoints": [{"index", "time", "before", "after", "magnitude",
///    "pValue"}], "last": {"time", "value", "verdict", "change", "scales", "message"},
///    "noise": {"median", "scale", "points"}}
/// "noise" is absent when the verdict is InsufficientHistory. Indexes are into the whole series.
nlohmann::json detect(const std::vector<SeriesPoint>& series, const DetectOptions& options);

}  // namespace hetbench::cli
