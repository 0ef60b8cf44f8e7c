#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace hetbench::models {

struct CosmoFlowOptions {
  /// Side of the cubic input (the benchmark's samples are 128^3); a multiple of 32, since five
  /// 2x poolings halve it.
  TORCH_ARG(int64_t, inputSize) = 128;
  /// Probability of the two dropout layers.
  TORCH_ARG(double, dropout) = 0.5;
};

/// CosmoFlow as the MLPerf HPC reference builds it (mlcommons/hpc cosmoflow, Keras, conv_size
/// 32, kernel_size 3, dropout 0.5): on [N, 4, S, S, S] universes, five blocks of
/// Conv3d(3x3x3, padding same, bias) -> LeakyReLU(0.3) -> MaxPool3d(2) with 32, 64, 128, 256 and
/// 512 filters (modules conv1..conv5), flatten, then fc1 128 -> LeakyReLU(0.3) -> Dropout ->
/// fc2 64 -> LeakyReLU(0.3) -> Dropout -> fc3 4 -> tanh x 1.2: the four cosmological parameters,
/// each in (-1.2, 1.2). Weights are Glorot uniform and biases zero, as Keras initialises them.
///
/// Parameters at 128^3 (conv k^3 * cin * cout + cout, dense in * out + out):
///   conv1 27*4*32+32 = 3,488          conv4 27*128*256+256 = 884,992
///   conv2 27*32*64+64 = 55,360        conv5 27*256*512+512 = 3,539,456
///   conv3 27*64*128+128 = 221,312     fc1 (4^3*512)*128+128 = 4,194,432
///   fc2 128*64+64 = 8,256             fc3 64*4+4 = 260
///   total 8,907,556 (fc1 depends on the input size: at 32^3 it has 512*128+128, total 4,778,788).
/// The flattening order is PyTorch's (C, D, H, W), Keras' is (D, H, W, C); the counts agree.
class CosmoFlowImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kInputChannels = 4;
  static constexpr int64_t kOutputs = 4;

  explicit CosmoFlowImpl(const CosmoFlowOptions& options = {});

  /// The four parameters [N, 4] of log-transformed universes [N, 4, S, S, S].
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double dropout_;
  std::vector<torch::nn::Conv3d> convs_;
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};
TORCH_MODULE(CosmoFlow);

/// The reference's input transform (apply_log): log(1 + x) of the particle counts.
torch::Tensor cosmoflowLogTransform(const torch::Tensor& counts);

/// The training loss: mean squared error over the four parameters and the batch.
torch::Tensor cosmoflowLoss(const torch::Tensor& output, const torch::Tensor& target);

}  // namespace hetbench::models
