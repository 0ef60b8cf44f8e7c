#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/metrics.h"

namespace hetbench::results {

/// The markers in front of the JSON object of a metrics line (followed by one space).
inline constexpr std::string_view kHetbenchMarker = ":::HETBENCH";
inline constexpr std::string_view kMllogMarker = ":::MLLOG";

/// A metrics line longer than this is an error rather than parsed.
inline constexpr std::size_t kMaxMetricsLineBytes = 64 * 1024;
/// A metrics line whose JSON nests deeper than this is an error rather than parsed.
inline constexpr std::size_t kMaxJsonDepth = 32;
/// Errors kept per log; the rest are only counted.
inline constexpr std::size_t kMaxLineErrors = 100;

/// What one rank measured in one epoch.
/// What a GPU did in one epoch, from an epoch event's "gpus" (hetbench-train, NVML): what the
/// judge needs to tell a slow trial from a throttled or failing GPU.
struct GpuEpoch {
  std::string device;
  /// Shares of the epoch in which the clocks were held down, 0..1.
  std::optional<double> powerCapShare;
  std::optional<double> thermalShare;
  std::optional<double> hardwareShare;
  std::optional<double> powerLimitWatts;
  std::optional<double> defaultPowerLimitWatts;
  std::optional<std::int64_t> eccUncorrected;
  std::vector<std::int64_t> xids;

  bool operator==(const GpuEpoch&) const = default;
};

struct EpochSample {
  std::int64_t rank = 0;
  std::int64_t epoch = 0;
  double samples = 0;
  double wallSeconds = 0;
  std::optional<double> ioSeconds;
  std::optional<double> computeSeconds;
  std::optional<double> energyJoules;
  bool warmup = false;
  std::vector<GpuEpoch> gpus = {};

  bool operator==(const EpochSample&) const = default;
};

/// The run as a hetbench workload describes it in its run_start event.
struct RunInfo {
  std::string benchmark;
  std::string model;
  std::int64_t worldSize = 0;
  std::int64_t globalBatchSize = 0;
  std::string precision;
  std::string device;
  std::string acceleratorName;
  std::int64_t acceleratorCount = 0;

  bool operator==(const RunInfo&) const = default;
};

/// A problem with one line of a log (`line` counts from 1 in each source), or with the log as
/// a whole (`line` 0).
struct LineError {
  std::string source;
  std::int64_t line = 0;
  std::string message;

  bool operator==(const LineError&) const = default;
};

/// "worker-0 line 12: message"; the source and line are left out when unknown.
std::string toString(const LineError& error);

/// What a log gave: epoch samples, named scalar metrics, and every error found.
struct ParsedLog {
  std::optional<RunInfo> run;
  /// The ranks that each epoch must be reported by; unknown without epochs.
  std::optional<std::int64_t> worldSize;
  std::vector<EpochSample> epochs;  // in the order of their lines
  MetricValues scalars;
  std::vector<LineError> errors;  // the first kMaxLineErrors
  std::int64_t errorsOmitted = 0;
};

/// Ok when the log has no errors; else Invalid, its message naming the first few.
common::Status logStatus(const ParsedLog& log);

/// Reads metrics out of container logs, one line at a time. The lines of several sources
/// (pods and containers, named as the caller likes) may interleave, each source's lines in
/// order. A line may begin with a kubelet RFC 3339 timestamp and a space (logs fetched with
/// timestamps=true); a trailing carriage return or newline is ignored. Nothing throws: a bad
/// line becomes a LineError.
class LogParser {
 public:
  virtual ~LogParser() = default;

  virtual void consume(std::string_view source, std::string_view line) = 0;

  /// What the lines consumed so far give; consuming may go on afterwards.
  virtual ParsedLog result() const = 0;
};

/// hetbench's JSON lines (`:::HETBENCH {...}`, docs/metrics.md): run_start, epoch and run_end
/// events of every rank.
std::unique_ptr<LogParser> makeHetbenchParser();

/// MLPerf logging (`:::MLLOG {...}`): epochs from epoch_start/epoch_stop, samples from
/// train_samples and global_batch_size or from tracked_stats throughput, time to train from
/// run_start/run_stop (docs/metrics.md lists every key it reads).
std::unique_ptr<LogParser> makeMlperfParser();

/// spec.metrics patterns: each line is matched against every pattern and each metric reduced
/// over its matches. Invalid when a spec does not compile (as parseMetricSpecs words it).
common::Result<std::unique_ptr<LogParser>> makePatternParser(const std::vector<MetricSpec>& specs);

}  // namespace hetbench::results
