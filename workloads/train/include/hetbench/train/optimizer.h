#pragma once

#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "hetbench/train/options.h"

namespace hetbench::train {

/// Updates parameters from their gradients with LibTorch's multi-tensor `at::_foreach_*`
/// kernels: a handful of calls per step for all parameters together rather than a few small
/// kernels per parameter, which is what dominates an optimizer step on a GPU.
class Optimizer {
 public:
  virtual ~Optimizer() = default;

  /// One update of every parameter that has a gradient. It may change the gradients in place
  /// (weight decay is added to them), as they are consumed by the step.
  virtual void step() = 0;

  /// Drops the gradients (PyTorch's zero_grad(set_to_none=True)), so that the next backward
  /// hands each parameter its gradient rather than adding it to a zeroed one: one kernel per
  /// parameter and step fewer than zeroing in place.
  void clearGradients();

  /// The parameters' gradients that are defined, in parameter order: what a distributed run
  /// averages between backward and step.
  std::vector<torch::Tensor> gradients() const;

  const std::vector<torch::Tensor>& parameters() const { return params_; }

 protected:
  explicit Optimizer(std::vector<torch::Tensor> params);

  /// The parameters with a gradient now, their gradients, and their indices in params_.
  struct Live {
    std::vector<torch::Tensor> params;
    std::vector<torch::Tensor> grads;
    std::vector<size_t> indices;
  };
  Live live() const;

  std::vector<torch::Tensor> params_;
};

/// torch.optim.SGD's update (weight decay as L2 on the gradient, momentum with dampening 0,
/// no Nesterov): g += wd * p; buf = g on the first step, else buf = momentum * buf + g;
/// p -= lr * buf.
class ForeachSgd final : public Optimizer {
 public:
  ForeachSgd(std::vector<torch::Tensor> params, double lr, double momentum, double weightDecay);
  void step() override;

 private:
  double lr_;
  double momentum_;
  double weightDecay_;
  std::vector<torch::Tensor> momentumBuffers_;  // by parameter index; undefined until used
};

/// torch.optim.Adam's update (amsgrad off), or AdamW's when `decoupledWeightDecay`: Adam adds
/// wd * p to the gradient, AdamW scales p by 1 - lr * wd first. All parameters share one step
/// count, which is exact as long as every parameter gets a gradient at every step.
class ForeachAdam final : public Optimizer {
 public:
  ForeachAdam(std::vector<torch::Tensor> params, double lr, double beta1, double beta2, double eps,
              double weightDecay, bool decoupledWeightDecay);
  void step() override;

 private:
  double lr_;
  double beta1_;
  double beta2_;
  double eps_;
  double weightDecay_;
  bool decoupled_;
  int64_t steps_ = 0;
  std::vector<torch::Tensor> expAvg_;    // by parameter index
  std::vector<torch::Tensor> expAvgSq_;  // by parameter index
};

/// The optimizer that `hyper` names, over `params`.
std::unique_ptr<Optimizer> makeOptimizer(std::vector<torch::Tensor> params,
                                         const Hyperparameters& hyper);

}  // namespace hetbench::train
