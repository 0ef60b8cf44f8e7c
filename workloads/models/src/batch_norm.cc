#include "hetbench/models/batch_norm.h"

#include <stdexcept>

#include "cudnn_batch_norm.h"

namespace hetbench::models {

std::string_view toString(BatchNormKernels kernels) {
  return kernels == BatchNormKernels::kCudnn ? "cudnn" : "aten";
}

bool cudnnBatchNormBuilt() {
#ifdef HETBENCH_WITH_CUDNN
  return true;
#else
  return false;
#endif
}

torch::Tensor batchNorm(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x,
                        [[maybe_unused]] BatchNormKernels kernels, bool relu,
                        const torch::Tensor& residual) {
  if (residual.defined() && !relu) {
    throw std::invalid_argument("batchNorm: a residual sum needs the ReLU after it");
  }
#ifdef HETBENCH_WITH_CUDNN
  if (kernels == BatchNormKernels::kCudnn && detail::cudnnBatchNormApplies(bn, x, residual)) {
    return detail::cudnnBatchNorm(bn, x, relu, residual);
  }
#endif
  torch::Tensor y = bn.forward(x);
  if (residual.defined()) {
    y = y + residual;
  }
  return relu ? torch::relu(y) : y;
}

}  // namespace hetbench::models
