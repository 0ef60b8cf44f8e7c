#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>
#include <torch/torch.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/train/grad_scaler.h"
#include "hetbench/train/optimizer.h"

namespace hetbench::train {
namespace {

/// Parameters of several shapes (a convolution's among them), the same values in each call.
std::vector<torch::Tensor> makeParameters() {
  torch::manual_seed(11);
  return {torch::randn({8, 4, 3, 3}).requires_grad_(), torch::randn({8}).requires_grad_(),
          torch::randn({5, 7}).requires_grad_(), torch::randn({3}).requires_grad_()};
}

/// The gradients of step `step`: random, the same for both optimizers; the last parameter gets
/// none before step 3 (as a parameter unused by a step).
void setGradients(std::vector<torch::Tensor>& params, int step) {
  torch::manual_seed(100 + step);
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor grad = torch::randn(params[i].sizes());
    if (i + 1 == params.size() && step < 3) {
      params[i].mutable_grad().reset();
    } else {
      params[i].mutable_grad() = grad;
    }
  }
}

struct OptimizerCase {
  std::string name;
  Hyperparameters hyper;
  std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)> reference;
  bool everyParameterEveryStep;  // Adam's shared step count needs it
};

Hyperparameters sgd(double lr, double momentum, double weightDecay) {
  Hyperparameters h;
  h.optimizer = OptimizerKind::kSgd;
  h.lr = lr;
  h.momentum = momentum;
  h.weightDecay = weightDecay;
  return h;
}

Hyperparameters adam(OptimizerKind kind, double lr, double weightDecay) {
  Hyperparameters h;
  h.optimizer = kind;
  h.lr = lr;
  h.weightDecay = weightDecay;
  h.beta1 = 0.8;
  h.beta2 = 0.99;
  h.eps = 1e-6;
  return h;
}

// Verifies that the multi-tensor optimizers update the parameters as LibTorch's per-parameter
// torch::optim versions do, over several steps (momentum and moment buffers included).
TEST(ForeachOptimizers, MatchTorchOptim) {
  using torch::optim::AdamOptions;
  using torch::optim::AdamWOptions;
  using torch::optim::SGDOptions;
  const std::vector<OptimizerCase> cases = {
      {"plain SGD", sgd(0.1, 0, 0),
       [](auto p) { return std::make_unique<torch::optim::SGD>(p, SGDOptions(0.1)); }, false},
      {"SGD with momentum", sgd(0.05, 0.9, 0),
       [](auto p) {
         return std::make_unique<torch::optim::SGD>(p, SGDOptions(0.05).momentum(0.9));
       },
       false},
      {"SGD with momentum and weight decay", sgd(0.1, 0.9, 1e-2),
       [](auto p) {
         return std::make_unique<torch::optim::SGD>(
             p, SGDOptions(0.1).momentum(0.9).weight_decay(1e-2));
       },
       false},
      {"Adam", adam(OptimizerKind::kAdam, 1e-2, 0),
       [](auto p) {
         return std::make_unique<torch::optim::Adam>(
             p, AdamOptions(1e-2).betas({0.8, 0.99}).eps(1e-6).weight_decay(0));
       },
       true},
      {"Adam with L2 weight decay", adam(OptimizerKind::kAdam, 1e-2, 0.1),
       [](auto p) {
         return std::make_unique<torch::optim::Adam>(
             p, AdamOptions(1e-2).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1));
       },
       true},
      {"AdamW", adam(OptimizerKind::kAdamW, 1e-2, 0.1),
       [](auto p) {
         return std::make_unique<torch::optim::AdamW>(
             p, AdamWOptions(1e-2).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1));
       },
       true},
  };
  for (const OptimizerCase& c : cases) {
    std::vector<torch::Tensor> mine = makeParameters();
    std::vector<torch::Tensor> theirs = makeParameters();
    const std::unique_ptr<Optimizer> foreach = makeOptimizer(mine, c.hyper);
    const auto reference = c.reference(theirs);
    for (int step = 0; step < 6; ++step) {
      setGradients(mine, c.everyParameterEveryStep ? 3 + step : step);
      setGradients(theirs, c.everyParameterEveryStep ? 3 + step : step);
      foreach
        ->step();
      reference->step();
    }
    const std::vector<torch::Tensor> start = makeParameters();
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_FALSE(torch::equal(mine[i], start[i])) << c.name << " parameter " << i;
      EXPECT_TRUE(torch::allclose(mine[i], theirs[i], 1e-5, 1e-6))
          << c.name << " parameter " << i << ": max difference "
          << (mine[i] - theirs[i]).abs().max().item<double>();
    }
  }
}

