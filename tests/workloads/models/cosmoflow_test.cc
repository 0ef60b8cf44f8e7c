#include "hetbench/models/cosmoflow.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hetbench/models/model.h"
#include "hetbench/models/state_dict.h"

namespace hetbench::models {
namespace {

// Verifies the count derived by hand in cosmoflow.h, layer by layer, at the benchmark's 128^3.
TEST(CosmoFlow, HasTheDerivedParameterCount) {
  const StateDict state = stateDict(*CosmoFlow());
  const std::vector<std::pair<std::string, int64_t>> layers = {
      {"conv1", 3'488},     {"conv2", 55'360},  {"conv3", 221'312}, {"conv4", 884'992},
      {"conv5", 3'539'456}, {"fc1", 4'194'432}, {"fc2", 8'256},     {"fc3", 260},
  };
  for (const auto& [layer, count] : layers) {
    EXPECT_EQ(state.at(layer + ".weight").numel() + state.at(layer + ".bias").numel(), count)
        << layer;
  }
  EXPECT_EQ(state.size(), 2 * layers.size());
  EXPECT_EQ(parameterCount(*CosmoFlow()), 8'907'556);
  EXPECT_EQ(parameterCount(*CosmoFlow(CosmoFlowOptions().inputSize(32))), 4'778'788);
}

// Verifies the convolutions' shapes: 3x3x3 kernels, filters doubling from 32 to 512.
TEST(CosmoFlow, ConvolutionsDoubleTheFilters) {
  const StateDict state = stateDict(*CosmoFlow(CosmoFlowOptions().inputSize(32)));
  int64_t in = 4;
  for (int i = 1; i <= 5; ++i) {
    const int64_t out = 16 << i;
    EXPECT_EQ(state.at("conv" + std::to_string(i) + ".weight").sizes(),
              (std::vector<int64_t>{out, in, 3, 3, 3}));
    in = out;
  }
}

// Verifies the forward pass against its specification written with LibTorch's functions:
// padding same, LeakyReLU 0.3, max pooling by 2, dense layers, tanh scaled by 1.2.
TEST(CosmoFlow, ForwardIsTheReferenceStack) {
  torch::manual_seed(0);
  CosmoFlow net(CosmoFlowOptions().inputSize(32));
  net->eval();
  const StateDict p = stateDict(*net);
  const auto x = cosmoflowLogTransform(torch::randint(0, 16, {2, 4, 32, 32, 32}));
  auto y = x;
  for (int i = 1; i <= 5; ++i) {
    const std::string conv = "conv" + std::to_string(i);
    y = torch::conv3d(y, p.at(conv + ".weight"), p.at(conv + ".bias"), 1, 1);
    y = torch::max_pool3d(torch::leaky_relu(y, 0.3), 2);
  }
  y = torch::leaky_relu(torch::linear(y.flatten(1), p.at("fc1.weight"), p.at("fc1.bias")), 0.3);
  y = torch::leaky_relu(torch::linear(y, p.at("fc2.weight"), p.at("fc2.bias")), 0.3);
  y = 1.2 * torch::tanh(torch::linear(y, p.at("fc3.weight"), p.at("fc3.bias")));

  torch::NoGradGuard noGrad;
  const auto output = net(x);
  ASSERT_EQ(output.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(torch::allclose(output, y, 1e-5, 1e-6));
}

// Verifies the output range (-1.2, 1.2), reached by saturating the last layer.
TEST(CosmoFlow, OutputsAreTanhScaledBy1Point2) {
  CosmoFlow net(CosmoFlowOptions().inputSize(32));
  net->eval();
  torch::NoGradGuard noGrad;
  net->named_parameters()["fc3.bias"].fill_(100.0);
  const auto output = net(torch::rand({1, 4, 32, 32, 32}));
  EXPECT_TRUE(torch::allclose(output, torch::full({1, 4}, 1.2)));
}

// Verifies that dropout acts in training mode only.
TEST(CosmoFlow, DropsOutOnlyWhenTraining) {
  torch::manual_seed(0);
  CosmoFlow net(CosmoFlowOptions().inputSize(32));
  const auto x = torch::rand({4, 4, 32, 32, 32});
  torch::NoGradGuard noGrad;
  net->eval();
  EXPECT_TRUE(torch::equal(net(x), net(x)));
  net->train();
  EXPECT_FALSE(torch::equal(net(x), net(x)));
}

// Verifies the Glorot-uniform weights and zero biases of Keras: |w| <= sqrt(6 / (fan_in +
// fan_out)), with the bound nearly reached.
TEST(CosmoFlow, InitialisesAsKeras) {
  torch::manual_seed(0);
  const StateDict state = stateDict(*CosmoFlow(CosmoFlowOptions().inputSize(32)));
  const auto& w = state.at("conv3.weight");  // 128 x 64 x 3 x 3 x 3
  const double bound = std::sqrt(6.0 / (27 * 64 + 27 * 128));
  EXPECT_LE(w.abs().max().item<double>(), bound);
  EXPECT_GT(w.abs().max().item<double>(), 0.99 * bound);
  EXPECT_TRUE(state.at("conv3.bias").eq(0).all().item<bool>());
  EXPECT_TRUE(state.at("fc1.bias").eq(0).all().item<bool>());
}

// Verifies that a side that five poolings cannot halve is refused.
TEST(CosmoFlow, RefusesSidesNotMultiplesOf32) {
  EXPECT_THROW(CosmoFlow(CosmoFlowOptions().inputSize(48)), c10::Error);
  EXPECT_THROW(CosmoFlow(CosmoFlowOptions().inputSize(16)), c10::Error);
}

// Verifies the input transform log(1 + counts).
TEST(CosmoFlow, LogTransformIsLog1p) {
  const auto counts = torch::tensor({0.0, std::exp(1.0) - 1.0, 999.0});
  EXPECT_TRUE(
      torch::allclose(cosmoflowLogTransform(counts), torch::tensor({0.0, 1.0, std::log(1000.0)})));
}

// Verifies the loss: the mean squared error over parameters and batch.
TEST(CosmoFlow, LossIsMeanSquaredError) {
  const auto output = torch::tensor({{0.0, 1.0}, {1.0, 1.0}});
  const auto target = torch::tensor({{0.0, 0.0}, {-1.0, 1.0}});
  EXPECT_DOUBLE_EQ(cosmoflowLoss(output, target).item<double>(), (1.0 + 4.0) / 4);
}

}  // namespace
}  // namespace hetbench::models
