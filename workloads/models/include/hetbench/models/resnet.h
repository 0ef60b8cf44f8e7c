#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "hetbench/models/batch_norm.h"

namespace hetbench::models {

struct ResNet50Options {
  /// Width of the classifier (ImageNet: 1000).
  TORCH_ARG(int64_t, numClasses) = 1000;
  /// Starts every residual branch at zero: the scale (gamma) of each block's last BN is 0.
  TORCH_ARG(bool, zeroInitResidual) = false;
  /// The kernels of the batch norms with what follows them (ReLU, the residual sum).
  TORCH_ARG(BatchNormKernels, batchNormKernels) = BatchNormKernels::kAten;
};

/// The ResNet v1.5 bottleneck: 1x1 to `width`, 3x3 carrying the stride (v1.5 strides here, v1 on
/// the first 1x1), 1x1 to 4 x `width`, each followed by BN, ReLU after the first two and after
/// the sum with the shortcut; the shortcut is a strided 1x1 conv + BN ("downsample") when the
/// shape changes, else the input.
class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;

  BottleneckImpl(int64_t inChannels, int64_t width, int64_t stride,
                 BatchNormKernels kernels = BatchNormKernels::kAten);

  torch::Tensor forward(const torch::Tensor& x);

  /// The BN that ends the residual branch (zero-init-residual sets its scale to 0).
  torch::nn::BatchNorm2d& lastBatchNorm() { return bn3_; }

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::BatchNorm2d bn2_{nullptr};
  torch::nn::Conv2d conv3_{nullptr};
  torch::nn::BatchNorm2d bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
  BatchNormKernels kernels_;
};
TORCH_MODULE(Bottleneck);

/// ResNet-50 v1.5 exactly as torchvision's `resnet50()`: the same layers, the same parameter and
/// buffer names (a torchvision state dict loads by name) and the same initialisation (convs
/// Kaiming normal with fan_out for ReLU, BN scale 1 and shift 0, the classifier LibTorch's
/// default, which is PyTorch's). 25,557,032 parameters with 1000 classes.
class ResNet50Impl : public torch::nn::Module {
 public:
  explicit ResNet50Impl(const ResNet50Options& options = {});

  /// Logits [N, numClasses] of images [N, 3, H, W] (224 x 224 for ImageNet; any side >= 32).
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Sequential makeLayer(int64_t width, int64_t blocks, int64_t stride);

  BatchNormKernels kernels_;
  int64_t channels_ = 64;  // the next block's input channels while building
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Sequential layer1_{nullptr};
  torch::nn::Sequential layer2_{nullptr};
  torch::nn::Sequential layer3_{nullptr};
  torch::nn::Sequential layer4_{nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet50);

/// The MLPerf ResNet-50 training loss: cross-entropy with label smoothing 0.1, averaged over the
/// batch; `labels` are class indices [N].
torch::Tensor resnetLoss(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace hetbench::models
