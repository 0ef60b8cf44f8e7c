#pragma once

// BenchmarkSeries (docs/metrics.md, "History per configuration"): the judged trials of one
// configuration, kept as an object of their own so that they outlive the runs that schedules
// prune, and judged as a history: a noise model, change points, and the latest trial screened.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/configuration.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/clock.h"
#include "hetbench/results/change_points.h"
#include "hetbench/results/noise.h"
#include "hetbench/results/reference.h"

namespace hetbench::benchmark {

/// The points a series keeps, newest last; older ones are dropped (Prometheus keeps them).
inline constexpr std::size_t kMaxSeriesPoints = 100;

/// One judged trial of a run, in the series of its configuration.
struct SeriesPoint {
  /// When its last unit completed.
  common::WallTime time;
  std::string run;
  std::string runUid;
  std::int64_t trial = 0;
  /// The mean of the series' metric over its repetitions, and their standard deviation.
  double value = 0;
  double spread = 0;
  std::int64_t repetitions = 0;
  /// The trial's verdict in its run; an Invalid or MetricMissing point is kept but never judged.
  std::string verdict;
  /// The nodes its units ran on, sorted, and the workload's image (template runs: "").
  std::vector<std::string> nodes;
  std::string image;

  bool operator==(const SeriesPoint&) const = default;
};

/// A change point of the series, at the first point of the new level.
struct SeriesChange {
  common::WallTime time;
  std::string run;
  double before = 0;
  double after = 0;
  double magnitude = 0;
  double pValue = 1;
  /// What differs between the points on either side of it ("image: a -> b", "nodes: x -> y").
  std::vector<std::string> changed;

  bool operator==(const SeriesChange&) const = default;
};

/// One confirmation rerun: a run of the suspect trial's configuration alone.
struct Rerun {
  std::string name;
  /// kSameNodes or kOtherNodes.
  std::string placement;
  /// Its run ended; value is the trial's mean when it was judged (absent when it failed, was
  /// Invalid or lacked the metric).
  bool done = false;
  std::optional<double> value = {};
  std::vector<std::string> nodes = {};

  bool operator==(const Rerun&) const = default;
};

/// The confirmation of a suspect trial by reruns (docs/metrics.md, "Confirmation reruns").
struct SeriesConfirmation {
  /// 1 for a series' first confirmation, and so on: part of its reruns' names.
  std::int64_t number = 0;
  /// The suspect trial: its run, trial, value and nodes.
  std::string run;
  std::string runUid;
  std::int64_t trial = 0;
  double suspect = 0;
  std::vector<std::string> nodes;
  /// The stable trials it was suspect against, fixed when the confirmation started.
  std::vector<double> baseline;
  /// From the run's spec.confirm.
  std::int64_t maxReruns = 3;
  bool otherNode = true;
  std::vector<Rerun> reruns;
  /// Confirming until it ends as Regressed, NodeSuspect, NotConfirmed or Inconclusive.
  std::string state;
  /// results::toString(Comparison) of each placement's sample ("" for one not rerun).
  std::string same;
  std::string other;
  std::string message;
  common::WallTime startTime;
  std::optional<common::WallTime> completionTime = {};
  /// A Regressed or NodeSuspect verdict still holds: later suspect trials (on the same nodes,
  /// for NodeSuspect) show it and start no confirmation, until one such trial is not suspect.
  bool standing = false;

  bool operator==(const SeriesConfirmation&) const = default;
};

/// What a series' status holds: its points and what the history policies make of them.
struct SeriesStatus {
  std::vector<SeriesPoint> points;
  /// The latest judged point's value, the median and noise it was screened against.
  std::optional<double> latest;
  std::optional<double> baseline;
  std::optional<double> noise;
  /// results::toString(Screen) of the latest judged point; "" before there is one.
  std::string state;
  std::string message;
  std::vector<SeriesChange> changes;
  /// The latest confirmation, running or ended.
  std::optional<SeriesConfirmation> confirmation = {};

