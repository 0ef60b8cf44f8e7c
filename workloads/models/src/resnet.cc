#include "hetbench/models/resnet.h"

#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>

#include <string>

namespace hetbench::models {
namespace {

namespace nn = torch::nn;

nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return nn::Conv2d(
      nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

}  // namespace

BottleneckImpl::BottleneckImpl(int64_t inChannels, int64_t width, int64_t stride,
                               BatchNormKernels kernels)
    : conv1_(register_module("conv1", conv(inChannels, width, 1, 1))),
      bn1_(register_module("bn1", nn::BatchNorm2d(width))),
      conv2_(register_module("conv2", conv(width, width, 3, stride))),
      bn2_(register_module("bn2", nn::BatchNorm2d(width))),
      conv3_(register_module("conv3", conv(width, width * kExpansion, 1, 1))),
      bn3_(register_module("bn3", nn::BatchNorm2d(width * kExpansion))),
      kernels_(kernels) {
  if (stride != 1 || inChannels != width * kExpansion) {
    downsample_ = register_module("downsample",
                                  nn::Sequential(conv(inChannels, width * kExpansion, 1, stride),
                                                 nn::BatchNorm2d(width * kExpansion)));
  }
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
  auto y = batchNorm(*bn1_, conv1_(x), kernels_, /*relu=*/true);
  y = batchNorm(*bn2_, conv2_(y), kernels_, /*relu=*/true);
  torch::Tensor shortcut = x;
  if (downsample_) {
    shortcut = batchNorm(*downsample_->ptr(1)->as<nn::BatchNorm2d>(),
                         downsample_->ptr(0)->as<nn::Conv2d>()->forward(x), kernels_);
  }
  return batchNorm(*bn3_, conv3_(y), kernels_, /*relu=*/true, shortcut);
}

ResNet50Impl::ResNet50Impl(const ResNet50Options& options)
    : kernels_(options.batchNormKernels()),
      conv1_(register_module(
          "conv1", nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)))),
      bn1_(register_module("bn1", nn::BatchNorm2d(64))),
      layer1_(register_module("layer1", makeLayer(64, 3, 1))),
      layer2_(register_module("layer2", makeLayer(128, 4, 2))),
      layer3_(register_module("layer3", makeLayer(256, 6, 2))),
      layer4_(register_module("layer4", makeLayer(512, 3, 2))),
      fc_(register_module("fc",
                          nn::Linear(512 * BottleneckImpl::kExpansion, options.numClasses()))) {
  torch::NoGradGuard noGrad;
  for (const auto& module : modules(/*include_self=*/false)) {
    if (auto* c = module->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* bn = module->as<nn::BatchNorm2d>()) {
      nn::init::ones_(bn->weight);
      nn::init::zeros_(bn->bias);
    }
  }
  if (options.zeroInitResidual()) {
    for (const auto& module : modules(/*include_self=*/false)) {
      if (auto* block = module->as<Bottleneck>()) {
        nn::init::zeros_(block->lastBatchNorm()->weight);
      }
    }
  }
}

nn::Sequential ResNet50Impl::makeLayer(int64_t width, int64_t blocks, int64_t stride) {
  nn::Sequential layer;
  for (int64_t i = 0; i < blocks; ++i) {
    layer->push_back(Bottleneck(channels_, width, i == 0 ? stride : 1, kernels_));
    channels_ = width * BottleneckImpl::kExpansion;
  }
  return layer;
}

torch::Tensor ResNet50Impl::forward(const torch::Tensor& x) {
  auto y = batchNorm(*bn1_, conv1_(x), kernels_, /*relu=*/true);
  y = torch::max_pool2d(y, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  y = layer4_->forward(layer3_->forward(layer2_->forward(layer1_->forward(y))));
  y = torch::adaptive_avg_pool2d(y, {1, 1}).flatten(1);
  return fc_(y);
}

torch::Tensor resnetLoss(const torch::Tensor& logits, const torch::Tensor& labels) {
  return nn::functional::cross_entropy(
      logits, labels, nn::functional::CrossEntropyFuncOptions().label_smoothing(0.1));
}

}  // namespace hetbench::models
