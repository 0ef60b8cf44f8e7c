#pragma once

#include <map>
#include <string>
#include <string_view>

namespace hetbench::results {

// The metrics hetbench derives itself (docs/metrics.md defines each one).
inline constexpr std::string_view kEffectiveThroughput = "effective_throughput";
inline constexpr std::string_view kComputeThroughput = "compute_throughput";
inline constexpr std::string_view kComputeFraction = "compute_fraction";
inline constexpr std::string_view kWallSeconds = "wall_seconds";
inline constexpr std::string_view kIoSeconds = "io_seconds";
inline constexpr std::string_view kComputeSeconds = "compute_seconds";
inline constexpr std::string_view kEnergyJoules = "energy_joules";
inline constexpr std::string_view kSamplesPerWh = "samples_per_wh";
/// MLPerf's time to train: run_start to a run_stop with status "success".
inline constexpr std::string_view kTimeToTrainSeconds = "time_to_train_seconds";

struct BuiltinMetric {
  std::string_view name;
  std::string_view unit;  // empty for a ratio
};

/// Every metric hetbench derives, in the order summaries keep them (headline first).
inline constexpr BuiltinMetric kBuiltinMetrics[] = {
    {kEffectiveThroughput, "samples/s"},
    {kComputeThroughput, "samples/s"},
    {kComputeFraction, ""},
    {kWallSeconds, "s"},
    {kIoSeconds, "s"},
    {kComputeSeconds, "s"},
    {kEnergyJoules, "J"},
    {kSamplesPerWh, "samples/Wh"},
    {kTimeToTrainSeconds, "s"},
};

/// The built-in metric called `name`; nullptr when it is none.
const BuiltinMetric* builtinMetric(std::string_view name);

/// Metric values by name (one repetition, or one log).
using MetricValues = std::map<std::string, double>;

/// Units by metric name.
using MetricUnits = std::map<std::string, std::string>;

/// Whether `name` may name a metric: a letter or '_', then letters, digits and '_', at most
/// 63 characters, so that it also fits a Prometheus label value and a metric name.
bool isMetricName(std::string_view name);

}  // namespace hetbench::results
