// cuDNN's NHWC batch norm with its fused epilogues (ReLU; residual sum and ReLU), as an autograd
// function. PyTorch itself calls cuDNN's batch norm only for fp32 and fp16, never for bf16, and
// never with an epilogue; this is what NVIDIA's own ResNet-50 implementations fuse.
#include "cudnn_batch_norm.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cudnn/Handle.h>
#include <cudnn.h>
#include <torch/autograd.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace hetbench::models::detail {
namespace {

// Batch statistics over N, H and W per channel, in the persistent kernels that fuse epilogues.
constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;

void check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuDNN batch norm: ") + what + ": " +
                             cudnnGetErrorString(status));
  }
}

struct TensorDescriptorDeleter {
  void operator()(cudnnTensorStruct* desc) const { cudnnDestroyTensorDescriptor(desc); }
};
using TensorDescriptor = std::unique_ptr<cudnnTensorStruct, TensorDescriptorDeleter>;

struct ActivationDescriptorDeleter {
  void operator()(cudnnActivationStruct* desc) const { cudnnDestroyActivationDescriptor(desc); }
};
using ActivationDescriptor = std::unique_ptr<cudnnActivationStruct, ActivationDescriptorDeleter>;

/// The descriptors of one batch norm: the activations (x, y, z and their gradients share one),
/// the per-channel parameters and statistics (fp32), and the ReLU when there is one.
struct Descriptors {
  TensorDescriptor activations;
  TensorDescriptor parameters;
  ActivationDescriptor relu;
  cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;

  Descriptors(const torch::Tensor& x, bool withRelu, bool withResidual) {
    cudnnTensorDescriptor_t raw = nullptr;
    check(cudnnCreateTensorDescriptor(&raw), "creating a tensor descriptor");
    activations.reset(raw);
    const cudnnDataType_t type =
        x.scalar_type() == torch::kBFloat16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
    check(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NHWC, type, static_cast<int>(x.size(0)),
                                     static_cast<int>(x.size(1)), static_cast<int>(x.size(2)),
                                     static_cast<int>(x.size(3))),
          "describing the activations");
    check(cudnnCreateTensorDescriptor(&raw), "creating a tensor descriptor");
    parameters.reset(raw);
    check(cudnnDeriveBNTensorDescriptor(raw, activations.get(), kMode),
          "describing the parameters");
    if (withRelu) {
      cudnnActivationDescriptor_t act = nullptr;
      check(cudnnCreateActivationDescriptor(&act), "creating an activation descriptor");
      relu.reset(act);
      check(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
            "describing the ReLU");
      ops =
          withResidual ? CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION : CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
    }
  }
};

cudnnHandle_t handleOnCurrentStream() {
  cudnnHandle_t handle = at::native::getCudnnHandle();
  check(cudnnSetStream(handle, at::cuda::getCurrentCUDAStream().stream()), "setting the stream");
  return handle;
}

torch::Tensor bytes(size_t size, const torch::Tensor& like) {
  return torch::empty({static_cast<int64_t>(size)}, like.options().dtype(torch::kByte));
}

void* dataOrNull(const torch::Tensor& tensor) {
  return tensor.defined() ? tensor.data_ptr() : nullptr;
}

/// The forward pass of both autograd functions below; saves in `ctx` what backward needs.
torch::Tensor fusedForward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                           const torch::Tensor& residual, const torch::Tensor& weight,
                           const torch::Tensor& bias, const torch::Tensor& runningMean,
                           const torch::Tensor& runningVar, double momentum, double eps,
                           bool relu) {
  const Descriptors d(x, relu, residual.defined());
  const cudnnHandle_t handle = handleOnCurrentStream();
  cudnnTensorDescriptor_t z = residual.defined() ? d.activations.get() : nullptr;
  size_t workspaceSize = 0;
  check(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
            handle, kMode, d.ops, d.activations.get(), z, d.activations.get(), d.parameters.get(),
            d.relu.get(), &workspaceSize),
        "sizing the forward workspace");
  size_t reserveSize = 0;
  check(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, kMode, d.ops, d.relu.get(),
                                                             d.activations.get(), &reserveSize),
        "sizing the reserve space");
  const torch::Tensor workspace = bytes(workspaceSize, x);
  const torch::Tensor reserve = bytes(reserveSize, x);
  const torch::Tensor y = torch::empty_like(x, x.options(), at::MemoryFormat::ChannelsLast);
  const torch::Tensor saveMean = torch::empty({x.size(1)}, weight.options());
  const torch::Tensor saveInvStd = torch::empty({x.size(1)}, weight.options());
  const float one = 1.0F;
  const float zero = 0.0F;
  check(cudnnBatchNormalizationForwardTrainingEx(
            handle, kMode, d.ops, &one, &zero, d.activations.get(), x.data_ptr(), z,
            dataOrNull(residual), d.activations.get(), y.data_ptr(), d.parameters.get(),
            weight.data_ptr(), bias.data_ptr(), momentum, runningMean.data_ptr(),
            runningVar.data_ptr(), eps, saveMean.data_ptr(), saveInvStd.data_ptr(), d.relu.get(),
            workspace.data_ptr(), workspaceSize, reserve.data_ptr(), reserveSize),
        "forward");
  ctx->save_for_backward({x, y, weight, bias, saveMean, saveInvStd, reserve});
  ctx->saved_data["eps"] = eps;
  ctx->saved_data["relu"] = relu;
  ctx->saved_data["residual"] = residual.defined();
  return y;
}

