#include "hetbench/models/resnet.h"

#include <gtest/gtest.h>
#include <torch/nn/functional/activation.h>
#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "hetbench/models/batch_norm.h"
#include "hetbench/models/model.h"
#include "hetbench/models/state_dict.h"
#include "reference_scripts.h"

namespace hetbench::models {
namespace {

using testing_support::runScript;
using testing_support::TempDir;

// Verifies the parameter count of torchvision's resnet50 (and of ResNet-50 in general).
TEST(ResNet50, HasTorchvisionsParameterCount) {
  ResNet50 net;
  EXPECT_EQ(parameterCount(*net), 25'557'032);
}

// Verifies logits per image and class, and that the classifier follows the option.
TEST(ResNet50, GivesLogitsPerClass) {
  torch::manual_seed(0);
  ResNet50 net(ResNet50Options().numClasses(10));
  net->eval();
  EXPECT_EQ(net(torch::randn({2, 3, 64, 64})).sizes(), (std::vector<int64_t>{2, 10}));
}

// Verifies v1.5's strides: on the 3x3 conv of a layer's first bottleneck and on its downsample;
// and a downsample wherever the channels change.
TEST(ResNet50, StridesOnTheThreeByThreeConv) {
  ResNet50 net;
  const auto modules = net->named_modules();
  const auto stride = [&](const std::string& name) {
    const auto* conv = modules[name]->as<torch::nn::Conv2d>();
    return conv == nullptr ? -1 : conv->options.stride()->at(0);
  };
  for (const std::string layer : {"layer2", "layer3", "layer4"}) {
    EXPECT_EQ(stride(layer + ".0.conv1"), 1) << layer;
    EXPECT_EQ(stride(layer + ".0.conv2"), 2) << layer;
    EXPECT_EQ(stride(layer + ".0.downsample.0"), 2) << layer;
    EXPECT_EQ(stride(layer + ".1.conv2"), 1) << layer;
  }
  EXPECT_EQ(stride("layer1.0.downsample.0"), 1);  // 64 -> 256 channels
  EXPECT_FALSE(modules.contains("layer1.1.downsample"));
}

// Verifies torchvision's initialisation: Kaiming normal (fan_out, ReLU) convs, BN 1 and 0.
TEST(ResNet50, InitialisesAsTorchvision) {
  torch::manual_seed(0);
  const StateDict state = stateDict(*ResNet50());
  const auto& conv = state.at("layer3.1.conv2.weight");  // 256 x 256 x 3 x 3
  const double expected = std::sqrt(2.0 / (256 * 9));
  EXPECT_NEAR(conv.std().item<double>(), expected, 0.02 * expected);
  EXPECT_NEAR(conv.mean().item<double>(), 0.0, 0.02 * expected);
  EXPECT_TRUE(state.at("layer2.0.bn3.weight").eq(1).all().item<bool>());
  EXPECT_TRUE(state.at("layer2.0.bn3.bias").eq(0).all().item<bool>());
}

// Verifies that zeroInitResidual zeroes exactly the last BN scale of each bottleneck.
TEST(ResNet50, ZeroInitResidualZeroesEachBlocksLastBatchNormScale) {
  const StateDict state = stateDict(*ResNet50(ResNet50Options().zeroInitResidual(true)));
  int zeroed = 0;
  for (const auto& [name, tensor] : state) {
    const bool isLastScale = name.ends_with(".bn3.weight");
    if (name.ends_with(".weight") && name.find("bn") != std::string::npos) {
      EXPECT_EQ(tensor.eq(0).all().item<bool>(), isLastScale) << name;
      zeroed += isLastScale ? 1 : 0;
    }
  }
  EXPECT_EQ(zeroed, 3 + 4 + 6 + 3);
}

// Verifies the loss: cross-entropy against labels smoothed by 0.1 over the classes.
TEST(ResNet50, LossIsLabelSmoothedCrossEntropy) {
  torch::manual_seed(0);
  const auto logits = torch::randn({4, 10});
  const auto labels = torch::tensor({1, 0, 9, 3}, torch::kLong);
  const auto logP = torch::log_softmax(logits, 1);
  const auto nll = -logP.gather(1, labels.unsqueeze(1)).squeeze(1);
  const auto uniform = -logP.mean(1);
  const auto expected = (0.9 * nll + 0.1 * uniform).mean();
  EXPECT_NEAR(resnetLoss(logits, labels).item<double>(), expected.item<double>(), 1e-6);
}

// Verifies the model against torchvision's resnet50: torchvision's weights load by name (buffers
// included, strictly) and the eval-mode logits agree within 1e-4.
TEST(ResNet50, MatchesTorchvision) {
  HETBENCH_REQUIRE_TORCH_PYTHON();
  TempDir dir;
  const auto run = runScript("torchvision_resnet50.py", {dir.path(), "64"});
  ASSERT_EQ(run.status, 0) << run.output;

  ResNet50 net;
  loadStateDict(*net, readStateDict(dir.file("weights.pt")));
  net->eval();
  const StateDict io = readStateDict(dir.file("io.pt"));
  torch::NoGradGuard noGrad;
  const auto output = net(io.at("input"));
  ASSERT_EQ(output.sizes(), io.at("output").sizes());
  const double maxDiff = (output - io.at("output")).abs().max().item<double>();
  RecordProperty("max_abs_diff", testing_support::scientific(maxDiff));
  EXPECT_LT(maxDiff, 1e-4) << "largest |logit| " << io.at("output").abs().max().item<double>();
}

namespace nn = torch::nn;

/// A BatchNorm2d of `channels` with random parameters and running statistics.
nn::BatchNorm2d randomBatchNorm(int64_t channels) {
  nn::BatchNorm2d bn(channels);
  const torch::NoGradGuard noGrad;
  bn->weight.copy_(1 + 0.3 * torch::randn({channels}));
  bn->bias.copy_(0.3 * torch::randn({channels}));
  bn->running_mean.copy_(torch::randn({channels}));
  bn->running_var.copy_(1 + torch::rand({channels}));
  return bn;
}

nn::BatchNorm2d copyOf(const nn::BatchNorm2d& source) {
  nn::BatchNorm2d bn(source->options);
  loadStateDict(*bn, stateDict(*source));
  return bn;
}

// Verifies that LibTorch's kernels compute exactly the operators they stand for, forward,
// backward and running statistics, for each epilogue.
TEST(BatchNorm, AtenIsTheBatchNormThenTheSumThenTheReLU) {
  torch::manual_seed(1);
  const nn::BatchNorm2d source = randomBatchNorm(6);
  const torch::Tensor x = torch::randn({4, 6, 5, 3});
  const torch::Tensor residual = torch::randn({4, 6, 5, 3});
  for (const auto& [relu, withResidual] :
       {std::pair{false, false}, std::pair{true, false}, std::pair{true, true}}) {
    nn::BatchNorm2d expectedBn = copyOf(source);
    nn::BatchNorm2d actualBn = copyOf(source);
    const torch::Tensor xe = x.clone().requires_grad_(true);
    const torch::Tensor xa = x.clone().requires_grad_(true);
    const torch::Tensor re = residual.clone().requires_grad_(true);
    const torch::Tensor ra = residual.clone().requires_grad_(true);
    torch::Tensor expected = expectedBn(xe);
    if (withResidual) {
      expected = expected + re;
    }
    if (relu) {
      expected = torch::relu(expected);
    }
    const torch::Tensor actual = batchNorm(*actualBn, xa, BatchNormKernels::kAten, relu,
                                           withResidual ? ra : torch::Tensor());
    EXPECT_TRUE(torch::equal(actual, expected)) << relu << withResidual;
    expected.sum().backward();
    actual.sum().backward();
    EXPECT_TRUE(torch::equal(xa.grad(), xe.grad()));
    EXPECT_TRUE(torch::equal(actualBn->weight.grad(), expectedBn->weight.grad()));
    EXPECT_TRUE(torch::equal(actualBn->running_mean, expectedBn->running_mean));
    EXPECT_TRUE(torch::equal(actualBn->running_var, expectedBn->running_var));
    EXPECT_EQ(actualBn->num_batches_tracked.item<int64_t>(), 1);
    if (withResidual) {
      EXPECT_TRUE(torch::equal(ra.grad(), re.grad()));
    }
  }
}

// Verifies that cuDNN's kernels are asked for only where they apply: on the CPU, in fp32 or in
// eval mode the result is LibTorch's, bit for bit.
TEST(BatchNorm, CudnnFallsBackToAtenWhereItDoesNotApply) {
  torch::manual_seed(2);
  const nn::BatchNorm2d source = randomBatchNorm(8);
  const torch::Tensor x = torch::randn({2, 8, 4, 4}).contiguous(torch::MemoryFormat::ChannelsLast);
  const torch::Tensor residual = torch::randn({2, 8, 4, 4});
  for (const bool training : {true, false}) {
    nn::BatchNorm2d aten = copyOf(source);
    nn::BatchNorm2d cudnn = copyOf(source);
    aten->train(training);
    cudnn->train(training);
    const torch::Tensor expected = batchNorm(*aten, x, BatchNormKernels::kAten, true, residual);
    const torch::Tensor actual = batchNorm(*cudnn, x, BatchNormKernels::kCudnn, true, residual);
    EXPECT_TRUE(torch::equal(actual, expected)) << training;
    EXPECT_TRUE(torch::equal(cudnn->running_mean, aten->running_mean));
  }
}

// Verifies that a residual sum without the ReLU after it is refused: cuDNN fuses the sum only in
// front of an activation, so no model may ask for it.
TEST(BatchNorm, RefusesAResidualWithoutTheReLU) {
  nn::BatchNorm2d bn(3);
  const torch::Tensor x = torch::randn({2, 3, 2, 2});
  EXPECT_THROW(batchNorm(*bn, x, BatchNormKernels::kAten, false, x), std::invalid_argument);
}

// Verifies that a bottleneck asked for cuDNN's batch norm (with its shortcut's conv and BN)
// computes, where those kernels do not apply (here, the CPU), the same output and gradients as
// with LibTorch's, under the same parameter and buffer names.
TEST(BatchNorm, BottleneckWithCudnnKernelsIsTheSameBlockOnTheCpu) {
  torch::manual_seed(3);
  Bottleneck aten(16, 8, 2);
  Bottleneck cudnn(16, 8, 2, BatchNormKernels::kCudnn);
  loadStateDict(*cudnn, stateDict(*aten));
  const torch::Tensor x = torch::randn({2, 16, 8, 8});
  const torch::Tensor expected = aten(x);
  const torch::Tensor actual = cudnn(x);
  EXPECT_TRUE(torch::equal(actual, expected));
  expected.sum().backward();
  actual.sum().backward();
  const auto atenParameters = aten->named_parameters();
  for (const auto& item : cudnn->named_parameters()) {
    EXPECT_TRUE(torch::equal(item.value().grad(), atenParameters[item.key()].grad())) << item.key();
  }
  EXPECT_TRUE(cudnn->named_buffers().contains("downsample.1.running_mean"));
}

// Verifies the kernels' names, which run_start reports.
TEST(BatchNorm, NamesTheKernels) {
  EXPECT_EQ(toString(BatchNormKernels::kAten), "aten");
  EXPECT_EQ(toString(BatchNormKernels::kCudnn), "cudnn");
}

}  // namespace
}  // namespace hetbench::models