// Verifies that clearGradients drops every gradient, and that the next backward then gives each
// parameter its gradient as computed, not added to the last one.
TEST(ForeachOptimizers, ClearGradientsDropsThem) {
  std::vector<torch::Tensor> params = makeParameters();
  const auto optimizer = makeOptimizer(params, sgd(0.1, 0.9, 0));
  setGradients(params, 5);
  EXPECT_EQ(optimizer->gradients().size(), params.size());
  optimizer->clearGradients();
  EXPECT_TRUE(optimizer->gradients().empty());
  for (const auto& p : params) {
    EXPECT_FALSE(p.grad().defined());
  }
  (params[0] * 3).sum().backward();
  ASSERT_EQ(optimizer->gradients().size(), 1U);
  EXPECT_TRUE(torch::equal(params[0].grad(), torch::full_like(params[0], 3)));
}

// Verifies dynamic loss scaling's bookkeeping: inf or NaN skips the step and halves the scale,
// growthInterval good steps in a row double it, and a bad step restarts the count.
TEST(LossScale, BacksOffAndGrows) {
  struct Step {
    bool nonFinite;
    bool wantStep;
    double wantScale;
    int64_t wantGoodSteps;
  };
  LossScaleOptions options;
  options.initialScale = 8;
  options.growthInterval = 3;
  const std::vector<Step> steps = {
      {true, false, 4, 0},  // skipped, halved
      {false, true, 4, 1},  //
      {false, true, 4, 2},  //
      {false, true, 8, 0},  // the third good step in a row doubles
      {false, true, 8, 1},  //
      {true, false, 4, 0},  // a bad step restarts the count
      {true, false, 2, 0},  // and halves again
      {false, true, 2, 1},  //
      {false, true, 2, 2},  //
      {false, true, 4, 0},  //
  };
  LossScale scale(options);
  EXPECT_EQ(scale.scale(), 8);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(scale.update(steps[i].nonFinite), steps[i].wantStep) << "step " << i;
    EXPECT_EQ(scale.scale(), steps[i].wantScale) << "step " << i;
    EXPECT_EQ(scale.goodSteps(), steps[i].wantGoodSteps) << "step " << i;
  }
  // torch.cuda.amp.GradScaler's defaults.
  const LossScale defaults;
  EXPECT_EQ(defaults.scale(), 65536);
  EXPECT_EQ(LossScaleOptions().growthInterval, 2000);
}

// Verifies the scaler on tensors: the loss is multiplied by the scale, the gradients divided by
// it, inf and NaN are found, and a backed-off scale reaches the scale tensor.
TEST(GradScaler, ScalesUnscalesAndFindsNonFinite) {
  LossScaleOptions options;
  options.initialScale = 1024;
  GradScaler scaler(torch::kCPU, options);
  EXPECT_EQ(scaler.scale(torch::tensor(0.5)).item<double>(), 512);

  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    std::string name;
    std::vector<double> values;
    bool wantNonFinite;
  };
  const std::vector<Case> cases = {
      {"finite", {2048, -1024, 0}, false},
      {"inf", {2048, inf, 0}, true},
      {"-inf", {-inf, 1, 0}, true},
      {"NaN", {2048, 1, nan}, true},
  };
  for (const Case& c : cases) {
    const std::vector<torch::Tensor> grads = {torch::tensor(c.values, torch::kFloat),
                                              torch::full({2, 2}, 4096.0, torch::kFloat)};
    EXPECT_EQ(scaler.unscale(grads), c.wantNonFinite) << c.name;
    EXPECT_EQ(grads[1][0][0].item<double>(), 4) << c.name;
    if (!c.wantNonFinite) {
      EXPECT_TRUE(torch::equal(grads[0], torch::tensor({2.0, -1.0, 0.0}, torch::kFloat)));
    }
  }
  EXPECT_FALSE(scaler.unscale({}));

  EXPECT_FALSE(scaler.update(true));
  EXPECT_EQ(scaler.currentScale(), 512);
  EXPECT_EQ(scaler.scale(torch::tensor(0.5)).item<double>(), 256);
  EXPECT_TRUE(scaler.update(false));
  EXPECT_EQ(scaler.currentScale(), 512);
}

}  // namespace
}  // namespace hetbench::train
