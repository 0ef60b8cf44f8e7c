#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <tuple>
#include <vector>

// DeepCAM as the MLPerf HPC reference builds it: DeepLabv3_plus(n_input=16, n_classes=3, os=16)
// in mlcommons/hpc (deepcam/src/deepCam/architecture/deeplab_xception.py). Every module is
// registered under the reference's name, so that the parameter and buffer names of the whole
// network are the reference's state dict keys (tests/workloads/models compares them).

namespace hetbench::models {
namespace deepcam {

/// The reference wraps each BatchNorm2d in a module (GBN, to swap in SyncBatchNorm) whose only
/// child is "bn"; keeping the wrapper keeps its parameter names.
class WrappedBatchNormImpl : public torch::nn::Module {
 public:
  explicit WrappedBatchNormImpl(int64_t channels);
  torch::Tensor forward(const torch::Tensor& x) { return bn_(x); }

 private:
  torch::nn::BatchNorm2d bn_;
};
TORCH_MODULE(WrappedBatchNorm);

/// A depthwise 3x3 convolution (padding = dilation: "same" at stride 1, ceil(n/2) at stride 2)
/// then a pointwise 1x1, neither with bias: the reference's SeparableConv2d_same.
class SeparableConvImpl : public torch::nn::Module {
 public:
  SeparableConvImpl(int64_t inChannels, int64_t outChannels, int64_t stride = 1,
                    int64_t dilation = 1);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::Conv2d pointwise_;
};
TORCH_MODULE(SeparableConv);

struct XceptionBlockOptions {
  XceptionBlockOptions(int64_t inChannels, int64_t outChannels, int64_t reps)
      : inChannels_(inChannels), outChannels_(outChannels), reps_(reps) {}
  TORCH_ARG(int64_t, inChannels);
  TORCH_ARG(int64_t, outChannels);
  /// Separable convolutions at the block's dilation.
  TORCH_ARG(int64_t, reps);
  /// 2 appends a stride-2 separable convolution.
  TORCH_ARG(int64_t, stride) = 1;
  TORCH_ARG(int64_t, dilation) = 1;
  /// ReLU after the sum with the shortcut.
  TORCH_ARG(bool, endWithRelu) = true;
  /// Widen on the first separable convolution (else on the last).
  TORCH_ARG(bool, growFirst) = true;
  /// At stride 1, append a separable convolution (the last block of the entry and exit flows).
  TORCH_ARG(bool, isLast) = false;
};

/// The reference's Xception block: `rep` is reps x (separable conv, BN, ReLU) without the last
/// ReLU, then the strided or is-last separable convolution; the shortcut is a 1x1 conv ("skip")
/// + BN ("skipbn") when channels or stride change, else the input.
class XceptionBlockImpl : public torch::nn::Module {
 public:
  explicit XceptionBlockImpl(const XceptionBlockOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  bool endWithRelu_;
  torch::nn::Conv2d skip_{nullptr};
  WrappedBatchNorm skipbn_{nullptr};
  torch::nn::Sequential rep_;
};
TORCH_MODULE(XceptionBlock);

/// The modified aligned Xception backbone at output stride 16: entry flow (conv1 stride 2,
/// conv2, block1..block3 each stride 2), middle flow (block4..block19, 728 channels), exit flow
/// (block20 to 1024 channels, then separable conv3..conv5 dilated by 2, to 2048 channels).
/// Convolutions are Kaiming normal (fan_in, gain sqrt 2) as in the reference.
class XceptionImpl : public torch::nn::Module {
 public:
  explicit XceptionImpl(int64_t inChannels);

