#include "hetbench/models/deepcam.h"

#include <c10/util/Exception.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/pooling.h>

#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

namespace hetbench::models {
namespace deepcam {
namespace {

namespace nn = torch::nn;

constexpr int64_t kMiddleFlowBlocks = 16;
constexpr int64_t kBackboneChannels = 2048;
constexpr int64_t kLowLevelChannels = 128;
constexpr int64_t kReducedLowLevelChannels = 48;
constexpr int64_t kAsppChannels = 256;

nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t padding = 0, bool bias = false) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, kernel).padding(padding).bias(bias));
}

/// A 3x3 transposed convolution that exactly doubles height and width.
nn::ConvTranspose2d deconv(int64_t in, int64_t out) {
  return nn::ConvTranspose2d(
      nn::ConvTranspose2dOptions(in, out, 3).stride(2).padding(1).output_padding(1).bias(false));
}

nn::ReLU relu() { return nn::ReLU(nn::ReLUOptions().inplace(true)); }

/// The reference's torch.nn.init.kaiming_normal_(w): fan_in, gain sqrt(2).
void kaimingNormal(nn::Module& module) {
  torch::NoGradGuard noGrad;
  for (const auto& m : module.modules(/*include_self=*/false)) {
    if (auto* c = m->as<nn::Conv2d>()) {
      nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanIn, torch::kLeakyReLU);
    }
  }
}

}  // namespace

WrappedBatchNormImpl::WrappedBatchNormImpl(int64_t channels)
    : bn_(register_module("bn", nn::BatchNorm2d(channels))) {}

SeparableConvImpl::SeparableConvImpl(int64_t inChannels, int64_t outChannels, int64_t stride,
                                     int64_t dilation)
    : conv1_(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(inChannels, inChannels, 3)
                                                     .stride(stride)
                                                     .padding(dilation)
                                                     .dilation(dilation)
                                                     .groups(inChannels)
                                                     .bias(false)))),
      pointwise_(register_module("pointwise", conv(inChannels, outChannels, 1))) {}

torch::Tensor SeparableConvImpl::forward(const torch::Tensor& x) { return pointwise_(conv1_(x)); }

XceptionBlockImpl::XceptionBlockImpl(const XceptionBlockOptions& o)
    : endWithRelu_(o.endWithRelu()) {
  const int64_t in = o.inChannels();
  const int64_t out = o.outChannels();
  if (in != out || o.stride() != 1) {
    skip_ = register_module(
        "skip", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(o.stride()).bias(false)));
    skipbn_ = register_module("skipbn", WrappedBatchNorm(out));
  }
  // Each unit is (separable conv, BN, ReLU); the first (growFirst) or the last unit widens.
  for (int64_t unit = 0; unit < o.reps(); ++unit) {
    const bool widens = o.growFirst() ? unit == 0 : unit == o.reps() - 1;
    const int64_t unitIn = o.growFirst() && unit > 0 ? out : in;
    const int64_t unitOut = widens ? out : unitIn;
    rep_->push_back(SeparableConv(unitIn, unitOut, 1, o.dilation()));
    rep_->push_back(WrappedBatchNorm(unitOut));
    if (unit + 1 < o.reps()) {
      rep_->push_back(relu());
    }
  }
  if (o.stride() != 1) {
    rep_->push_back(SeparableConv(out, out, o.stride()));
  } else if (o.isLast()) {
    rep_->push_back(SeparableConv(out, out));
  }
  register_module("rep", rep_);
}

torch::Tensor XceptionBlockImpl::forward(const torch::Tensor& x) {
  auto y = rep_->forward(x) + (skip_ ? skipbn_(skip_(x)) : x);
  return endWithRelu_ ? torch::relu(y) : y;
}