/// The gradients of x, of the residual (undefined without one), of the scale and of the shift.
struct Gradients {
  torch::Tensor x, residual, weight, bias;
};

Gradients fusedBackward(torch::autograd::AutogradContext* ctx, const torch::Tensor& grad) {
  const auto saved = ctx->get_saved_variables();
  const torch::Tensor& x = saved[0];
  const torch::Tensor& y = saved[1];
  const torch::Tensor& weight = saved[2];
  const torch::Tensor& bias = saved[3];
  const torch::Tensor& reserve = saved[6];
  const bool relu = ctx->saved_data["relu"].toBool();
  const bool withResidual = ctx->saved_data["residual"].toBool();
  const Descriptors d(x, relu, withResidual);
  const cudnnHandle_t handle = handleOnCurrentStream();
  const torch::Tensor dy = grad.to(x.scalar_type()).contiguous(at::MemoryFormat::ChannelsLast);
  Gradients out;
  out.x = torch::empty_like(x, x.options(), at::MemoryFormat::ChannelsLast);
  if (withResidual) {
    out.residual = torch::empty_like(x, x.options(), at::MemoryFormat::ChannelsLast);
  }
  out.weight = torch::empty_like(weight);
  out.bias = torch::empty_like(bias);
  cudnnTensorDescriptor_t yDesc = relu ? d.activations.get() : nullptr;
  cudnnTensorDescriptor_t dzDesc = withResidual ? d.activations.get() : nullptr;
  size_t workspaceSize = 0;
  check(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
            handle, kMode, d.ops, d.activations.get(), yDesc, d.activations.get(), dzDesc,
            d.activations.get(), d.parameters.get(), d.relu.get(), &workspaceSize),
        "sizing the backward workspace");
  const torch::Tensor workspace = bytes(workspaceSize, x);
  const float one = 1.0F;
  const float zero = 0.0F;
  check(cudnnBatchNormalizationBackwardEx(
            handle, kMode, d.ops, &one, &zero, &one, &zero, d.activations.get(), x.data_ptr(),
            yDesc, relu ? y.data_ptr() : nullptr, d.activations.get(), dy.data_ptr(), dzDesc,
            dataOrNull(out.residual), d.activations.get(), out.x.data_ptr(), d.parameters.get(),
            weight.data_ptr(), bias.data_ptr(), out.weight.data_ptr(), out.bias.data_ptr(),
            ctx->saved_data["eps"].toDouble(), saved[4].data_ptr(), saved[5].data_ptr(),
            d.relu.get(), workspace.data_ptr(), workspaceSize, reserve.data_ptr(),
            static_cast<size_t>(reserve.numel())),
        "backward");
  return out;
}

// Two autograd functions, with and without the residual: LibTorch's C++ functions take no
// undefined tensor among their inputs. Each returns one gradient per argument of forward.
class FusedBatchNorm : public torch::autograd::Function<FusedBatchNorm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
                               torch::Tensor weight, torch::Tensor bias, torch::Tensor runningMean,
                               torch::Tensor runningVar, double momentum, double eps, bool relu) {
    return fusedForward(ctx, x, {}, weight, bias, runningMean, runningVar, momentum, eps, relu);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    Gradients g = fusedBackward(ctx, grads[0]);
    return {g.x, g.weight, g.bias, {}, {}, {}, {}, {}};
  }
};

class FusedBatchNormAddRelu : public torch::autograd::Function<FusedBatchNormAddRelu> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
                               torch::Tensor residual, torch::Tensor weight, torch::Tensor bias,
                               torch::Tensor runningMean, torch::Tensor runningVar, double momentum,
                               double eps) {
    return fusedForward(ctx, x, residual, weight, bias, runningMean, runningVar, momentum, eps,
                        /*relu=*/true);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    Gradients g = fusedBackward(ctx, grads[0]);
    return {g.x, g.residual, g.weight, g.bias, {}, {}, {}, {}};
  }
};

bool sameActivations(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && a.device() == b.device() &&
         b.is_contiguous(at::MemoryFormat::ChannelsLast);
}

}  // namespace

bool cudnnBatchNormApplies(const torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x,
                           const torch::Tensor& residual) {
  const auto& options = bn.options;
  return bn.is_training() && options.affine() && options.track_running_stats() &&
         options.momentum().has_value() && x.is_cuda() && x.dim() == 4 &&
         (x.scalar_type() == torch::kBFloat16 || x.scalar_type() == torch::kHalf) &&
         x.is_contiguous(at::MemoryFormat::ChannelsLast) &&
         bn.weight.scalar_type() == torch::kFloat &&
         bn.running_mean.scalar_type() == torch::kFloat &&
         (!residual.defined() || sameActivations(x, residual));
}

torch::Tensor cudnnBatchNorm(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x, bool relu,
                             const torch::Tensor& residual) {
  {
    const torch::NoGradGuard noGrad;
    bn.num_batches_tracked.add_(1);
  }
  const double momentum = *bn.options.momentum();
  if (residual.defined()) {
    return FusedBatchNormAddRelu::apply(x, residual, bn.weight, bn.bias, bn.running_mean,
                                        bn.running_var, momentum, bn.options.eps());
  }
  return FusedBatchNorm::apply(x, bn.weight, bn.bias, bn.running_mean, bn.running_var, momentum,
                               bn.options.eps(), relu);
}

}  // namespace hetbench::models::detail
