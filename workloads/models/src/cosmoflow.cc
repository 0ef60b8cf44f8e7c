#include "hetbench/models/cosmoflow.h"

#include <c10/util/Exception.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>

#include <string>

namespace hetbench::models {
namespace {

namespace nn = torch::nn;

constexpr int64_t kBlocks = 5;
constexpr int64_t kFirstFilters = 32;
constexpr double kLeakySlope = 0.3;  // Keras' LeakyReLU default
constexpr double kOutputScale = 1.2;

// Keras' defaults for Conv3D and Dense: Glorot uniform weights, zero biases.
template <typename Layer>
Layer kerasInit(Layer layer) {
  torch::NoGradGuard noGrad;
  nn::init::xavier_uniform_(layer->weight);
  nn::init::zeros_(layer->bias);
  return layer;
}

torch::Tensor leaky(const torch::Tensor& x) { return torch::leaky_relu(x, kLeakySlope); }

}  // namespace

CosmoFlowImpl::CosmoFlowImpl(const CosmoFlowOptions& options) : dropout_(options.dropout()) {
  const int64_t side = options.inputSize();
  TORCH_CHECK(side >= 32 && side % 32 == 0,
              "CosmoFlow's input side must be a positive multiple of 32, not ", side);
  int64_t channels = kInputChannels;
  for (int64_t i = 0; i < kBlocks; ++i) {
    const int64_t filters = kFirstFilters << i;
    convs_.push_back(register_module(
        "conv" + std::to_string(i + 1),
        kerasInit(nn::Conv3d(nn::Conv3dOptions(channels, filters, 3).padding(torch::kSame)))));
    channels = filters;
  }
  const int64_t reduced = side >> kBlocks;
  fc1_ = register_module("fc1", kerasInit(nn::Linear(channels * reduced * reduced * reduced, 128)));
  fc2_ = register_module("fc2", kerasInit(nn::Linear(128, 64)));
  fc3_ = register_module("fc3", kerasInit(nn::Linear(64, kOutputs)));
}

torch::Tensor CosmoFlowImpl::forward(const torch::Tensor& x) {
  auto y = x;
  for (auto& conv : convs_) {
    y = torch::max_pool3d(leaky(conv(y)), /*kernel_size=*/2);
  }
  y = y.flatten(1);
  y = torch::dropout(leaky(fc1_(y)), dropout_, is_training());
  y = torch::dropout(leaky(fc2_(y)), dropout_, is_training());
  return torch::tanh(fc3_(y)) * kOutputScale;
}

torch::Tensor cosmoflowLogTransform(const torch::Tensor& counts) { return torch::log1p(counts); }

torch::Tensor cosmoflowLoss(const torch::Tensor& output, const torch::Tensor& target) {
  return nn::functional::mse_loss(output, target);
}

}  // namespace hetbench::models