XceptionImpl::XceptionImpl(int64_t inChannels)
    : conv1_(register_module(
          "conv1",
          nn::Conv2d(nn::Conv2dOptions(inChannels, 32, 3).stride(2).padding(1).bias(false)))),
      bn1_(register_module("bn1", WrappedBatchNorm(32))),
      conv2_(register_module("conv2", conv(32, 64, 3, 1))),
      bn2_(register_module("bn2", WrappedBatchNorm(64))) {
  std::vector<XceptionBlockOptions> options = {
      XceptionBlockOptions(64, 128, 2).stride(2).endWithRelu(false),
      XceptionBlockOptions(128, 256, 2).stride(2),
      XceptionBlockOptions(256, 728, 2).stride(2).isLast(true),
  };
  for (int64_t i = 0; i < kMiddleFlowBlocks; ++i) {
    options.push_back(XceptionBlockOptions(728, 728, 3));
  }
  options.push_back(
      XceptionBlockOptions(728, 1024, 2).endWithRelu(false).growFirst(false).isLast(true));
  for (size_t i = 0; i < options.size(); ++i) {
    blocks_.push_back(register_module("block" + std::to_string(i + 1), XceptionBlock(options[i])));
  }
  const std::pair<int64_t, int64_t> exitWidths[] = {{1024, 1536}, {1536, 1536}, {1536, 2048}};
  for (size_t i = 0; i < std::size(exitWidths); ++i) {
    const auto [in, out] = exitWidths[i];
    exitConvs_.push_back(
        register_module("conv" + std::to_string(i + 3), SeparableConv(in, out, 1, 2)));
    exitBatchNorms_.push_back(register_module("bn" + std::to_string(i + 3), WrappedBatchNorm(out)));
  }
  kaimingNormal(*this);
}

std::tuple<torch::Tensor, torch::Tensor> XceptionImpl::forward(const torch::Tensor& x) {
  auto y = torch::relu(bn1_(conv1_(x)));
  y = torch::relu(bn2_(conv2_(y)));
  const auto lowLevel = torch::relu(blocks_.front()(y));
  y = lowLevel;
  for (size_t i = 1; i < blocks_.size(); ++i) {
    y = blocks_[i](y);
  }
  for (size_t i = 0; i < exitConvs_.size(); ++i) {
    y = torch::relu(exitBatchNorms_[i](exitConvs_[i](y)));
  }
  return {y, lowLevel};
}

AsppBranchImpl::AsppBranchImpl(int64_t inChannels, int64_t outChannels, int64_t rate)
    : conv_(register_module("atrous_convolution",
                            nn::Conv2d(nn::Conv2dOptions(inChannels, outChannels, rate == 1 ? 1 : 3)
                                           .padding(rate == 1 ? 0 : rate)
                                           .dilation(rate)
                                           .bias(false)))),
      bn_(register_module("bn", WrappedBatchNorm(outChannels))) {
  kaimingNormal(*this);
}

torch::Tensor AsppBranchImpl::forward(const torch::Tensor& x) { return torch::relu(bn_(conv_(x))); }

ChannelAffineImpl::ChannelAffineImpl(int64_t channels)
    : weights_(register_parameter("weights", torch::ones({channels, 1, 1}))),
      bias_(register_parameter("bias", torch::zeros({channels, 1, 1}))) {}

torch::Tensor ChannelAffineImpl::forward(const torch::Tensor& x) { return weights_ * x + bias_; }

AsppImpl::AsppImpl(int64_t inChannels, int64_t outChannels) {
  const int64_t rates[] = {1, 6, 12, 18};
  for (size_t i = 0; i < std::size(rates); ++i) {
    branches_.push_back(register_module("aspp" + std::to_string(i + 1),
                                        AsppBranch(inChannels, outChannels, rates[i])));
  }
  // The reference nests the pooling Sequential in a module of its own.
  auto pooling = std::make_shared<nn::Module>();
  imagePooling_ = pooling->register_module(
      "global_average_pool",
      nn::Sequential(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)),
                     conv(inChannels, outChannels, 1), ChannelAffine(outChannels), nn::ReLU()));
  register_module("global_avg_pool", pooling);
  const int64_t joined = outChannels * static_cast<int64_t>(branches_.size() + 1);
  conv_ = register_module("conv", conv(joined, outChannels, 1));
  bn_ = register_module("bn", WrappedBatchNorm(outChannels));
}

