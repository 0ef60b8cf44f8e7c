#include "hetbench/models/deepcam.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/models/model.h"
#include "hetbench/models/state_dict.h"
#include "reference_scripts.h"

namespace hetbench::models {
namespace {

using testing_support::runScript;
using testing_support::TempDir;

// The parameter count of DeepLabv3_plus(n_input=16, n_classes=3, os=16), as
// deepcam_reference.py derives it.
constexpr int64_t kReferenceParameters = 56'454'720;

// Verifies the parameter count of the reference network.
TEST(DeepCam, HasTheReferenceParameterCount) {
  EXPECT_EQ(parameterCount(*DeepCam()), kReferenceParameters);
}

// Verifies every parameter and buffer name and shape against the reference structure that
// deepcam_reference.py builds, and the count it prints.
TEST(DeepCam, HasTheReferenceNamesAndShapes) {
  HETBENCH_REQUIRE_TORCH_PYTHON();
  const auto run = runScript("deepcam_reference.py", {"names"});
  ASSERT_EQ(run.status, 0) << run.output;

  std::map<std::string, std::vector<int64_t>> reference;
  int64_t referenceCount = -1;
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    std::vector<int64_t> shape;
    for (int64_t n = 0; fields >> n;) {
      shape.push_back(n);
    }
    if (name == "parameters") {
      referenceCount = shape.at(0);
    } else {
      reference[name] = shape;
    }
  }

  DeepCam net;
  std::map<std::string, std::vector<int64_t>> own;
  for (const auto& [name, tensor] : stateDict(*net)) {
    own[name] = tensor.sizes().vec();
  }
  EXPECT_EQ(own, reference);
  EXPECT_EQ(referenceCount, kReferenceParameters);
}

// Verifies the network against the reference script's on the same weights (BN statistics
// included): in eval mode the backbone's two outputs, ASPP's and the logits agree to float
// precision. The parts are compared on their own because the logits hardly depend on the
// backbone's deep features at random weights (the decoder's low-level path dominates).
TEST(DeepCam, MatchesTheReferenceOutputs) {
  HETBENCH_REQUIRE_TORCH_PYTHON();
  TempDir dir;
  const auto run = runScript("deepcam_reference.py", {"parity", dir.path(), "64", "96"});
  ASSERT_EQ(run.status, 0) << run.output;

  DeepCam net;
  loadStateDict(*net, readStateDict(dir.file("weights.pt")));
  net->eval();
  const StateDict io = readStateDict(dir.file("io.pt"));
  const auto children = net->named_children();
  auto& backbone = *children["xception_features"]->as<deepcam::Xception>();
  auto& aspp = *children["bottleneck"]->as<deepcam::Aspp>();
  const auto expectClose = [&](const std::string& name, const torch::Tensor& actual) {
    const auto& expected = io.at(name);
    ASSERT_EQ(actual.sizes(), expected.sizes()) << name;
    const double scale = expected.abs().max().item<double>();
    const double maxDiff = (actual - expected).abs().max().item<double>();
    RecordProperty(name + "_max_abs_diff", testing_support::scientific(maxDiff));
    EXPECT_LT(maxDiff, 1e-5 * std::max(1.0, scale)) << name << ": largest |value| " << scale;
  };

  torch::NoGradGuard noGrad;
  const auto [features, lowLevel] = backbone.forward(io.at("input"));
  expectClose("features", features);
  expectClose("low_level", lowLevel);
  expectClose("aspp", aspp.forward(io.at("features")));
  expectClose("output", net(io.at("input")));
}

// Verifies the dilations that small test inputs cannot tell apart: ASPP's rates 1, 6, 12, 18
// (padding = rate keeps the map's size) and the exit flow's 2.
TEST(DeepCam, DilatesAsTheReference) {
  DeepCam net;
  const auto modules = net->named_modules();
  const auto options = [&](const std::string& name) {
    return modules[name]->as<torch::nn::Conv2d>()->options;
  };
  const std::vector<std::pair<std::string, int64_t>> rates = {
      {"aspp1", 1}, {"aspp2", 6}, {"aspp3", 12}, {"aspp4", 18}};
  for (const auto& [branch, rate] : rates) {
    const auto o = options("bottleneck." + branch + ".atrous_convolution");
    EXPECT_EQ(o.dilation()->at(0), rate) << branch;
    EXPECT_EQ(o.kernel_size()->at(0), rate == 1 ? 1 : 3) << branch;
    EXPECT_EQ(c10::get<torch::ExpandingArray<2>>(o.padding())->at(0), rate == 1 ? 0 : rate)
        << branch;
  }
  for (const std::string conv : {"conv3", "conv4", "conv5"}) {
    EXPECT_EQ(options("xception_features." + conv + ".conv1").dilation()->at(0), 2) << conv;
  }
  EXPECT_EQ(options("xception_features.block19.rep.0.conv1").dilation()->at(0), 1);
}

// Verifies the shapes through the network: the backbone at 1/16 and 1/4, logits at full size.
TEST(DeepCam, SegmentsAtFullResolution) {
  torch::manual_seed(0);
  DeepCam net;
  net->eval();
  torch::NoGradGuard noGrad;
  const auto x = torch::randn({1, 16, 32, 48});
  deepcam::Xception backbone(16);
  backbone->eval();
  const auto [features, lowLevel] = backbone(x);
  EXPECT_EQ(features.sizes(), (std::vector<int64_t>{1, 2048, 2, 3}));
  EXPECT_EQ(lowLevel.sizes(), (std::vector<int64_t>{1, 128, 8, 12}));
  EXPECT_EQ(net(x).sizes(), (std::vector<int64_t>{1, 3, 32, 48}));
}

// Verifies that sizes the output stride does not divide, and wrong channels, are refused.
TEST(DeepCam, RefusesInputsItCannotSegment) {
  DeepCam net;
  EXPECT_THROW(net(torch::zeros({1, 16, 40, 48})), c10::Error);
  EXPECT_THROW(net(torch::zeros({1, 3, 32, 48})), c10::Error);
}

// Verifies the reference's class weights: frequencies to the power -0.125.
TEST(DeepCam, ClassWeightsAreTheReferences) {
  const auto w = deepcamClassWeights();
  ASSERT_EQ(w.sizes(), (std::vector<int64_t>{3}));
  EXPECT_NEAR(w[0].item<double>(), 1.0017, 1e-4);
  EXPECT_NEAR(w[1].item<double>(), 2.6146, 1e-4);
  EXPECT_NEAR(w[2].item<double>(), 1.7164, 1e-4);
}

// Verifies the loss: per-pixel cross-entropy times the true class' weight, then a plain mean over
// pixels, which differs from PyTorch's weighted mean; labels may carry a channel dimension.
TEST(DeepCam, LossIsAPlainMeanOfWeightedPixelLosses) {
  const auto weights = torch::tensor({1.0F, 3.0F, 2.0F});
  const auto logits = torch::zeros({1, 3, 1, 4});  // every pixel: log(3) before weighting
  const auto labels = torch::tensor({0, 1, 1, 2}, torch::kLong).reshape({1, 1, 4});
  const double expected = std::log(3.0) * (1 + 3 + 3 + 2) / 4;
  EXPECT_NEAR(deepcamLoss(logits, labels, weights).item<double>(), expected, 1e-6);
  EXPECT_NEAR(deepcamLoss(logits, labels.unsqueeze(1), weights).item<double>(), expected, 1e-6);
  const double weightedMean = std::log(3.0);  // what reduction="mean" would give
  EXPECT_GT(std::abs(expected - weightedMean), 0.1);
}

}  // namespace
}  // namespace hetbench::models
