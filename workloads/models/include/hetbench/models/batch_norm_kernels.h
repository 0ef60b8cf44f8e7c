#pragma once

#include <string_view>

namespace hetbench::models {

/// Which kernels run a model's batch norms in training mode.
enum class BatchNormKernels {
  /// LibTorch's batch_norm, then the residual sum and the ReLU as operators of their own: what
  /// PyTorch's eager mode runs (ATen's own kernels for bf16, cuDNN's for fp32 and fp16).
  kAten,
  /// cuDNN's NHWC batch norm with the ReLU and the residual sum fused into it, forward and
  /// backward (cudnnBatchNormalizationForwardTrainingEx and BackwardEx), where it applies: a
  /// build with cuDNN, and a BN in training mode over 4-d CUDA activations in channels-last
  /// layout, fp16 or bf16, with fp32 parameters. Everywhere else it is kAten.
  kCudnn,
};

/// "aten" or "cudnn".
std::string_view toString(BatchNormKernels kernels);

/// Whether this build has cuDNN's fused batch norm (LibTorch with CUDA, and cuDNN's headers and
/// library found when it was configured).
bool cudnnBatchNormBuilt();

}  // namespace hetbench::models
