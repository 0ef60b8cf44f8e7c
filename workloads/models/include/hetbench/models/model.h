#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "hetbench/models/batch_norm_kernels.h"
#include "hetbench/models/descriptor.h"

namespace hetbench::models {

/// Inputs and the targets that a model's loss compares its output with.
struct Batch {
  torch::Tensor input;
  torch::Tensor target;
};

struct ModelOptions {
  /// Spatial size of one sample; empty for the benchmark's (ModelDescriptor::sampleSize).
  /// resnet50: {H, W} (224 x 224) or {side}; cosmoflow: {side} of the cube (128, a multiple of
  /// 32); deepcam: {H, W} (768 x 1152, multiples of 16) or {side}.
  TORCH_ARG(std::vector<int64_t>, sampleSize) = {};
  /// resnet50: the kernels of its batch norms with the ReLUs and residual sums after them; the
  /// other models run LibTorch's.
  TORCH_ARG(BatchNormKernels, batchNormKernels) = BatchNormKernels::kAten;
};

/// A workload's network with its training loss, as a training loop uses it: the module for
/// parameters, train()/eval(), to(device) and checkpoints; forward; loss; the shape of a sample.
class Model {
 public:
  virtual ~Model() = default;

  /// Which benchmark's model: descriptor(kind()) has its names and the reference's settings.
  virtual ModelKind kind() const = 0;
  virtual torch::nn::Module& module() = 0;
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;
  /// The benchmark's loss of a batch's output against its targets, a scalar.
  virtual torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) = 0;
  /// One sample's input shape without the batch dimension, e.g. {3, 224, 224}.
  virtual std::vector<int64_t> sampleShape() const = 0;
  /// `size` random inputs with valid targets on the CPU (class indices for resnet50, four
  /// parameters in [-1, 1] for cosmoflow, per-pixel classes for deepcam), drawn from LibTorch's
  /// default generator (torch::manual_seed): synthetic data for tests and for runs that measure
  /// compute alone.
  virtual Batch randomBatch(int64_t size) const = 0;
};

/// The benchmark's model in its configuration, on the CPU. Throws std::invalid_argument for a
/// sample size the model cannot take.
std::unique_ptr<Model> makeModel(ModelKind kind, const ModelOptions& options = {});

/// Number of parameter elements (buffers such as BN statistics are not parameters).
int64_t parameterCount(const torch::nn::Module& module);

/// The tensor in channels-last layout (NHWC for 4-d, NDHWC for 5-d tensors); others unchanged.
torch::Tensor toChannelsLast(const torch::Tensor& tensor);

/// Moves every 4-d and 5-d parameter and buffer of the module to channels-last layout in place,
/// as `module.to(memory_format=torch.channels_last)` does in Python; call it after moving the
/// module to its device.
void toChannelsLast(torch::nn::Module& module);

}  // namespace hetbench::models
