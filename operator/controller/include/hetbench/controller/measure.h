#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/controller/run_status.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/reference.h"
#include "hetbench/results/summary.h"

namespace hetbench::controller {

/// What one unit's kept logs give.
struct UnitMeasurement {
  common::Status status;  // Invalid when a metrics line is malformed (the message says where)
  results::UnitSummary summary;      // empty when the logs carry no metrics
  std::vector<std::string> missing;  // metrics of `required` the logs lack
};

/// Reads every `*.log` under `unitDir` (each file a source named by its path below the unit),
/// through the hetbench JSON-lines and MLPerf readers and, when `specs` is not empty, the
/// spec.metrics patterns. The epochs come from the hetbench lines when the logs have any, else
/// from the MLPerf lines; the patterns add named metrics. docs/metrics.md has the rules.
UnitMeasurement measureUnit(const std::filesystem::path& unitDir,
                            const std::vector<results::MetricSpec>& specs,
                            const results::AggregationOptions& options,
                            const std::vector<std::string>& required);

/// One trial's statistics over its succeeded repetitions and its verdict.
struct TrialResult {
  std::int64_t trial = 0;
  results::TrialMetrics metrics;
  results::TrialVerdict verdict;
};

/// Judges every trial whose units have all ended and whose succeeded units have been measured
/// (from the summaries in their records), in trial order, against the references that
/// `referencesOf` gives for the trial. A trial none of whose repetitions succeeded is left out.
std::vector<TrialResult> judgeTrials(
    const std::vector<UnitRecord>& units,
    const std::function<results::References(std::int64_t trial)>& referencesOf,
    const std::vector<std::string>& required);

}  // namespace hetbench::controller
