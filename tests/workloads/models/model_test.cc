#include "hetbench/models/model.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/conv.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetbench/models/state_dict.h"
#include "reference_scripts.h"

namespace hetbench::models {
namespace {

using testing_support::TempDir;

// Verifies that the factory builds each workload with the benchmark's sample shape by default.
TEST(MakeModel, BuildsTheThreeWorkloads) {
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 224, 224}, {4, 128, 128, 128}, {16, 768, 1152}};
  ASSERT_EQ(allModels().size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto model = makeModel(allModels()[i].kind);
    EXPECT_EQ(model->kind(), allModels()[i].kind);
    EXPECT_EQ(model->sampleShape(), shapes[i]) << allModels()[i].name;
  }
}

// Verifies the sample sizes each model takes, and that others are refused with a message.
TEST(MakeModel, TakesSampleSizesTheModelsCanUse) {
  EXPECT_EQ(makeModel(ModelKind::kResnet50, ModelOptions().sampleSize({64}))->sampleShape(),
            (std::vector<int64_t>{3, 64, 64}));
  EXPECT_EQ(makeModel(ModelKind::kCosmoflow, ModelOptions().sampleSize({32}))->sampleShape(),
            (std::vector<int64_t>{4, 32, 32, 32}));
  EXPECT_EQ(makeModel(ModelKind::kDeepcam, ModelOptions().sampleSize({96, 144}))->sampleShape(),
            (std::vector<int64_t>{16, 96, 144}));
  EXPECT_THROW(makeModel(ModelKind::kCosmoflow, ModelOptions().sampleSize({48})),
               std::invalid_argument);
  EXPECT_THROW(makeModel(ModelKind::kCosmoflow, ModelOptions().sampleSize({32, 32})),
               std::invalid_argument);
  EXPECT_THROW(makeModel(ModelKind::kDeepcam, ModelOptions().sampleSize({100, 144})),
               std::invalid_argument);
  EXPECT_THROW(makeModel(ModelKind::kResnet50, ModelOptions().sampleSize({1, 2, 3})),
               std::invalid_argument);
  try {
    makeModel(ModelKind::kDeepcam, ModelOptions().sampleSize({100, 144}));
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "deepcam takes a sample size of one or two sides, each a positive multiple of "
                 "16, not 100x144");
  }
  try {
    makeModel(ModelKind::kCosmoflow, ModelOptions().sampleSize({48}));
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "cosmoflow takes a sample size of one side, a positive multiple of 32, "
                 "not 48");
  }
}

struct TrainingCase {
  ModelKind model;
  std::vector<int64_t> sampleSize;
  int64_t batch;
  double learningRate;
};

void PrintTo(const TrainingCase& c, std::ostream* os) { *os << descriptor(c.model).name; }

class Training : public ::testing::TestWithParam<TrainingCase> {};

// Verifies that each model learns: its benchmark loss on one fixed batch falls over a few SGD
// steps. Every step reseeds, so that dropout draws the same mask and the losses compare.
TEST_P(Training, LossFallsOnAFixedBatch) {
  const TrainingCase& c = GetParam();
  torch::manual_seed(0);
  const auto model = makeModel(c.model, ModelOptions().sampleSize(c.sampleSize));
  const Batch batch = model->randomBatch(c.batch);
  ASSERT_EQ(batch.input.size(0), c.batch);
  model->module().train();
  torch::optim::SGD sgd(model->module().parameters(),
                        torch::optim::SGDOptions(c.learningRate).momentum(0.9));
  std::vector<double> losses;
  for (int step = 0; step < 6; ++step) {
    torch::manual_seed(1);
    sgd.zero_grad();
    const auto loss = model->loss(model->forward(batch.input), batch.target);
    ASSERT_EQ(loss.dim(), 0);
    losses.push_back(loss.item<double>());
    loss.backward();
    sgd.step();
  }
  std::string trace;
  for (const double l : losses) {
    trace += " " + std::to_string(l);
  }
  RecordProperty("losses", trace);
  EXPECT_LT(losses.back(), 0.8 * losses.front()) << "losses:" << trace;
}

