#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/metrics.h"

namespace hetbench::results {

/// Which way a metric gets better.
enum class Direction { kHigher, kLower };

/// "higher", "lower".
std::string toString(Direction direction);

/// Where a reference's value comes from when the spec gives none: the metric's `statistic` over
/// the trials of the same configuration in the latest `runs` earlier runs that passed.
struct HistoryBaseline {
  enum class Statistic { kMedian, kMean };
  std::int64_t runs = 5;
  /// With fewer passing runs than this there is no reference yet (NoReference).
  std::int64_t minRuns = 3;
  Statistic statistic = Statistic::kMedian;

  bool operator==(const HistoryBaseline&) const = default;
};

/// "median", "mean".
std::string toString(HistoryBaseline::Statistic statistic);

/// The statistic of `values` (not empty).
double baselineOf(HistoryBaseline::Statistic statistic, std::vector<double> values);

/// A reference result: the band [value × (1 − lower), value × (1 + upper)], bounds inclusive;
/// an absent bound leaves that side open.
struct Reference {
  double value = 0;
  std::optional<double> lower;  // a fraction of value, 0..1
  std::optional<double> upper;  // a fraction of value, at least 0
  std::string unit;
  Direction direction = Direction::kHigher;
  /// Set for a reference from history; the controller resolves it into `value` (0 while there
  /// is too little history) and `basis`, which the checks' messages quote.
  std::optional<HistoryBaseline> fromHistory;
  std::string basis;

  bool operator==(const Reference&) const = default;
};

/// References by metric name.
using References = std::map<std::string, Reference>;

/// Parses spec.references, an object from metric name to {value, lower, upper, unit,
/// direction, fromHistory} (null reads as empty; null fields count as absent; unknown fields are
/// ignored). Exactly one of `value` (above 0) and `fromHistory` ({runs: 1..100, default 5;
/// minRuns: 1..runs, default min(3, runs); statistic: median or mean}) is required; `unit` defaults
/// to the metric's unit in `units` and, when both are known, must equal it. Errors are Invalid, one
/// cause per problem naming its field
/// (`spec.references.effective_throughput.lower`). Never throws.
common::Result<References> parseReferences(const nlohmann::json& references,
                                           const MetricUnits& units);

/// Ordered from least to most severe: a run's verdict is its trials' most severe one. Invalid: a
/// repetition's GPUs say its measurement cannot be trusted (throttled, or failing), so the trial
/// is neither a pass nor a regression, and never a baseline.
/// From least to most severe (a trial's verdict is its most severe check's).
enum class Verdict { kNoReference, kPass, kInconclusive, kRegressed, kInvalid, kMetricMissing };

/// "NoReference", "Pass", "Inconclusive", "Regressed", "Invalid", "MetricMissing": the spellings
/// of status.verdict.
std::string toString(Verdict verdict);

/// The outcome for one metric, with a message that has the numbers.
struct MetricCheck {
  std::string metric;
  Verdict verdict = Verdict::kNoReference;
  std::string message;

  bool operator==(const MetricCheck&) const = default;
};

struct TrialVerdict {
  Verdict verdict = Verdict::kNoReference;
  std::vector<MetricCheck> checks;  // by metric name
  /// Why the trial is Invalid ("repetition 1: rank 0, GPU 0 (...): thermal slowdown for ...").
  std::string invalid = {};

  bool operator==(const TrialVerdict&) const = default;
};

/// Judges a trial: each metric with a reference or in `required` must be present in every
/// repetition (else MetricMissing); a history reference without a value yet is NoReference; a
/// referenced metric's mean is Regressed when it lies beyond the band on the worse side of
/// `direction`; else Pass when it is shown within the tolerance: with two repetitions or more,
/// by a non-inferiority test, the one-sided 95% confidence bound of the mean on the worse side
/// (Student's t) inside the band too, and Inconclusive when it is not (more repetitions would
/// tell); with one repetition there is no spread to test, and the mean decides. Beyond the band
/// on the better side is an improvement: Pass, with a note. The trial's verdict is its most
/// severe check's, NoReference when there is none.
TrialVerdict judgeTrial(const TrialMetrics& trial, const References& references,
                        const std::vector<std::string>& required);

/// The 95th percentile of Student's t distribution with `degrees` (at least 1) degrees of
/// freedom.
double studentT95(std::int64_t degrees);

/// The most severe of `trials`; NoReference when empty.
Verdict runVerdict(const std::vector<Verdict>& trials);

}  // namespace hetbench::results
