#include "hetbench/train/options.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace hetbench::train {
namespace {

using models::ModelKind;

std::vector<std::string> withBase(std::vector<std::string> extra) {
  std::vector<std::string> args = {"--model", "resnet50",          "--batch-size",
                                   "8",       "--steps-per-epoch", "3"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Verifies each flag's value reaches the options, in both spellings, with the defaults kept for
// flags not given.
TEST(TrainOptions, ParsesEveryFlag) {
  const ParsedArgs parsed = parseTrainArgs({"--model=deepcam",
                                            "--batch-size-per-rank",
                                            "2",
                                            "--epochs",
                                            "5",
                                            "--steps-per-epoch=7",
                                            "--warmup-epochs",
                                            "2",
                                            "--data",
                                            "/data/deepcam",
                                            "--sample-size",
                                            "96,144",
                                            "--precision",
                                            "bf16",
                                            "--channels-last",
                                            "--cuda-graphs=true",
                                            "--loader-threads",
                                            "3",
                                            "--seed",
                                            "18446744073709551615",
                                            "--device",
                                            "cuda",
                                            "--eval",
                                            "--optimizer",
                                            "adamw",
                                            "--lr",
                                            "0.004",
                                            "--weight-decay=0.01",
                                            "--mllog",
                                            "--threads",
                                            "2",
                                            "--procs-per-node",
                                            "4",
                                            "--profile",
                                            "/out/profile.json"});
  ASSERT_TRUE(parsed.options.has_value()) << parsed.error;
  const TrainOptions& o = *parsed.options;
  EXPECT_EQ(o.model, ModelKind::kDeepcam);
  EXPECT_FALSE(o.batchSize.has_value());
  EXPECT_EQ(o.batchSizePerRank, 2);
  EXPECT_EQ(o.epochs, 5);
  EXPECT_EQ(o.stepsPerEpoch, 7);
  EXPECT_EQ(o.warmupEpochs, 2);
  EXPECT_EQ(o.data, "/data/deepcam");
  EXPECT_FALSE(o.synthetic());
  EXPECT_EQ(o.sampleSize, (std::vector<int64_t>{96, 144}));
  EXPECT_EQ(o.precision, Precision::kBf16);
  EXPECT_TRUE(o.channelsLast);
  EXPECT_TRUE(o.cudaGraphs);
  EXPECT_EQ(o.loaderThreads, 3);
  EXPECT_EQ(o.seed, 18446744073709551615ULL);
  EXPECT_EQ(o.device, DeviceChoice::kCuda);
  EXPECT_TRUE(o.eval);
  EXPECT_EQ(o.optimizer, OptimizerKind::kAdamW);
  EXPECT_EQ(o.lr, 0.004);
  EXPECT_EQ(o.weightDecay, 0.01);
  EXPECT_FALSE(o.momentum.has_value());
  EXPECT_TRUE(o.mllog);
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.procsPerNode, 4);
  EXPECT_EQ(o.profile, "/out/profile.json");
  EXPECT_FALSE(o.zeroInitResidual);

  const ParsedArgs defaults = parseTrainArgs(withBase({}));
  ASSERT_TRUE(defaults.options.has_value()) << defaults.error;
  EXPECT_EQ(defaults.options->epochs, 2);
  EXPECT_EQ(defaults.options->warmupEpochs, 1);
  EXPECT_TRUE(defaults.options->synthetic());
  EXPECT_EQ(defaults.options->precision, Precision::kFp32);
  EXPECT_EQ(defaults.options->device, DeviceChoice::kAuto);
  EXPECT_EQ(defaults.options->loaderThreads, 4);
  EXPECT_FALSE(defaults.options->procsPerNode.has_value());
  EXPECT_TRUE(defaults.options->profile.empty());
  EXPECT_FALSE(parseTrainArgs(withBase({"--procs-per-node", "auto"})).options->procsPerNode);
  EXPECT_FALSE(defaults.options->channelsLast || defaults.options->cudaGraphs ||
               defaults.options->eval || defaults.options->mllog);
}

// Verifies that bad flags, values and combinations are refused with one line naming the cause.
TEST(TrainOptions, RefusesWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {withBase({"--bogus"}), "unknown flag --bogus"},
      {withBase({"--epochs"}), "flag --epochs needs a value (N)"},
      {withBase({"--epochs", "two"}), "flag --epochs: 'two' is not an integer"},
      {withBase({"--epochs", "0"}), "flag --epochs: must be at least 1, not 0"},
      {withBase({"--epochs", "3x"}), "flag --epochs: '3x' is not an integer"},
      {withBase({"--epochs", "99999999999999999999"}),
       "flag --epochs: '99999999999999999999' is not an integer"},
      {withBase({"--steps-per-epoch", "-1"}), "flag --steps-per-epoch is given twice"},
      {{"--model", "vgg", "--batch-size", "8"},
       "flag --model: 'vgg' is not one of resnet50, cosmoflow, deepcam"},
      {withBase({"--precision", "fp8"}), "flag --precision: 'fp8' is not one of fp32, bf16, fp16"},
      {withBase({"--device", "tpu"}), "flag --device: 'tpu' is not one of auto, cpu, cuda"},
      {withBase({"--sample-size", "64,"}),
       "flag --sample-size: '64,' is not one or two positive integers separated by a comma"},
      {withBase({"--sample-size", "1,2,3"}),
       "flag --sample-size: '1,2,3' is not one or two positive integers separated by a comma"},
      {withBase({"--sample-size", "0"}),
       "flag --sample-size: '0' is not one or two positive integers separated by a comma"},
      {withBase({"--lr", "0"}), "flag --lr: must be above 0, not 0"},
      {withBase({"--lr", "nan"}), "flag --lr: 'nan' is not a finite number"},
      {withBase({"--weight-decay", "-0.1"}), "flag --weight-decay: must be at least 0, not -0.1"},
      {withBase({"--momentum", "1"}), "--momentum must be below 1"},
      {withBase({"--seed", "-1"}),
       "flag --seed: '-1' is not an integer from 0 to 18446744073709551615"},
      {withBase({"--eval=maybe"}), "flag --eval: 'maybe' is not true or false"},
      {withBase({"--data", ""}),
       "flag --data: must be 'synthetic' or a dataset's directory, not empty"},
      {withBase({"--loader-threads", "0"}), "flag --loader-threads: must be at least 1, not 0"},
      {withBase({"--procs-per-node", "0"}), "flag --procs-per-node: must be from 1 to 1024, not 0"},
      {withBase({"--procs-per-node", "1025"}),
       "flag --procs-per-node: must be from 1 to 1024, not 1025"},
      {withBase({"--procs-per-node", "all"}),
       "flag --procs-per-node: 'all' is neither auto nor an integer"},
      {withBase({"--profile="}), "flag --profile: must be a file's path, not empty"},
      {withBase({"extra"}), "unexpected argument 'extra' (flags start with --)"},
      {{"--batch-size", "8", "--steps-per-epoch", "1"},
       "--model is required (resnet50, cosmoflow or deepcam)"},
      {{"--model", "resnet50", "--steps-per-epoch", "1"},
       "give exactly one of --batch-size and --batch-size-per-rank"},
      {withBase({"--batch-size-per-rank", "2"}),
       "give exactly one of --batch-size and --batch-size-per-rank"},
      {withBase({"--batch-size", "0"}), "flag --batch-size is given twice"},
      {{"--model", "resnet50", "--batch-size", "0"},
       "flag --batch-size: must be at least 1, not 0"},
      {{"--model", "resnet50", "--batch-size", "8"},
       "--steps-per-epoch must be above 0 with --data synthetic, which has no whole pass"},
      {withBase({"--epochs", "1"}),
       "--warmup-epochs (1) must be less than --epochs (1), so that an epoch is measured"},
      {{"--model", "cosmoflow", "--batch-size", "8", "--steps-per-epoch", "1",
        "--zero-init-residual"},
       "--zero-init-residual applies to resnet50 only"},
      {{"--model", "deepcam", "--batch-size", "8", "--steps-per-epoch", "1", "--momentum", "0.5"},
       "--momentum applies to the sgd optimizer only"},
      {withBase({"--device", "cpu", "--cuda-graphs"}),
       "--cuda-graphs needs a CUDA device, not --device cpu"},
  };
  for (const Case& c : cases) {
    const ParsedArgs parsed = parseTrainArgs(c.args);
    EXPECT_FALSE(parsed.options.has_value()) << c.error;
    EXPECT_EQ(parsed.error, c.error);
  }
}

// Verifies --batch-norm: LibTorch's kernels by default, cuDNN's only for resnet50 in a build that
// has them, on a CUDA device in bf16 or fp16 with channels-last.
TEST(TrainOptions, BatchNormKernels) {
  EXPECT_EQ(parseTrainArgs(withBase({})).options->batchNorm, models::BatchNormKernels::kAten);
  EXPECT_EQ(parseTrainArgs(withBase({"--batch-norm", "aten"})).options->batchNorm,
            models::BatchNormKernels::kAten);
  EXPECT_EQ(parseTrainArgs(withBase({"--batch-norm", "fused"})).error,
            "flag --batch-norm: 'fused' is not one of aten, cudnn");
  EXPECT_EQ(parseTrainArgs({"--model", "deepcam", "--batch-size", "8", "--steps-per-epoch", "1",
                            "--batch-norm", "cudnn"})
                .error,
            "--batch-norm cudnn applies to resnet50 only");
  const ParsedArgs cudnn = parseTrainArgs(withBase(
      {"--batch-norm", "cudnn", "--device", "cuda", "--precision", "bf16", "--channels-last"}));
  if (models::cudnnBatchNormBuilt()) {
    ASSERT_TRUE(cudnn.options.has_value()) << cudnn.error;
    EXPECT_EQ(cudnn.options->batchNorm, models::BatchNormKernels::kCudnn);
    EXPECT_EQ(parseTrainArgs(withBase({"--batch-norm", "cudnn", "--device", "cuda"})).error,
              "--batch-norm cudnn needs a CUDA device, --precision bf16 or fp16 and "
              "--channels-last");
  } else {
    EXPECT_EQ(cudnn.error,
              "--batch-norm cudnn needs a build with cuDNN's headers and library, which this one "
              "lacks (see docs/workloads.md)");
  }
}

// Verifies that --help wins wherever it appears and that the usage names every flag and model.
TEST(TrainOptions, HelpListsTheFlags) {
  EXPECT_TRUE(parseTrainArgs({"--epochs", "2", "--help"}).help);
  EXPECT_TRUE(parseTrainArgs({"-h"}).help);
  const std::string usage = trainUsage();
  for (const char* flag : {"--model",
                           "--batch-size ",
                           "--batch-size-per-rank",
                           "--epochs",
                           "--steps-per-epoch",
                           "--warmup-epochs",
                           "--data",
                           "--sample-size",
                           "--precision",
                           "--channels-last",
                           "--cuda-graphs",
                           "--batch-norm",
                           "--loader-threads",
                           "--seed",
                           "--device",
                           "--eval",
                           "--optimizer",
                           "--lr",
                           "--momentum",
                           "--weight-decay",
                           "--zero-init-residual",
                           "--mllog",
                           "--threads",
                           "--procs-per-node",
                           "--profile",
                           "--help"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(usage.find("the benchmark: resnet50, cosmoflow or deepcam (required)"),
            std::string::npos)
      << usage;
}

// Verifies the global and per-rank batch sizes for several world sizes, and that a global batch
// that does not divide among the ranks is refused.
TEST(TrainOptions, ResolvesBatchSizesForAWorld) {
  TrainOptions global;
  global.batchSize = 12;
  TrainOptions perRank;
  perRank.batchSizePerRank = 5;
  EXPECT_EQ(resolveBatchSizes(global, 1).perRank, 12);
  EXPECT_EQ(resolveBatchSizes(global, 4).perRank, 3);
  EXPECT_EQ(resolveBatchSizes(global, 4).global, 12);
  EXPECT_EQ(resolveBatchSizes(perRank, 3).global, 15);
  EXPECT_EQ(resolveBatchSizes(perRank, 3).perRank, 5);
  try {
    resolveBatchSizes(global, 5);
    ADD_FAILURE() << "12 divided among 5 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--batch-size 12 does not divide among 5 ranks");
  }
  EXPECT_THROW(resolveBatchSizes(global, 0), std::invalid_argument);
}

// Verifies each model's reference optimizer and learning-rate scaling, and the overrides.
TEST(TrainOptions, ResolvesTheReferenceHyperparameters) {
  struct Case {
    ModelKind model;
    std::optional<OptimizerKind> optimizer;
    int64_t globalBatch;
    OptimizerKind wantOptimizer;
    double wantLr;
    double wantMomentum;
    double wantWeightDecay;
    double wantEps;
  };
  const std::vector<Case> cases = {
      {ModelKind::kResnet50, {}, 256, OptimizerKind::kSgd, 0.1, 0.9, 1e-4, 1e-8},
      {ModelKind::kResnet50, {}, 1024, OptimizerKind::kSgd, 0.4, 0.9, 1e-4, 1e-8},
      {ModelKind::kCosmoflow, {}, 64, OptimizerKind::kSgd, 0.001, 0.9, 0, 1e-8},
      {ModelKind::kCosmoflow, {}, 512, OptimizerKind::kSgd, 0.008, 0.9, 0, 1e-8},
      {ModelKind::kDeepcam, {}, 2048, OptimizerKind::kAdam, 1e-3, 0, 1e-6, 1e-6},
      {ModelKind::kDeepcam, OptimizerKind::kSgd, 8, OptimizerKind::kSgd, 1e-3, 0.9, 1e-6, 1e-6},
      {ModelKind::kResnet50, OptimizerKind::kAdamW, 256, OptimizerKind::kAdamW, 0.1, 0, 1e-4, 1e-8},
  };
  for (const Case& c : cases) {
    TrainOptions options;
    options.model = c.model;
    options.optimizer = c.optimizer;
    SCOPED_TRACE(models::descriptor(c.model).name);
    const Hyperparameters h = resolveHyperparameters(options, c.globalBatch);
    EXPECT_EQ(h.optimizer, c.wantOptimizer);
    EXPECT_DOUBLE_EQ(h.lr, c.wantLr);
    EXPECT_DOUBLE_EQ(h.momentum, c.wantMomentum);
    EXPECT_DOUBLE_EQ(h.weightDecay, c.wantWeightDecay);
    EXPECT_DOUBLE_EQ(h.eps, c.wantEps);
  }
  TrainOptions tuned;
  tuned.model = ModelKind::kResnet50;
  tuned.lr = 0.5;
  tuned.momentum = 0.8;
  tuned.weightDecay = 0;
  const Hyperparameters h = resolveHyperparameters(tuned, 256);
  EXPECT_EQ(h.lr, 0.5);
  EXPECT_EQ(h.momentum, 0.8);
  EXPECT_EQ(h.weightDecay, 0);
}

}  // namespace
}  // namespace hetbench::train
