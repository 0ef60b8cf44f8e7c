#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/metrics.h"
#include "hetbench/results/parser.h"
#include "hetbench/results/throttling.h"

namespace hetbench::results {

struct AggregationOptions {
  /// Epochs left out at the start (by epoch index) besides those flagged warmup; unset means 1
  /// when the log has more than one epoch, else 0.
  std::optional<std::int64_t> warmupEpochs;
  /// When the GPUs' own reports (epoch events' "gpus") make the measured epochs untrustworthy.
  ThrottleLimits throttle = {};
};

/// The metrics of one repetition (one unit's log).
struct RepetitionMetrics {
  MetricValues values;
  std::int64_t epochsMeasured = 0;
  std::int64_t epochsExcluded = 0;  // warm-up epochs left out
  /// Why the measured epochs cannot be judged (untrustworthyGpus); empty when they can.
  std::string invalid = {};

  bool operator==(const RepetitionMetrics&) const = default;
};

/// Reduces a log to its repetition's metrics: each epoch across ranks (samples and energy
/// summed, times the maximum over ranks), then the kept epochs together (totals; a throughput
/// is total samples over total seconds), plus the log's scalar metrics. A metric is left out
/// when some kept epoch lacks what it needs (energy from one rank, say) or its denominator is
/// zero. Invalid when the log has errors, an epoch was not reported by exactly the ranks
/// 0..worldSize-1 (the message names the epoch), every epoch is a warm-up epoch, a scalar
/// has the name of a metric derived from the epochs, or a metric is beyond the range of a
/// double. A repetition whose GPUs say its measured epochs were throttled or failing
/// (untrustworthyGpus) keeps its metrics and says why in `invalid`.
common::Result<RepetitionMetrics> aggregateRepetition(const ParsedLog& log,
                                                      const AggregationOptions& options = {});

/// One metric over the repetitions of a trial; `stddev` is the sample standard deviation
/// (n - 1), 0 when n is 1.
struct MetricStats {
  double mean = 0;
  double stddev = 0;
  double min = 0;
  double max = 0;
  std::int64_t n = 0;

  bool operator==(const MetricStats&) const = default;
};

/// A trial's metrics over its repetitions; a metric that some repetitions lack has n below
/// `repetitions`.
struct TrialMetrics {
  std::int64_t repetitions = 0;
  std::map<std::string, MetricStats> metrics;

  bool operator==(const TrialMetrics&) const = default;
};

TrialMetrics aggregateTrial(const std::vector<MetricValues>& repetitions);

}  // namespace hetbench::results
