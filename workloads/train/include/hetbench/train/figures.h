#pragma once

#include <hetbench/energy/health.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace hetbench::train {

/// An evaluation pass as sums, so that the ranks' passes add up: the mean loss is
/// lossSum / samples and the model's metric metricSum / samples (resnet50: top-1 hits;
/// cosmoflow: each sample's mean absolute error; deepcam: each sample's IoU, averaged over the
/// classes as the MLPerf HPC reference does).
struct EvalTotals {
  int64_t samples = 0;
  double lossSum = 0;
  double metricSum = 0;
  double seconds = 0;

  bool operator==(const EvalTotals&) const = default;
};

/// One epoch as a rank measured it (docs/metrics.md, "epoch"), plus what the run adds: the
/// energy its accelerators used when a meter is attached, what they did (clocks, throttling,
/// errors) when a health monitor is, and the evaluation after the epoch.
struct EpochFigures {
  int64_t epoch = 0;
  int64_t samples = 0;
  int64_t steps = 0;
  double wallSeconds = 0;
  double ioSeconds = 0;       // waiting for batches and copying them to the device
  double computeSeconds = 0;  // wallSeconds - ioSeconds
  bool warmup = false;
  bool profiled = false;  // run under --profile, whose overhead its times include
  double lossSum = 0;     // the training loss summed over the steps
  std::optional<double> energyJoules;
  /// This rank's GPUs over the epoch; each rank reports its own (combineRanks leaves it empty).
  std::vector<energy::DeviceWindow> devices;
  std::optional<EvalTotals> eval;

  bool operator==(const EpochFigures&) const = default;
};

/// The figures of every rank as one, as the operator reduces them: samples, steps, loss, energy
/// and evaluation sums added, times the maximum over the ranks (the slowest sets the pace);
/// energy only when every rank measured it, evaluation only when every rank evaluated. Throws
/// std::invalid_argument for no figures or figures of different epochs.
EpochFigures combineRanks(const std::vector<EpochFigures>& ranks);

}  // namespace hetbench::train
