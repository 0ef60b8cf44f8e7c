#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/parser.h"
#include "hetbench/results/summary.h"

namespace hetbench::results {

/// What one unit's kept logs give.
struct UnitMeasurement {
  common::Status status;  // Invalid when a metrics line is malformed (the message says where)
  UnitSummary summary;    // empty when the logs carry no metrics
  std::vector<std::string> missing;  // metrics of `required` the logs lack
};

/// Reads one unit's logs, fed line by line from every container (each a named source), through
/// the hetbench JSON-lines and MLPerf readers and, when there are spec.metrics, their patterns.
/// The epochs come from the hetbench lines when the logs have any, else from the MLPerf lines;
/// the patterns add named metrics. docs/metrics.md has the rules.
class UnitMeasurer {
 public:
  /// Invalid when a spec's pattern does not compile (validated specs always do).
  static common::Result<UnitMeasurer> make(const std::vector<MetricSpec>& specs);

  void consume(std::string_view source, std::string_view line);

  /// The unit's measurement: its summary keeps the `required` metrics exact (they are judged).
  UnitMeasurement finish(const AggregationOptions& options,
                         const std::vector<std::string>& required);

 private:
  UnitMeasurer() = default;
  std::unique_ptr<LogParser> hetbench_;
  std::unique_ptr<LogParser> mlperf_;
  std::unique_ptr<LogParser> patterns_;
};

}  // namespace hetbench::results
