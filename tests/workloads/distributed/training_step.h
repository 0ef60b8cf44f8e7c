#pragma once

// The training step of the two-process acceptance test, shared by the test (one process on the
// whole batch) and distributed_rank (one rank on its half).

#include <torch/optim/sgd.h>

#include <cstdint>

#include "hetbench/distributed/gradient_reducer.h"
#include "hetbench/models/cosmoflow.h"
#include "hetbench/models/model.h"

namespace hetbench::distributed::testing {

/// CosmoFlow at 32^3 without dropout: nothing random in the step, no BatchNorm, so the ranks'
/// halves of the batch add up to the whole batch exactly.
inline models::CosmoFlow stepModel(uint64_t seed) {
  torch::manual_seed(seed);
  return models::CosmoFlow(models::CosmoFlowOptions().inputSize(32).dropout(0.0));
}

constexpr uint64_t kModelSeed = 100;
constexpr int64_t kGlobalBatch = 4;

/// The whole batch, the same in every process.
inline models::Batch globalBatch() {
  torch::manual_seed(7);
  auto input = torch::rand({kGlobalBatch, 4, 32, 32, 32});
  auto target = torch::rand({kGlobalBatch, 4}) * 2 - 1;
  return {input, target};
}

/// One SGD step (learning rate 0.1) on the batch; the reducer, if any, averages the gradients
/// between backward and the update.
inline void sgdStep(models::CosmoFlow& model, const models::Batch& batch,
                    GradientReducer* reducer) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  optimizer.zero_grad();
  models::cosmoflowLoss(model->forward(batch.input), batch.target).backward();
  if (reducer != nullptr) reducer->finish();
  optimizer.step();
}

}  // namespace hetbench::distributed::testing
