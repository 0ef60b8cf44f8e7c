#include "hetbench/train/trainer.h"

#include <gtest/gtest.h>
#include <hetbench/data/loader.h>
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetbench::train {
namespace {

using models::MetricKind;
using models::ModelKind;
using enum models::ModelKind;

struct TrainingCase {
  ModelKind model;
  std::vector<int64_t> sampleSize;
  int64_t batch;
  Precision precision;
  bool channelsLast;
  Hyperparameters hyper;
  int steps;
};

std::string caseName(const ::testing::TestParamInfo<TrainingCase>& param) {
  const TrainingCase& c = param.param;
  std::string name = models::descriptor(c.model).name + "_" + std::string(toString(c.precision)) +
                     "_" + std::string(toString(c.hyper.optimizer));
  return c.channelsLast ? name + "_channels_last" : name;
}

void PrintTo(const TrainingCase& c, std::ostream* os) {
  *os << models::descriptor(c.model).name << " " << toString(c.precision) << " "
      << toString(c.hyper.optimizer);
}

Hyperparameters hyper(OptimizerKind kind, double lr) {
  Hyperparameters h;
  h.optimizer = kind;
  h.lr = lr;
  h.momentum = kind == OptimizerKind::kSgd ? 0.9 : 0;
  return h;
}

/// One intra-op thread: on a shared machine a team of threads waits for its slowest member.
class Training : public ::testing::TestWithParam<TrainingCase> {
 protected:
  void SetUp() override { torch::set_num_threads(1); }
};

// Verifies that each model trains through the loop's step (its optimizer, autocast for bf16,
// channels-last layouts): a few steps on one fixed batch bring the loss below 0.8 x the first.
// Every step reseeds, so that dropout draws the same mask and the losses compare.
TEST_P(Training, LossFallsOnAFixedBatch) {
  const TrainingCase& c = GetParam();
  torch::manual_seed(0);
  const auto model = models::makeModel(c.model, models::ModelOptions().sampleSize(c.sampleSize));
  SingleProcess single;
  TrainerConfig config;
  config.precision = c.precision;
  config.channelsLast = c.channelsLast;
  config.hyper = c.hyper;
  Trainer trainer(*model, config, single);
  const models::Batch batch = trainer.toDevice(model->randomBatch(c.batch));
  std::vector<double> losses;
  for (int i = 0; i < c.steps; ++i) {
    torch::manual_seed(1);
    losses.push_back(trainer.step(batch).item<double>());
  }
  RecordProperty("losses", std::to_string(losses.front()) + " to " + std::to_string(losses.back()));
  EXPECT_LT(losses.back(), 0.8 * losses.front())
      << "losses from " << losses.front() << " to " << losses.back();
  for (const double loss : losses) {
    EXPECT_TRUE(std::isfinite(loss));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, Training,
    ::testing::Values(
        TrainingCase{
            kResnet50, {32}, 4, Precision::kFp32, false, hyper(OptimizerKind::kSgd, 0.001), 4},
        TrainingCase{
            kResnet50, {32}, 4, Precision::kBf16, true, hyper(OptimizerKind::kSgd, 0.001), 4},
        TrainingCase{
            kCosmoflow, {32}, 4, Precision::kFp32, true, hyper(OptimizerKind::kSgd, 0.01), 6},
        TrainingCase{
            kCosmoflow, {32}, 4, Precision::kBf16, false, hyper(OptimizerKind::kAdamW, 1e-4), 6},
        TrainingCase{
            kDeepcam, {32, 32}, 2, Precision::kFp32, true, hyper(OptimizerKind::kAdam, 1e-3), 3}),
    caseName);

/// A clock that only the test moves.
struct FakeClock {
  std::chrono::nanoseconds now{0};
  MonotonicClock clock() {
    return [this] { return now; };
  }
};

/// In-memory batches. Each next() moves the fake clock on by `delay` (the time a real loader
/// would make its caller wait) and an energy counter by `joulesPerBatch`.
class MemoryLoader final : public data::Loader {
 public:
  MemoryLoader(std::vector<models::Batch> batches, FakeClock* clock, std::chrono::nanoseconds delay)
      : batches_(std::move(batches)), clock_(clock), delay_(delay) {}

  int64_t batchesPerEpoch() const override { return static_cast<int64_t>(batches_.size()); }
  void startEpoch(int64_t epoch) override {
    epochs.push_back(epoch);
    next_ = 0;
  }
  std::optional<models::Batch> next() override {
    if (clock_ != nullptr) {
      clock_->now += delay_;
    }
    joules += 2.5;
    if (next_ == batches_.size()) {
      return std::nullopt;
    }
    ++served;
    return batches_[next_++];
  }

  std::vector<int64_t> epochs;
  int served = 0;
  double joules = 0;

 private:
  std::vector<models::Batch> batches_;
  FakeClock* clock_;
  std::chrono::nanoseconds delay_;
  size_t next_ = 0;
};

/// A small model and a trainer on it, with the fake clock.
struct SmallRun {
  FakeClock time;
  std::unique_ptr<models::Model> model;
  SingleProcess single;
  std::unique_ptr<Trainer> trainer;

  explicit SmallRun(bool withClock = true, std::function<double()> energy = {},
                    std::function<std::vector<energy::DeviceWindow>()> health = {}) {
    torch::manual_seed(1);
    model = models::makeModel(kCosmoflow, models::ModelOptions().sampleSize({32}));
    TrainerConfig config;
    config.hyper = hyper(OptimizerKind::kSgd, 0.01);
    if (withClock) {
      config.clock = time.clock();
    }
    config.energyJoules = std::move(energy);
    config.deviceHealth = std::move(health);
    trainer = std::make_unique<Trainer>(*model, config, single);
  }

  std::vector<models::Batch> batches(const std::vector<int64_t>& sizes) const {
    std::vector<models::Batch> result;
    for (const int64_t size : sizes) {
      result.push_back(model->randomBatch(size));
    }
    return result;
  }
};

// Verifies an epoch from a loader: its I/O is exactly the time spent in next() (here only the
// loader moves the clock, so compute is 0), every batch is trained on, a partial last batch
// counts its samples, and the loader's epoch is started with the epoch's number.
TEST(TrainEpoch, TimesTheLoadersBatchesAsIo) {
  SmallRun run;
  MemoryLoader loader(run.batches({2, 2, 1}), &run.time, std::chrono::milliseconds(250));
  TrainingData data = TrainingData::fromLoader(loader, 0);
  const EpochFigures figures = run.trainer->trainEpoch(4, data, true);
  EXPECT_EQ(loader.epochs, (std::vector<int64_t>{4}));
  EXPECT_EQ(figures.epoch, 4);
  EXPECT_TRUE(figures.warmup);
  EXPECT_EQ(figures.steps, 3);
  EXPECT_EQ(figures.samples, 5);
  // Three batches and the final nullopt, 250 ms each.
  EXPECT_DOUBLE_EQ(figures.ioSeconds, 1.0);
  EXPECT_DOUBLE_EQ(figures.wallSeconds, 1.0);
  EXPECT_DOUBLE_EQ(figures.computeSeconds, 0);
  EXPECT_GT(figures.lossSum, 0);
  EXPECT_FALSE(figures.energyJoules.has_value());
  EXPECT_FALSE(figures.eval.has_value());
}

// Verifies that --steps-per-epoch stops an epoch early and that the next epoch starts the
// loader again.
TEST(TrainEpoch, StopsAfterTheStepsAsked) {
  SmallRun run;
  MemoryLoader loader(run.batches({2, 2, 2, 2}), &run.time, std::chrono::milliseconds(100));
  TrainingData data = TrainingData::fromLoader(loader, 2);
  EXPECT_EQ(run.trainer->trainEpoch(0, data, true).steps, 2);
  const EpochFigures second = run.trainer->trainEpoch(1, data, false);
  EXPECT_EQ(second.steps, 2);
  EXPECT_EQ(second.samples, 4);
  EXPECT_DOUBLE_EQ(second.ioSeconds, 0.2);
  EXPECT_EQ(loader.epochs, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(loader.served, 4);
}

// Verifies that an epoch of a fixed batch has no I/O at all and trains the steps asked.
TEST(TrainEpoch, FixedBatchHasNoIo) {
  SmallRun run(false);
  TrainingData data = TrainingData::fixedBatch(run.trainer->toDevice(run.model->randomBatch(2)), 3);
  const EpochFigures figures = run.trainer->trainEpoch(0, data, false);
  EXPECT_EQ(figures.steps, 3);
  EXPECT_EQ(figures.samples, 6);
  EXPECT_EQ(figures.ioSeconds, 0);
  EXPECT_GT(figures.wallSeconds, 0);
  EXPECT_EQ(figures.computeSeconds, figures.wallSeconds);
  EXPECT_THROW(TrainingData::fixedBatch(run.model->randomBatch(1), 0), std::invalid_argument);
}

// Verifies with the real clock that I/O and compute add up to the wall time.
TEST(TrainEpoch, IoAndComputeAddUpToTheWallTime) {
  SmallRun run(false);
  MemoryLoader loader(run.batches({2, 2}), nullptr, std::chrono::nanoseconds(0));
  TrainingData data = TrainingData::fromLoader(loader, 0);
  const EpochFigures figures = run.trainer->trainEpoch(0, data, false);
  EXPECT_GT(figures.ioSeconds, 0);
  EXPECT_GT(figures.computeSeconds, figures.ioSeconds);
  EXPECT_NEAR(figures.ioSeconds + figures.computeSeconds, figures.wallSeconds,
              1e-9 * figures.wallSeconds);
}

// Verifies that an energy counter, when attached, gives each epoch what it counted meanwhile.
TEST(TrainEpoch, ReadsTheEnergyCounter) {
  MemoryLoader* counting = nullptr;
  SmallRun run(true, [&counting] { return counting->joules; });
  MemoryLoader loader(run.batches({1, 1}), &run.time, std::chrono::milliseconds(10));
  counting = &loader;
  TrainingData data = TrainingData::fromLoader(loader, 0);
  // Two batches and the final nullopt, 2.5 J each.
  EXPECT_EQ(run.trainer->trainEpoch(0, data, false).energyJoules, 7.5);
}

// Verifies that an epoch carries its GPUs' window from its own start to its end: the monitor's
// window is taken at the start (and dropped) and at the end.
TEST(TrainEpoch, TakesTheGpuWindowOfItsOwnTime) {
  int windows = 0;
  SmallRun run(true, {}, [&windows] {
    energy::DeviceWindow window;
    window.device = "GPU 0 (Fake)";
    window.samples = ++windows;
    return std::vector<energy::DeviceWindow>{window};
  });
  MemoryLoader loader(run.batches({1}), &run.time, std::chrono::milliseconds(10));
  TrainingData data = TrainingData::fromLoader(loader, 0);
  const EpochFigures figures = run.trainer->trainEpoch(0, data, false);
  EXPECT_EQ(windows, 2);
  ASSERT_EQ(figures.devices.size(), 1u);
  EXPECT_EQ(figures.devices[0].samples, 2);
}

// Verifies that data smaller than one batch is an error rather than an empty epoch.
TEST(TrainEpoch, RefusesAnEpochWithoutBatches) {
  SmallRun run;
  MemoryLoader loader({}, &run.time, std::chrono::milliseconds(1));
  TrainingData data = TrainingData::fromLoader(loader, 0);
  try {
    run.trainer->trainEpoch(2, data, false);
    ADD_FAILURE() << "an epoch without batches";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "epoch 2 got no batch: the data is smaller than one batch");
  }
}

/// Records the collective calls; its averaging zeroes the gradients.
class ZeroingCollective final : public Collective {
 public:
  int64_t rank() const override { return 0; }
  int64_t worldSize() const override { return 1; }
  void broadcastParameters(torch::nn::Module& module) override {
    broadcasts.push_back(module.parameters().size());
  }
  void averageGradients(const std::vector<torch::Tensor>& gradients) override {
    averaged.push_back(gradients.size());
    for (const auto& g : gradients) {
      g.zero_();
    }
  }
  void trainingEpochEnded(torch::nn::Module&) override { epochsEnded.push_back(averaged.size()); }
  std::vector<EpochFigures> gatherFigures(const EpochFigures& mine) override { return {mine}; }

  std::vector<size_t> broadcasts;
  std::vector<size_t> averaged;
  std::vector<size_t> epochsEnded;  // how many steps had averaged their gradients by then
};

// Verifies the distributed seams: the parameters are broadcast once before training, and every
// step hands all gradients to the collective after backward and before the optimizer (whose
// update then sees the collective's gradients: zero here, so plain SGD changes nothing), and
// an epoch ends with the collective's epoch hook after its last step.
TEST(Trainer, SynchronisesGradientsBetweenBackwardAndStep) {
  torch::manual_seed(2);
  const auto model = models::makeModel(kCosmoflow, models::ModelOptions().sampleSize({32}));
  const size_t parameters = model->module().parameters().size();
  ZeroingCollective collective;
  TrainerConfig config;
  config.hyper = hyper(OptimizerKind::kSgd, 0.1);
  config.hyper.momentum = 0;
  Trainer trainer(*model, config, collective);
  EXPECT_EQ(collective.broadcasts, (std::vector<size_t>{parameters}));
  const auto before = model->module().parameters()[0].clone();
  const models::Batch batch = model->randomBatch(2);
  trainer.step(batch);
  trainer.step(batch);
  EXPECT_EQ(collective.averaged, (std::vector<size_t>{parameters, parameters}));
  EXPECT_TRUE(torch::equal(model->module().parameters()[0], before));
  EXPECT_TRUE(collective.epochsEnded.empty());
  TrainingData data = TrainingData::fixedBatch(batch, 3);
  trainer.trainEpoch(0, data, false);
  EXPECT_EQ(collective.averaged.size(), 5U);
  EXPECT_EQ(collective.epochsEnded, (std::vector<size_t>{5}));
}

// Verifies the evaluation pass: every sample counted, a finite mean loss, the metric in its
// range, no gradients, and the model back in training mode afterwards.
TEST(Trainer, Evaluates) {
  SmallRun run(false);
  MemoryLoader loader(run.batches({2, 3}), nullptr, std::chrono::nanoseconds(0));
  TrainingData data = TrainingData::fromLoader(loader, 0);
  const EvalTotals totals = run.trainer->evaluate(data);
  EXPECT_EQ(totals.samples, 5);
  EXPECT_TRUE(std::isfinite(totals.lossSum));
  EXPECT_GT(totals.lossSum, 0);
  EXPECT_GT(totals.metricSum, 0);  // mean absolute errors
  EXPECT_GT(totals.seconds, 0);
  EXPECT_TRUE(run.model->module().is_training());
  for (const auto& p : run.model->module().parameters()) {
    EXPECT_FALSE(p.grad().defined());
  }
}

// Verifies each model's evaluation metric on outputs worked out by hand.
TEST(Trainer, ComputesTheEvaluationMetrics) {
  // resnet50: top-1 hits. Predictions 1, 0, 2 against 1, 2, 2.
  const auto logits = torch::tensor({{0.1, 0.9, 0.0}, {0.8, 0.1, 0.1}, {0.0, 0.2, 0.7}});
  EXPECT_EQ(
      evalMetricSum(MetricKind::kTop1Accuracy, logits, torch::tensor({1, 2, 2})).item<double>(), 2);
  // cosmoflow: per-sample mean absolute error, summed: (0.4 + 0) / 4 + (1 + 1 + 1 + 1) / 4.
  const auto out = torch::tensor({{0.1, 0.2, 0.3, 0.4}, {1.0, 1.0, 1.0, 1.0}});
  const auto truth = torch::tensor({{0.1, 0.2, 0.3, 0.0}, {0.0, 0.0, 0.0, 0.0}});
  EXPECT_NEAR(evalMetricSum(MetricKind::kMeanAbsoluteError, out, truth).item<double>(), 0.1 + 1.0,
              1e-6);
  // deepcam, one 2x2 image, three classes. Prediction (argmax) 0 0 / 1 1, truth 0 1 / 1 1:
  // class 0: 1 hit of 2 in either (0.5); class 1: 2 of 3 (2/3); class 2 absent from both (1).
  auto scores = torch::zeros({1, 3, 2, 2});
  scores.index_put_({0, 0, 0}, 1.0);  // row 0 predicts class 0
  scores.index_put_({0, 1, 1}, 1.0);  // row 1 predicts class 1
  const auto pixels = torch::tensor({{{0, 1}, {1, 1}}});
  EXPECT_NEAR(evalMetricSum(MetricKind::kMeanIoU, scores, pixels).item<double>(),
              (0.5 + 2.0 / 3.0 + 1.0) / 3.0, 1e-9);
}

// Verifies that a precision or CUDA graphs the CPU cannot have are refused with a message.
TEST(Trainer, RefusesWhatTheCpuCannotDo) {
  const auto model = models::makeModel(kCosmoflow, models::ModelOptions().sampleSize({32}));
  SingleProcess single;
  TrainerConfig fp16;
  fp16.precision = Precision::kFp16;
  try {
    Trainer trainer(*model, fp16, single);
    ADD_FAILURE() << "fp16 on the CPU";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "fp16 needs a CUDA device: on the CPU LibTorch 1.13 autocasts to bf16 only");
  }
  TrainerConfig graphs;
  graphs.cudaGraphs = true;
  EXPECT_THROW(Trainer(*model, graphs, single), std::invalid_argument);
}

// Verifies channels-last: the model's 5-d weights and the inputs toDevice gives.
TEST(Trainer, PutsModelAndInputsInChannelsLast) {
  const auto model = models::makeModel(kCosmoflow, models::ModelOptions().sampleSize({32}));
  SingleProcess single;
  TrainerConfig config;
  config.channelsLast = true;
  const Trainer trainer(*model, config, single);
  EXPECT_TRUE(model->module().parameters()[0].is_contiguous(torch::MemoryFormat::ChannelsLast3d));
  EXPECT_TRUE(trainer.toDevice(model->randomBatch(1))
                  .input.is_contiguous(torch::MemoryFormat::ChannelsLast3d));
}

}  // namespace
}  // namespace hetbench::train
