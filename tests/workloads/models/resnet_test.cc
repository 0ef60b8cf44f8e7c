#include "hetbench/models/resnet.h"

#include <gtest/gtest.h>
#include <torch/nn/functional/activation.h>

#include <cmath>

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

}  // namespace
}  // namespace hetbench::models