  /// Features [N, 2048, H/16, W/16] and the low-level features after block1 [N, 128, H/4, W/4].
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr};
  WrappedBatchNorm bn1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  WrappedBatchNorm bn2_{nullptr};
  std::vector<XceptionBlock> blocks_;
  std::vector<SeparableConv> exitConvs_;
  std::vector<WrappedBatchNorm> exitBatchNorms_;
};
TORCH_MODULE(Xception);

/// One atrous branch of ASPP: a 1x1 convolution at rate 1, else a 3x3 dilated by `rate`
/// ("atrous_convolution"), BN, ReLU. Kaiming normal like the backbone.
class AsppBranchImpl : public torch::nn::Module {
 public:
  AsppBranchImpl(int64_t inChannels, int64_t outChannels, int64_t rate);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv_;
  WrappedBatchNorm bn_;
};
TORCH_MODULE(AsppBranch);

/// A learnt per-channel scale ("weights") and shift ("bias"), each [C, 1, 1]; the reference's
/// TrainableAffine, which stands in for BN after image pooling (a 1x1 map has no batch
/// statistics worth normalising).
class ChannelAffineImpl : public torch::nn::Module {
 public:
  explicit ChannelAffineImpl(int64_t channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor weights_;
  torch::Tensor bias_;
};
TORCH_MODULE(ChannelAffine);

/// ASPP, the reference's "bottleneck": branches aspp1..aspp4 at rates 1, 6, 12, 18, and image
/// pooling (global average, 1x1 conv, ChannelAffine, ReLU, spread back over the map), joined and
/// fused by a 1x1 convolution + BN + ReLU.
class AsppImpl : public torch::nn::Module {
 public:
  AsppImpl(int64_t inChannels, int64_t outChannels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::vector<AsppBranch> branches_;
  torch::nn::Sequential imagePooling_;
  torch::nn::Conv2d conv_{nullptr};
  WrappedBatchNorm bn_{nullptr};
};
TORCH_MODULE(Aspp);

/// The reference's DeconvUpsampler: two transposed convolutions (3x3, stride 2, each + BN +
/// ReLU) from 1/16 to 1/4, the 48 reduced low-level channels joined, two 3x3 convolutions (+ BN
/// + ReLU) and a 1x1 with bias, then two more transposed convolutions to full resolution, the
/// last without BN, ReLU or bias.
class DecoderImpl : public torch::nn::Module {
 public:
  explicit DecoderImpl(int64_t numClasses);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& lowLevel);

 private:
  torch::nn::Sequential deconv1_;
  torch::nn::Sequential conv1_;
  torch::nn::Sequential deconv2_;
  torch::nn::Sequential lastDeconv_;
};
TORCH_MODULE(Decoder);

}  // namespace deepcam

struct DeepCamOptions {
  /// Climate variables per pixel (the benchmark's 16).
  TORCH_ARG(int64_t, inputChannels) = 16;
  /// Background, tropical cyclone, atmospheric river.
  TORCH_ARG(int64_t, numClasses) = 3;
};

/// DeepCAM: DeepLabv3+ on the modified Xception backbone at output stride 16 with a decoder of
/// transposed convolutions; segments [N, 16, H, W] climate images (768 x 1152 in the benchmark;
/// H and W multiples of 16) into per-pixel class logits [N, 3, H, W]. 56,454,720 parameters.
class DeepCamImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kOutputStride = 16;

  explicit DeepCamImpl(const DeepCamOptions& options = {});
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t inputChannels_;
  deepcam::Xception xception_{nullptr};
  deepcam::Aspp aspp_{nullptr};
  torch::nn::Conv2d lowLevelConv_{nullptr};
  deepcam::WrappedBatchNorm lowLevelBatchNorm_{nullptr};
  deepcam::Decoder decoder_{nullptr};
};
TORCH_MODULE(DeepCam);

/// The reference's class weights: each class' pixel frequency in the training data (background
/// 0.986267818390377, tropical cyclones 0.0004578708870701058, atmospheric rivers
/// 0.01327431072255291) to the power -0.125, about {1.0017, 2.6146, 1.7164}.
torch::Tensor deepcamClassWeights();

/// The reference's loss: each pixel's cross-entropy times its true class' weight, averaged as a
/// plain mean over all pixels of the batch (not divided by the summed weights, as
/// reduction="mean" with weights would). `labels` are class indices [N, H, W] or [N, 1, H, W].
torch::Tensor deepcamLoss(const torch::Tensor& logits, const torch::Tensor& labels,
                          const torch::Tensor& classWeights);

}  // namespace hetbench::models