  bool operator==(const SeriesStatus&) const = default;
};

/// What a series is about, fixed when it is created (spec).
struct SeriesSpec {
  Configuration configuration;
  std::string metric;
  results::Direction direction = results::Direction::kHigher;
  /// Points at or before this time are kept but never the baseline again: an accepted change
  /// (spec.acceptedAfter, set by a user).
  std::optional<common::WallTime> acceptedAfter = {};

  bool operator==(const SeriesSpec&) const = default;
};

/// The series' name: the benchmark (as a DNS label, at most 40 characters) and 10 hex digits of
/// a 64-bit FNV-1a hash of every field of the configuration, so that one configuration has one
/// name.
std::string seriesName(const Configuration& configuration);

/// The metric a trial's series follows: effective_throughput when the trial has it, else the
/// first metric by name that the run references; "" when neither (no series).
std::string seriesMetric(const AcceptedRun& accepted, const TrialResult& result);

/// The point of `result` for `metric`; none when the trial lacks the metric or has no completed
/// unit.
std::optional<SeriesPoint> seriesPoint(const Run& run, const AcceptedRun& accepted,
                                       const TrialResult& result, const std::string& metric);

/// Adds `point` in time order unless the series has it (the same run uid and trial) already;
/// keeps the latest `limit`. Whether it was added.
bool addSeriesPoint(std::vector<SeriesPoint>& points, SeriesPoint point,
                    std::size_t limit = kMaxSeriesPoints);

/// The newest point that is judged (neither Invalid nor MetricMissing); null when none is.
const SeriesPoint* latestJudged(const std::vector<SeriesPoint>& points);

struct SeriesOptions {
  results::ChangePointOptions changePoints = {};
  results::ScreeningOptions screening = {};
};

/// The values the latest judged point is screened against, oldest first: the judged points
/// after spec.acceptedAfter before it, since the latest of status.changes, the latest
/// screening.recentPoints of them.
std::vector<double> stableTrials(const SeriesSpec& spec, const SeriesStatus& status,
                                 const SeriesOptions& options = {});

/// Judges `status.points` as `spec` says: the change points of the judged points after
/// spec.acceptedAfter (results::findChangePoints), and the latest of them screened
/// (results::screen) against the points before it since the latest change.
void judgeSeries(const SeriesSpec& spec, SeriesStatus& status, const SeriesOptions& options = {});

/// One series whose latest judged point a run's trial just became, with what the series is about.
struct JudgedSeries {
  const SeriesSpec* spec = nullptr;
  SeriesStatus* status = nullptr;
};

/// Judges the trials of one run together (docs/metrics.md, "Across a matrix"): of the series in
/// `judged` whose latest point was screened, a Suspect one stays Suspect only when its
/// screening p-value is a Benjamini-Hochberg discovery among all of them at the false discovery
/// rate of one trial alone (results::screeningLevel); the others become WithinNoise, their
/// message saying why. With one series, nothing changes.
void controlFalseDiscoveries(const std::vector<JudgedSeries>& judged,
                             const SeriesOptions& options = {});

/// A BenchmarkSeries object as the model reads it.
struct Series {
  std::string name;
  /// The configuration's namespace is the object's.
  SeriesSpec spec = {};
  SeriesStatus status = {};

  bool operator==(const Series&) const = default;
};

/// Reads a BenchmarkSeries object; never throws, whatever the JSON.
Series readSeries(const nlohmann::json& object);

nlohmann::json toJson(const Configuration& configuration);
nlohmann::json toJson(const SeriesSpec& spec);
nlohmann::json toJson(const SeriesConfirmation& confirmation);
nlohmann::json toJson(const SeriesStatus& status);
/// Readers of what toJson wrote; unknown or malformed fields are left at their defaults. The
/// configuration's namespace is the object's, not part of the spec: "" here.
SeriesSpec seriesSpecFromJson(const nlohmann::json& spec);
SeriesStatus seriesStatusFromJson(const nlohmann::json& status);

}  // namespace hetbench::benchmark
