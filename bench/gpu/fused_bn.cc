// gpu_fused_bn: cuDNN's fused batch norm (models::BatchNormKernels::kCudnn) against LibTorch's,
// layer by layer, at the shapes of ResNet-50's batch norms at batch 256. For each precision
// (bf16, fp16), shape and epilogue (none; ReLU; residual sum and ReLU) it prints one JSON line:
//   - the relative difference (||a - ref|| / ||ref||) of the output, the gradients of the input,
//     the residual, the scale and the shift, and of the running statistics after the step, for
//     cuDNN's kernels and for LibTorch's in the same precision, each against LibTorch in fp32
//     from the same rounded inputs; "pass" when cuDNN's differences are within twice LibTorch's
//     plus 1e-3 (the rounding of the low precision both share) and the fused path really ran;
//   - the median milliseconds of a forward and backward pass of each, over 20 after 3 warm-ups.
//
//   gpu_fused_bn
#include <ATen/Context.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "hetbench/models/batch_norm.h"

namespace models = hetbench::models;
namespace nn = torch::nn;

namespace {

struct Shape {
  int64_t n, c, h, w;
};

struct Pass {
  torch::Tensor y, dx, dz, dWeight, dBias, runningMean, runningVar;
  int64_t batchesTracked = 0;
  std::string node;
};

double relative(const torch::Tensor& a, const torch::Tensor& ref) {
  if (!a.defined() && !ref.defined()) {
    return 0.0;
  }
  const torch::Tensor r = ref.to(torch::kDouble);
  const double norm = r.norm().item<double>();
  const double diff = (a.to(torch::kDouble) - r).norm().item<double>();
  return norm > 0 ? diff / norm : diff;
}

using Differences = std::vector<std::pair<std::string, double>>;

/// Each result of `pass` against the same result of `ref`, named.
Differences differences(const Pass& pass, const Pass& ref) {
  return {
      {"y", relative(pass.y, ref.y)},
      {"dx", relative(pass.dx, ref.dx)},
      {"dz", relative(pass.dz, ref.dz)},
      {"dweight", relative(pass.dWeight, ref.dWeight)},
      {"dbias", relative(pass.dBias, ref.dBias)},
      {"running_mean", relative(pass.runningMean, ref.runningMean)},
      {"running_var", relative(pass.runningVar, ref.runningVar)},
  };
}

nn::BatchNorm2d batchNormLike(const nn::BatchNorm2d& source, const torch::Device& device) {
  nn::BatchNorm2d bn(source->options);
  const torch::NoGradGuard noGrad;
  bn->weight.copy_(source->weight);
  bn->bias.copy_(source->bias);
  bn->running_mean.copy_(source->running_mean);
  bn->running_var.copy_(source->running_var);
  bn->to(device);
  bn->train();
  return bn;
}

/// One forward and backward pass of `bn` over inputs cast to `type` in channels-last layout.
Pass runOnce(nn::BatchNorm2d& bn, const torch::Tensor& x, const torch::Tensor& z,
             const torch::Tensor& dy, torch::ScalarType type, models::BatchNormKernels kernels,
             bool relu) {
  const auto prepare = [&](const torch::Tensor& t) {
    return t.defined() ? t.to(type)
                             .contiguous(torch::MemoryFormat::ChannelsLast)
                             .detach()
                             .requires_grad_(true)
                       : torch::Tensor();
  };
  const torch::Tensor xi = prepare(x);
  const torch::Tensor zi = prepare(z);
  for (auto& p : bn->parameters()) {
    p.mutable_grad() = torch::Tensor();
  }
  Pass pass;
  pass.y = models::batchNorm(*bn, xi, kernels, relu, zi);
  pass.node = pass.y.grad_fn() ? pass.y.grad_fn()->name() : "";
  pass.y.backward(dy.to(type).contiguous(torch::MemoryFormat::ChannelsLast));
  pass.dx = xi.grad();
  pass.dz = zi.defined() ? zi.grad() : torch::Tensor();
  pass.dWeight = bn->weight.grad();
  pass.dBias = bn->bias.grad();
  pass.runningMean = bn->running_mean.clone();
  pass.runningVar = bn->running_var.clone();
  pass.batchesTracked = bn->num_batches_tracked.item<int64_t>();
  return pass;
}

double medianMilliseconds(const std::function<void()>& body) {
  for (int i = 0; i < 3; ++i) {
    body();
  }
  std::vector<double> times;
  for (int i = 0; i < 20; ++i) {
    torch::cuda::synchronize();
    const auto start = std::chrono::steady_clock::now();
    body();
    torch::cuda::synchronize();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

std::string json(const Differences& fields) {
  std::string text = "{";
  for (const auto& [name, value] : fields) {
    text += (text.size() > 1 ? ", \"" : "\"") + name + "\": " + std::to_string(value);
  }
  return text + "}";
}

/// An error message fit for a JSON string: its first 300 characters, quotes made apostrophes.
std::string quoteFree(std::string text) {
  text.resize(std::min<size_t>(text.size(), 300));
  std::replace(text.begin(), text.end(), '"', '\'');
  std::replace(text.begin(), text.end(), '\\', '/');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void check(const Shape& s, torch::ScalarType type, bool relu, bool residual) {
  const torch::Device cuda(torch::kCUDA);
  nn::BatchNorm2d source(s.c);
  {
    const torch::NoGradGuard noGrad;
    source->weight.copy_(1 + 0.2 * torch::randn({s.c}));
    source->bias.copy_(0.2 * torch::randn({s.c}));
    source->running_mean.copy_(0.1 * torch::randn({s.c}));
    source->running_var.copy_(1 + 0.1 * torch::rand({s.c}));
  }
  // The inputs rounded to the low precision once, so that every side starts from the same values.
  const auto draw = [&](double scale, double shift) {
    return (scale * torch::randn({s.n, s.c, s.h, s.w}, torch::device(cuda)) + shift)
        .to(type)
        .to(torch::kFloat);
  };
  const torch::Tensor x = draw(2.0, 0.5);
  const torch::Tensor z = residual ? draw(1.0, 0.0) : torch::Tensor();
  const torch::Tensor dy = draw(1.0, 0.0);

  nn::BatchNorm2d reference = batchNormLike(source, cuda);
  nn::BatchNorm2d aten = batchNormLike(source, cuda);
  nn::BatchNorm2d fused = batchNormLike(source, cuda);
  const Pass ref =
      runOnce(reference, x, z, dy, torch::kFloat, models::BatchNormKernels::kAten, relu);
  const Pass low = runOnce(aten, x, z, dy, type, models::BatchNormKernels::kAten, relu);
  const Pass cudnn = runOnce(fused, x, z, dy, type, models::BatchNormKernels::kCudnn, relu);

  const Differences errors = differences(cudnn, ref);
  const Differences atenErrors = differences(low, ref);
  bool pass = cudnn.node.find("FusedBatchNorm") != std::string::npos &&
              cudnn.batchesTracked == ref.batchesTracked;
  for (size_t i = 0; i < errors.size(); ++i) {
    pass = pass && errors[i].second <= 2 * atenErrors[i].second + 1e-3;
  }

  const auto timed = [&](models::BatchNormKernels kernels, nn::BatchNorm2d& bn) {
    const torch::Tensor xi = x.to(type).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor zi =
        residual ? z.to(type).contiguous(torch::MemoryFormat::ChannelsLast) : torch::Tensor();
    const torch::Tensor gi = dy.to(type).contiguous(torch::MemoryFormat::ChannelsLast);
    return medianMilliseconds([&] {
      const torch::Tensor xr = xi.detach().requires_grad_(true);
      const torch::Tensor zr = residual ? zi.detach().requires_grad_(true) : torch::Tensor();
      models::batchNorm(*bn, xr, kernels, relu, zr).backward(gi);
    });
  };
  const double atenMs = timed(models::BatchNormKernels::kAten, aten);
  const double cudnnMs = timed(models::BatchNormKernels::kCudnn, fused);

  std::cout << "{\"precision\": \"" << (type == torch::kBFloat16 ? "bf16" : "fp16")
            << "\", \"shape\": [" << s.n << ", " << s.c << ", " << s.h << ", " << s.w
            << "], \"epilogue\": \""
            << (residual ? "add+relu"
                : relu   ? "relu"
                         : "none")
            << "\", \"pass\": " << (pass ? "true" : "false") << ", \"node\": \"" << cudnn.node
            << "\", \"cudnn\": " << json(errors) << ", \"aten\": " << json(atenErrors)
            << ", \"ms\": {\"aten\": " << atenMs << ", \"cudnn\": " << cudnnMs << "}}" << std::endl;
}

}  // namespace

int main() {
  try {
    if (!torch::cuda::is_available() || !models::cudnnBatchNormBuilt()) {
      std::cerr << "gpu_fused_bn: needs a CUDA device and a build with cuDNN's batch norm\n";
      return 2;
    }
    at::globalContext().setAllowTF32CuDNN(false);
    torch::manual_seed(0);
    // ResNet-50's batch norms at batch 256, 224x224: the stem, a block's inner width and its
    // output in the first stage, and the last stage's.
    const std::vector<Shape> shapes = {
        {256, 64, 112, 112}, {256, 64, 56, 56}, {256, 256, 56, 56}, {256, 2048, 7, 7}};
    bool all = true;
    for (const torch::ScalarType type : {torch::kBFloat16, torch::kHalf}) {
      for (const Shape& shape : shapes) {
        for (const auto& [relu, residual] :
             {std::pair{false, false}, {true, false}, {true, true}}) {
          try {
            check(shape, type, relu, residual);
          } catch (const std::exception& e) {
            all = false;
            std::cout << "{\"precision\": \"" << (type == torch::kBFloat16 ? "bf16" : "fp16")
                      << "\", \"shape\": [" << shape.n << ", " << shape.c << ", " << shape.h << ", "
                      << shape.w << "], \"relu\": " << relu << ", \"residual\": " << residual
                      << ", \"pass\": false, \"error\": \"" << quoteFree(e.what()) << "\"}"
                      << std::endl;
          }
        }
      }
    }
    return all ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gpu_fused_bn: " << e.what() << "\n";
    return 1;
  }
}
