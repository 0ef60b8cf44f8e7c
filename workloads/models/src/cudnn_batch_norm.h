#pragma once

#ifdef HETBENCH_WITH_CUDNN

#include <torch/nn/modules/batchnorm.h>
#include <torch/types.h>

namespace hetbench::models::detail {

/// Whether cuDNN's fused NHWC kernels can run `bn` over `x` (see BatchNormKernels::kCudnn).
bool cudnnBatchNormApplies(const torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x,
                           const torch::Tensor& residual);

/// batchNorm() on cuDNN's kernels; throws std::runtime_error with cuDNN's status when it refuses.
torch::Tensor cudnnBatchNorm(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x, bool relu,
                             const torch::Tensor& residual);

}  // namespace hetbench::models::detail

#endif
