#pragma once

#include <hetbench/models/model.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/train/epoch_timer.h"
#include "hetbench/train/figures.h"
#include "hetbench/train/grad_scaler.h"
#include "hetbench/train/optimizer.h"
#include "hetbench/train/options.h"

namespace hetbench::data {
class Loader;
}

namespace hetbench::train {

namespace cuda {
class StepGraph;
}

/// The ranks of a run, where a multi-process run plugs into the training loop. Each call is
/// collective: every rank makes it at the same point.
class Collective {
 public:
  virtual ~Collective() = default;

  virtual int64_t rank() const = 0;
  virtual int64_t worldSize() const = 0;
  /// Once, before the first step: every rank takes rank 0's parameters and buffers.
  virtual void broadcastParameters(torch::nn::Module& module) = 0;
  /// Every step, after backward and before the optimizer (and before fp16 unscaling): each
  /// gradient becomes the mean over the ranks, in place.
  virtual void averageGradients(const std::vector<torch::Tensor>& gradients) = 0;
  /// Every epoch, after its last step and before its evaluation (untimed).
  virtual void trainingEpochEnded(torch::nn::Module& module) = 0;
  /// Every epoch: each rank's figures, indexed by rank (combineRanks makes them one).
  virtual std::vector<EpochFigures> gatherFigures(const EpochFigures& mine) = 0;
};

/// A world of one process: nothing to exchange.
class SingleProcess final : public Collective {
 public:
  int64_t rank() const override { return 0; }
  int64_t worldSize() const override { return 1; }
  void broadcastParameters(torch::nn::Module&) override {}
  void averageGradients(const std::vector<torch::Tensor>&) override {}
  void trainingEpochEnded(torch::nn::Module&) override {}
  std::vector<EpochFigures> gatherFigures(const EpochFigures& mine) override { return {mine}; }
};

/// An evaluation metric (a model's: ModelDescriptor::metric) summed over a batch
/// (EvalTotals::metricSum), a double scalar on the output's device: top-1 hits (resnet50); each
/// sample's mean absolute error (cosmoflow); each sample's IoU averaged over the classes, a class
/// in neither the prediction nor the truth counting as 1 (deepcam, the MLPerf HPC reference's
/// compute_score).
torch::Tensor evalMetricSum(models::MetricKind metric, const torch::Tensor& output,
                            const torch::Tensor& target);

/// What an epoch trains (or an evaluation runs) on.
class TrainingData {
 public:
  /// One batch, already on the device (Trainer::toDevice), used at every one of `steps` steps:
  /// the compute alone, with no I/O to time.
  static TrainingData fixedBatch(models::Batch batch, int64_t steps);
  /// The loader's batches, moved to the device as they come: `steps` per epoch, or all of them
  /// when `steps` is 0. The loader must outlive the data.
  static TrainingData fromLoader(data::Loader& loader, int64_t steps);

 private:
  friend class Trainer;
  TrainingData() = default;

  std::optional<models::Batch> batch_;
  data::Loader* loader_ = nullptr;
  int64_t steps_ = 0;
};

struct TrainerConfig {
  torch::Device device = torch::kCPU;
  Precision precision = Precision::kFp32;
  bool channelsLast = false;
  /// Captures forward and backward as a CUDA graph after warm-up runs and replays it; the
  /// gradient averaging and the optimizer step run outside the graph.
  bool cudaGraphs = false;
  Hyperparameters hyper;
  MonotonicClock clock = steadyClock();
  /// A cumulative counter of the energy this rank's accelerators used, in joules (an energy
  /// meter); read at each epoch's start and end. Unset: epochs carry no energy.
  std::function<double()> energyJoules;
  /// The window of each of this rank's GPUs since the last call (a health monitor); called at
  /// each training epoch's start and end. Unset: epochs carry no GPU figures.
  std::function<std::vector<energy::DeviceWindow>()> deviceHealth;
};

/// Trains a model: moves it to the device (channels-last if asked), has every rank start from
/// the same weights, and runs epochs and evaluations with the reference's optimizer, autocast
/// for bf16 and fp16, and loss scaling for fp16. Throws std::invalid_argument for a precision
/// or CUDA graphs on a device that cannot have them.
class Trainer {
 public:
  Trainer(models::Model& model, TrainerConfig config, Collective& collective);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// One epoch, timed by an EpochTimer: I/O is the time spent starting the loader's epoch,
  /// waiting for its batches and moving them to the device (synchronised with the device at
  /// every boundary); a fixed batch has none. Throws std::runtime_error when the data gives no
  /// batch.
  EpochFigures trainEpoch(int64_t epoch, TrainingData& data, bool warmup);

  /// An evaluation pass in eval mode without gradients: loss and the model's metric as sums.
  EvalTotals evaluate(TrainingData& data);

  /// One training step on a batch on the device: forward and loss (under autocast), backward
  /// (of the scaled loss for fp16), gradient averaging, optimizer step (skipped by the scaler
  /// on inf or NaN). Returns the loss without waiting for it.
  torch::Tensor step(const models::Batch& batch);

  /// A batch on the trainer's device, in channels-last layout if asked; asynchronous from
  /// page-locked memory to CUDA.
  models::Batch toDevice(const models::Batch& batch) const;

 private:
  void forwardBackward(const models::Batch& batch);
  void finishStep();
  void synchronize() const;

  models::Model& model_;
  TrainerConfig config_;
  Collective& collective_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<GradScaler> scaler_;
  torch::Tensor lastLoss_;
  models::Batch graphBatch_;  // the captured graph's input and target
  std::unique_ptr<cuda::StepGraph> graph_;
};

}  // namespace hetbench::train
