// The multi-tensor optimizers and the fp16 gradient scaler: one translation unit, since each
// LibTorch unit costs half a minute to compile.
#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_addcdiv.h>
#include <ATen/ops/_foreach_addcmul.h>
#include <ATen/ops/_foreach_div.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/_foreach_sqrt.h>
#include <ATen/ops/_foreach_zero.h>
#include <torch/torch.h>

#include <cmath>
#include <utility>

#include "hetbench/train/grad_scaler.h"
#include "hetbench/train/optimizer.h"

namespace hetbench::train {

Optimizer::Optimizer(std::vector<torch::Tensor> params) : params_(std::move(params)) {}

Optimizer::Live Optimizer::live() const {
  Live live;
  for (size_t i = 0; i < params_.size(); ++i) {
    const torch::Tensor& grad = params_[i].grad();
    if (grad.defined()) {
      live.params.push_back(params_[i]);
      live.grads.push_back(grad);
      live.indices.push_back(i);
    }
  }
  return live;
}

void Optimizer::clearGradients() {
  for (torch::Tensor& param : params_) {
    param.mutable_grad().reset();
  }
}

std::vector<torch::Tensor> Optimizer::gradients() const {
  std::vector<torch::Tensor> grads;
  grads.reserve(params_.size());
  for (const torch::Tensor& param : params_) {
    if (param.grad().defined()) {
      grads.push_back(param.grad());
    }
  }
  return grads;
}

ForeachSgd::ForeachSgd(std::vector<torch::Tensor> params, double lr, double momentum,
                       double weightDecay)
    : Optimizer(std::move(params)),
      lr_(lr),
      momentum_(momentum),
      weightDecay_(weightDecay),
      momentumBuffers_(params_.size()) {}

void ForeachSgd::step() {
  torch::NoGradGuard noGrad;
  Live now = live();
  if (now.params.empty()) {
    return;
  }
  if (weightDecay_ != 0) {
    at::_foreach_add_(now.grads, now.params, weightDecay_);
  }
  std::vector<torch::Tensor> updates = now.grads;
  if (momentum_ != 0) {
    std::vector<torch::Tensor> buffers;
    std::vector<torch::Tensor> bufferGrads;
    for (size_t k = 0; k < now.indices.size(); ++k) {
      torch::Tensor& buffer = momentumBuffers_[now.indices[k]];
      if (buffer.defined()) {
        buffers.push_back(buffer);
        bufferGrads.push_back(now.grads[k]);
      } else {
        buffer = now.grads[k].clone().detach();  // the first step: buf = g
      }
      updates[k] = buffer;
    }
    if (!buffers.empty()) {
      at::_foreach_mul_(buffers, momentum_);
      at::_foreach_add_(buffers, bufferGrads);
    }
  }
  at::_foreach_add_(now.params, updates, -lr_);
}

ForeachAdam::ForeachAdam(std::vector<torch::Tensor> params, double lr, double beta1, double beta2,
                         double eps, double weightDecay, bool decoupledWeightDecay)
    : Optimizer(std::move(params)),
      lr_(lr),
      beta1_(beta1),
      beta2_(beta2),
      eps_(eps),
      weightDecay_(weightDecay),
      decoupled_(decoupledWeightDecay),
      expAvg_(params_.size()),
      expAvgSq_(params_.size()) {}

void ForeachAdam::step() {
  torch::NoGradGuard noGrad;
  Live now = live();
  if (now.params.empty()) {
    return;
  }
  ++steps_;
  if (weightDecay_ != 0) {
    if (decoupled_) {
      at::_foreach_mul_(now.params, 1 - lr_ * weightDecay_);
    } else {
      at::_foreach_add_(now.grads, now.params, weightDecay_);
    }
  }
  std::vector<torch::Tensor> avg;
  std::vector<torch::Tensor> avgSq;
  for (const size_t i : now.indices) {
    if (!expAvg_[i].defined()) {
      expAvg_[i] = torch::zeros_like(params_[i], torch::MemoryFormat::Preserve);
      expAvgSq_[i] = torch::zeros_like(params_[i], torch::MemoryFormat::Preserve);
    }
    avg.push_back(expAvg_[i]);
    avgSq.push_back(expAvgSq_[i]);
  }
  at::_foreach_mul_(avg, beta1_);
  at::_foreach_add_(avg, now.grads, 1 - beta1_);
  at::_foreach_mul_(avgSq, beta2_);
  at::_foreach_addcmul_(avgSq, now.grads, now.grads, 1 - beta2_);
  const auto step = static_cast<double>(steps_);
  const double biasCorrection1 = 1 - std::pow(beta1_, step);
  const double biasCorrection2 = 1 - std::pow(beta2_, step);
  std::vector<torch::Tensor> denominators = at::_foreach_sqrt(avgSq);
  at::_foreach_div_(denominators, std::sqrt(biasCorrection2));
  at::_foreach_add_(denominators, eps_);
  at::_foreach_addcdiv_(now.params, avg, denominators, -lr_ / biasCorrection1);
}

std::unique_ptr<Optimizer> makeOptimizer(std::vector<torch::Tensor> params,
                                         const Hyperparameters& hyper) {
  switch (hyper.optimizer) {
    case OptimizerKind::kSgd:
      return std::make_unique<ForeachSgd>(std::move(params), hyper.lr, hyper.momentum,
                                          hyper.weightDecay);
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW:
      return std::make_unique<ForeachAdam>(std::move(params), hyper.lr, hyper.beta1, hyper.beta2,
                                           hyper.eps, hyper.weightDecay,
                                           hyper.optimizer == OptimizerKind::kAdamW);
  }
  throw std::invalid_argument("unknown optimizer");
}

LossScale::LossScale(const LossScaleOptions& options)
    : options_(options), scale_(options.initialScale) {}

bool LossScale::update(bool foundNonFinite) {
  if (foundNonFinite) {
    scale_ *= options_.backoffFactor;
    goodSteps_ = 0;
    return false;
  }
  if (++goodSteps_ == options_.growthInterval) {
    scale_ *= options_.growthFactor;
    goodSteps_ = 0;
  }
  return true;
}

GradScaler::GradScaler(const torch::Device& device, const LossScaleOptions& options)
    : state_(options),
      scaleTensor_(torch::full({}, options.initialScale,
                               torch::TensorOptions().dtype(torch::kFloat32).device(device))) {}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const { return loss * scaleTensor_; }

bool GradScaler::unscale(const std::vector<torch::Tensor>& gradients) const {
  if (gradients.empty()) {
    return false;
  }
  torch::NoGradGuard noGrad;
  at::_foreach_mul_(gradients, 1.0 / state_.scale());
  const std::vector<torch::Tensor> norms = at::_foreach_norm(gradients);
  return !torch::stack(norms).isfinite().all().item<bool>();
}

bool GradScaler::update(bool foundNonFinite) {
  const double before = state_.scale();
  const bool step = state_.update(foundNonFinite);
  if (state_.scale() != before) {
    scaleTensor_.fill_(state_.scale());
  }
  return step;
}

}  // namespace hetbench::train
