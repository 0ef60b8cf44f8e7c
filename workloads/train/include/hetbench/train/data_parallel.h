#pragma once

#include <hetbench/distributed/communicator.h>
#include <hetbench/distributed/gradient_reducer.h>
#include <hetbench/models/descriptor.h>

#include <memory>
#include <vector>

#include "hetbench/train/trainer.h"

namespace hetbench::train {

/// How the ranks keep BatchNorm's running statistics in step; each model's reference's is its
/// descriptor's bufferSync: resnet50 broadcasts (torchvision's recipe: DDP with its defaults),
/// deepcam averages each epoch, cosmoflow has no BatchNorm.
using models::BufferSync;

struct DataParallelOptions {
  BufferSync buffers = BufferSync::kNone;
  /// Averages the gradients in buckets while backward runs (GradientReducer). Off: one
  /// all-reduce of every gradient after backward, which a CUDA graph needs: its replay runs no
  /// autograd hooks.
  bool overlapWithBackward = true;
  distributed::GradientReducerOptions reducer;
};

/// The Collective of a data-parallel run over a Communicator: rank 0's weights and buffers
/// before the first step, gradients averaged as DistributedDataParallel averages them,
/// BatchNorm buffers kept as `options.buffers` says, and the epoch figures of every rank
/// gathered in one all-reduce. A Communicator of one process makes every call a no-op.
class DataParallel final : public Collective {
 public:
  DataParallel(distributed::Communicator& comm, DataParallelOptions options);
  ~DataParallel() override;
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int64_t rank() const override;
  int64_t worldSize() const override;
  /// Also builds the gradient reducer on the module, which must be on its device by now.
  void broadcastParameters(torch::nn::Module& module) override;
  /// With the reducer, `gradients` are not needed: its hooks have them already.
  void averageGradients(const std::vector<torch::Tensor>& gradients) override;
  void trainingEpochEnded(torch::nn::Module& module) override;
  std::vector<EpochFigures> gatherFigures(const EpochFigures& mine) override;

 private:
  distributed::Communicator& comm_;
  const DataParallelOptions options_;
  torch::nn::Module* module_ = nullptr;
  std::unique_ptr<distributed::GradientReducer> reducer_;
};

}  // namespace hetbench::train
