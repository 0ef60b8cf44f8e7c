#pragma once

#include <torch/nn/modules/batchnorm.h>
#include <torch/types.h>

#include "hetbench/models/batch_norm_kernels.h"

namespace hetbench::models {

/// `bn(x)`, plus `residual` when it is defined, then ReLU when `relu` (a residual needs the ReLU:
/// cuDNN fuses the sum only in front of an activation). With kAten this is exactly
/// `torch::relu(bn(x) + residual)`; with kCudnn, where it applies, one cuDNN kernel each way,
/// which also updates the running statistics and `num_batches_tracked` as `bn` does.
torch::Tensor batchNorm(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x,
                        BatchNormKernels kernels, bool relu = false,
                        const torch::Tensor& residual = {});

}  // namespace hetbench::models