torch::Tensor AsppImpl::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> parts;
  for (auto& branch : branches_) {
    parts.push_back(branch(x));
  }
  // The pooled 1x1 map spread over the feature map: what the reference's tile (or a bilinear
  // upsampling of a 1x1 map) gives, for any input size.
  parts.push_back(imagePooling_->forward(x).expand({-1, -1, x.size(2), x.size(3)}));
  return torch::relu(bn_(conv_(torch::cat(parts, 1))));
}

DecoderImpl::DecoderImpl(int64_t numClasses)
    : deconv1_(register_module(
          "deconv1", nn::Sequential(deconv(kAsppChannels, 256), WrappedBatchNorm(256), nn::ReLU(),
                                    deconv(256, 256), WrappedBatchNorm(256), nn::ReLU()))),
      conv1_(register_module(
          "conv1",
          nn::Sequential(conv(256 + kReducedLowLevelChannels, 256, 3, 1), WrappedBatchNorm(256),
                         nn::ReLU(), conv(256, 256, 3, 1), WrappedBatchNorm(256), nn::ReLU(),
                         conv(256, 256, 1, 0, /*bias=*/true)))),
      deconv2_(register_module(
          "deconv2", nn::Sequential(deconv(256, 256), WrappedBatchNorm(256), nn::ReLU()))),
      lastDeconv_(register_module("last_deconv", nn::Sequential(deconv(256, numClasses)))) {}

torch::Tensor DecoderImpl::forward(const torch::Tensor& x, const torch::Tensor& lowLevel) {
  auto y = conv1_->forward(torch::cat({deconv1_->forward(x), lowLevel}, 1));
  return lastDeconv_->forward(deconv2_->forward(y));
}

}  // namespace deepcam

DeepCamImpl::DeepCamImpl(const DeepCamOptions& options)
    : inputChannels_(options.inputChannels()),
      xception_(register_module("xception_features", deepcam::Xception(inputChannels_))),
      aspp_(register_module("bottleneck",
                            deepcam::Aspp(deepcam::kBackboneChannels, deepcam::kAsppChannels))),
      lowLevelConv_(register_module("conv2", deepcam::conv(deepcam::kLowLevelChannels,
                                                           deepcam::kReducedLowLevelChannels, 1))),
      lowLevelBatchNorm_(
          register_module("bn2", deepcam::WrappedBatchNorm(deepcam::kReducedLowLevelChannels))),
      decoder_(register_module("upsample", deepcam::Decoder(options.numClasses()))) {}

torch::Tensor DeepCamImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() == 4 && x.size(1) == inputChannels_, "DeepCAM expects [N, ", inputChannels_,
              ", H, W] input, not ", x.sizes());
  TORCH_CHECK(x.size(2) % kOutputStride == 0 && x.size(3) % kOutputStride == 0,
              "DeepCAM's input height and width must be multiples of ", kOutputStride, ", not ",
              x.size(2), "x", x.size(3));
  auto [features, lowLevel] = xception_(x);
  lowLevel = torch::relu(lowLevelBatchNorm_(lowLevelConv_(lowLevel)));
  return decoder_(aspp_(features), lowLevel);
}

torch::Tensor deepcamClassWeights() {
  constexpr double kPower = -0.125;
  return torch::tensor(
      {std::pow(0.986267818390377, kPower), std::pow(0.0004578708870701058, kPower),
       std::pow(0.01327431072255291, kPower)},
      torch::kFloat);
}

torch::Tensor deepcamLoss(const torch::Tensor& logits, const torch::Tensor& labels,
                          const torch::Tensor& classWeights) {
  const auto target = labels.dim() == 4 ? labels.squeeze(1) : labels;
  const auto perPixel =
      torch::nn::functional::cross_entropy(logits, target.to(torch::kLong),
                                           torch::nn::functional::CrossEntropyFuncOptions()
                                               .weight(classWeights)
                                               .reduction(torch::kNone));
  return perPixel.mean();
}

}  // namespace hetbench::models
