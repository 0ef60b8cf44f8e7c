#pragma once

#include <hetbench/models/batch_norm_kernels.h>
#include <hetbench/models/descriptor.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/train/figures.h"

namespace hetbench::train {

/// A run as its run_start event describes it (docs/metrics.md), with the settings that tell a
/// reduced or tuned run apart from the benchmark's (extra fields, which the operator ignores).
struct RunDescription {
  /// Its descriptor names run_start's benchmark and model (resnet50, resnet50-v1.5).
  models::ModelKind benchmark = models::ModelKind::kResnet50;
  int64_t worldSize = 1;
  int64_t rank = 0;
  int64_t globalBatchSize = 0;
  std::string precision;
  std::string device;  // cuda, cpu
  std::string acceleratorName;
  int64_t acceleratorCount = 0;
  std::vector<int64_t> sampleShape;
  std::string data;  // synthetic or the dataset's directory
  int64_t stepsPerEpoch = 0;
  std::string optimizer;
  double lr = 0;
  bool channelsLast = false;
  models::BatchNormKernels batchNorm = models::BatchNormKernels::kAten;
  bool cudaGraphs = false;
  uint64_t seed = 0;
};

/// Whether an evaluation reached the benchmark's MLPerf quality target (its descriptor's
/// EvalMetric): top-1 accuracy 0.759 (resnet50), mean absolute error 0.124 (cosmoflow), IoU 0.82
/// (deepcam).
bool reachesTarget(models::ModelKind benchmark, const EvalTotals& eval);

/// The CPU's model name from the text of /proc/cpuinfo ("model name"); "unknown CPU" without.
std::string cpuModelName(std::string_view procCpuinfo);

/// cpuModelName of this machine's /proc/cpuinfo.
std::string thisCpuModelName();

/// Writes a rank's metrics lines: `:::HETBENCH` JSON events (every rank) and, when asked,
/// MLPerf `:::MLLOG` lines (rank 0 only, with the figures of all ranks, as MLPerf loggers do).
/// Each line is written whole and flushed, so that a log collector sees it at once.
class Reporter {
 public:
  /// Milliseconds since the Unix epoch, for MLLOG's time_ms.
  using WallClock = std::function<double()>;

  Reporter(std::ostream& out, int64_t rank, bool mllog, WallClock wallClock);

  void runStart(const RunDescription& run);
  void epochStart(int64_t epoch);
  void epochStop(int64_t epoch);
  void evalStart(int64_t epoch);
  void evalStop(int64_t epoch);
  /// The epoch event with this rank's figures and, from `all` (combineRanks), the evaluation of
  /// all ranks; MLLOG's throughput and evaluation result.
  void epoch(const EpochFigures& mine, const EpochFigures& all);
  /// run_end ok, and MLLOG run_stop: success when the last evaluation reached the target.
  void runEnd(bool targetReached);
  /// run_end error with the message, and MLLOG run_stop aborted.
  void runFailed(std::string_view message);

 private:
  void mllog(std::string_view key, std::string_view eventType, const std::string& valueJson,
             const std::string& metadataJson);

  std::ostream& out_;
  int64_t rank_;
  bool mllog_;
  WallClock wallClock_;
  models::ModelKind benchmark_ = models::ModelKind::kResnet50;
};

/// The system clock in milliseconds since the Unix epoch.
Reporter::WallClock systemWallClock();

}  // namespace hetbench::train
