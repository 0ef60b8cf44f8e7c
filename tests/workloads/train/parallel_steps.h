#pragma once

// The training of the two-rank DataParallel test, shared by the test (one process on the whole
// batch) and train_rank (one rank on its half).

#include <hetbench/models/cosmoflow.h>
#include <hetbench/models/model.h>
#include <torch/utils.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "hetbench/train/trainer.h"

namespace hetbench::train::testing {

/// CosmoFlow at 32^3 without dropout: nothing random in a step and no BatchNorm, so that the
/// ranks' halves of a batch add up to the whole batch exactly.
class DeterministicCosmoFlow final : public models::Model {
 public:
  DeterministicCosmoFlow() : net_(models::CosmoFlowOptions().inputSize(kSide).dropout(0.0)) {}

  models::ModelKind kind() const override { return models::ModelKind::kCosmoflow; }
  torch::nn::Module& module() override { return *net_; }
  torch::Tensor forward(const torch::Tensor& input) override { return net_(input); }
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) override {
    return models::cosmoflowLoss(output, target);
  }
  std::vector<int64_t> sampleShape() const override { return {4, kSide, kSide, kSide}; }
  models::Batch randomBatch(int64_t size) const override {
    return {torch::rand({size, 4, kSide, kSide, kSide}), torch::rand({size, 4}) * 2 - 1};
  }

 private:
  static constexpr int64_t kSide = 32;
  models::CosmoFlow net_;
};

/// The model of a test case at a reduced size, its weights drawn from `seed`.
inline std::unique_ptr<models::Model> parallelModel(models::ModelKind kind, uint64_t seed) {
  torch::manual_seed(seed);
  if (kind == models::ModelKind::kCosmoflow) {
    return std::make_unique<DeterministicCosmoFlow>();
  }
  return models::makeModel(kind,
                           models::ModelOptions().sampleSize(kind == models::ModelKind::kDeepcam
                                                                 ? std::vector<int64_t>{32, 48}
                                                                 : std::vector<int64_t>{32}));
}

constexpr uint64_t kModelSeed = 100;
constexpr int64_t kGlobalBatch = 4;
constexpr int64_t kSteps = 2;

/// The whole batch, the same in every process.
inline models::Batch wholeBatch(const models::Model& model) {
  torch::manual_seed(7);
  return model.randomBatch(kGlobalBatch);
}

/// kSteps steps of SGD with momentum on `batch`, one epoch of a Trainer over `collective`.
inline EpochFigures trainSteps(models::Model& model, const models::Batch& batch,
                               Collective& collective) {
  TrainerConfig config;
  config.hyper.optimizer = OptimizerKind::kSgd;
  config.hyper.lr = 0.05;
  config.hyper.momentum = 0.9;
  Trainer trainer(model, config, collective);
  TrainingData data = TrainingData::fixedBatch(batch, kSteps);
  return trainer.trainEpoch(0, data, false);
}

}  // namespace hetbench::train::testing