INSTANTIATE_TEST_SUITE_P(Models, Training,
                         ::testing::Values(TrainingCase{ModelKind::kResnet50, {64}, 4, 0.001},
                                           TrainingCase{ModelKind::kCosmoflow, {32}, 4, 0.01},
                                           TrainingCase{ModelKind::kDeepcam, {32, 48}, 2, 0.01}),
                         [](const auto& test) { return descriptor(test.param.model).name; });

// Verifies the channels-last helpers: layouts of 4-d and 5-d tensors, and a converted module
// that computes what it computed before.
TEST(ChannelsLast, ConvertsTensorsAndModules) {
  const auto image = torch::randn({2, 3, 8, 8});
  EXPECT_TRUE(toChannelsLast(image).is_contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(toChannelsLast(torch::randn({2, 3, 4, 4, 4}))
                  .is_contiguous(torch::MemoryFormat::ChannelsLast3d));
  EXPECT_TRUE(toChannelsLast(torch::randn({2, 3})).is_contiguous());

  for (const auto& [kind, size] : std::vector<std::pair<ModelKind, std::vector<int64_t>>>{
           {ModelKind::kResnet50, {64}}, {ModelKind::kCosmoflow, {32}}}) {
    SCOPED_TRACE(descriptor(kind).name);
    torch::manual_seed(0);
    const auto model = makeModel(kind, ModelOptions().sampleSize(size));
    model->module().eval();
    const auto input = model->randomBatch(2).input;
    torch::NoGradGuard noGrad;
    const auto before = model->forward(input);
    toChannelsLast(model->module());
    for (const auto& p : model->module().parameters()) {
      if (p.dim() == 4) {
        EXPECT_TRUE(p.is_contiguous(torch::MemoryFormat::ChannelsLast));
      } else if (p.dim() == 5) {
        EXPECT_TRUE(p.is_contiguous(torch::MemoryFormat::ChannelsLast3d));
      }
    }
    const auto after = model->forward(toChannelsLast(input));
    const double scale = before.abs().max().item<double>();
    EXPECT_LT((after - before).abs().max().item<double>(), 1e-5 * std::max(1.0, scale))
        << "largest |output| " << scale;
  }
}

// Verifies that loading a state dict copies parameters and buffers by name.
TEST(StateDict, LoadsByName) {
  torch::nn::Conv2d a(torch::nn::Conv2dOptions(2, 3, 1));
  torch::nn::Conv2d b(torch::nn::Conv2dOptions(2, 3, 1));
  loadStateDict(*b, stateDict(*a));
  EXPECT_TRUE(torch::equal(a->weight, b->weight));
  EXPECT_TRUE(torch::equal(a->bias, b->bias));
}

// Verifies that a state dict that does not fit is refused with every problem named, and that
// nothing is copied then.
TEST(StateDict, RefusesWhatDoesNotFit) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(2, 3, 1));
  const auto weight = conv->weight.clone();
  StateDict state = {{"weight", torch::zeros({3, 2, 2, 2})}, {"extra", torch::zeros({1})}};
  try {
    loadStateDict(*conv, state);
    FAIL() << "loaded a state dict that does not fit";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("missing bias"), std::string::npos) << message;
    EXPECT_NE(message.find("unexpected extra"), std::string::npos) << message;
    EXPECT_NE(message.find("weight is [3, 2, 2, 2], the module's [3, 2, 1, 1]"), std::string::npos)
        << message;
  }
  EXPECT_TRUE(torch::equal(conv->weight, weight));
}

// Verifies that files that are not a torch.save'd dict of tensors are refused naming the file.
TEST(StateDict, ReadRefusesOtherFiles) {
  TempDir dir;
  EXPECT_THROW(readStateDict(dir.file("absent.pt")), std::runtime_error);
  std::ofstream(dir.file("text.pt")) << "not a pickle";
  try {
    readStateDict(dir.file("text.pt"));
    FAIL() << "read a text file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("text.pt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetbench::models
