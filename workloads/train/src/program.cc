#include "hetbench/train/program.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <hetbench/data/loader.h>
#include <hetbench/models/resnet.h>
#include <malloc.h>
#include <torch/cuda.h>
#include <torch/nn/init.h>
#include <torch/utils.h>

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cuda_support.h"
#include "hetbench/train/profile.h"
#include "hetbench/train/report.h"
#include "hetbench/train/trainer.h"

namespace hetbench::train {
namespace {

/// Starts each ResNet block's residual branch at zero: the scale of its last BN.
void zeroInitResidual(torch::nn::Module& module) {
  const torch::NoGradGuard noGrad;
  for (const auto& child : module.modules(/*include_self=*/false)) {
    if (auto* block = child->as<models::Bottleneck>()) {
      torch::nn::init::zeros_(block->lastBatchNorm()->weight);
    }
  }
}

std::string seconds(double value) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << value << " s";
  return text.str();
}

/// The epoch's progress line for stderr.
std::string progressLine(const TrainOptions& options, const EpochFigures& mine,
                         const EpochFigures& all) {
  std::ostringstream line;
  line << "hetbench-train: epoch " << mine.epoch + 1 << "/" << options.epochs
       << (mine.warmup ? " (warm-up)" : "") << (mine.profiled ? " (profiled)" : "") << ": "
       << mine.steps << " steps, " << all.samples << " samples in " << seconds(all.wallSeconds)
       << " (I/O " << seconds(all.ioSeconds) << "), " << std::fixed << std::setprecision(1)
       << static_cast<double>(all.samples) / all.wallSeconds << " samples/s, loss "
       << std::setprecision(4) << mine.lossSum / static_cast<double>(mine.steps);
  if (all.eval && all.eval->samples > 0) {
    const auto samples = static_cast<double>(all.eval->samples);
    line << "; eval loss " << all.eval->lossSum / samples << ", "
         << models::descriptor(options.model).metric.label << " " << all.eval->metricSum / samples;
  }
  return line.str();
}

/// The training and evaluation data of one rank, and the loaders behind them.
struct RunData {
  std::unique_ptr<data::Loader> trainLoader;
  std::unique_ptr<data::Loader> evalLoader;
  std::optional<TrainingData> train;
  std::optional<TrainingData> eval;
};

RunData openData(const TrainOptions& options, const ProgramDeps& deps, const models::Model& model,
                 const Trainer& trainer, const BatchSizes& batch, const Collective& collective,
                 const torch::Device& device) {
  RunData run;
  if (options.synthetic()) {
    // One batch per rank, made once and kept on the device; another one to evaluate on.
    torch::manual_seed(options.seed + 1 + static_cast<uint64_t>(collective.rank()));
    run.train = TrainingData::fixedBatch(trainer.toDevice(model.randomBatch(batch.perRank)),
                                         options.stepsPerEpoch);
    if (options.eval) {
      run.eval = TrainingData::fixedBatch(trainer.toDevice(model.randomBatch(batch.perRank)), 1);
    }
    return run;
  }
  if (!deps.openLoader) {
    throw std::invalid_argument("--data " + options.data +
                                ": this hetbench-train reads no datasets, only --data synthetic");
  }
  data::LoaderOptions loader;
  loader.model = options.model;
  loader.path = options.data;
  loader.sampleSize = options.sampleSize;
  loader.batchSize = batch.perRank;
  loader.threads = static_cast<int>(options.loaderThreads);
  loader.rank = collective.rank();
  loader.worldSize = collective.worldSize();
  loader.seed = options.seed;
  loader.pinMemory = device.is_cuda();
  run.trainLoader = deps.openLoader(loader);
  run.train = TrainingData::fromLoader(*run.trainLoader, options.stepsPerEpoch);
  if (options.eval) {
    loader.train = false;
    run.evalLoader = deps.openLoader(loader);
    run.eval = TrainingData::fromLoader(*run.evalLoader, 0);
  }
  return run;
}

/// Everything between run_start and run_end; returns whether the target quality was reached.
bool trainAndReport(const TrainOptions& options, const ProgramDeps& deps, Collective& collective,
                    const BatchSizes& batch, Reporter& reporter, std::ostream& err) {
  if (options.threads > 0) {
    torch::set_num_threads(static_cast<int>(options.threads));
  }
  const torch::Device device = chooseDevice(options.device, deps.localRank);
  if (device.is_cuda()) {
    at::globalContext().setBenchmarkCuDNN(true);  // autotuned convolutions
    torch::cuda::manual_seed_all(options.seed);
  }
  torch::manual_seed(options.seed);
  const std::unique_ptr<models::Model> model = models::makeModel(
      options.model,
      models::ModelOptions().sampleSize(options.sampleSize).batchNormKernels(options.batchNorm));
  if (options.zeroInitResidual) {
    zeroInitResidual(model->module());
  }
  TrainerConfig config;
  config.device = device;
  config.precision = options.precision;
  config.channelsLast = options.channelsLast;
  config.cudaGraphs = options.cudaGraphs;
  config.hyper = resolveHyperparameters(options, batch.global);
  config.energyJoules = deps.energyJoules;
  config.deviceHealth = deps.deviceHealth;
  Trainer trainer(*model, config, collective);
  RunData data = openData(options, deps, *model, trainer, batch, collective, device);

  RunDescription run;
  run.benchmark = options.model;
  run.worldSize = collective.worldSize();
  run.rank = collective.rank();
  run.globalBatchSize = batch.global;
  run.precision = toString(options.precision);
  run.device = device.is_cuda() ? "cuda" : "cpu";
  run.acceleratorName = device.is_cuda() ? cuda::deviceName(device.index()) : thisCpuModelName();
  run.acceleratorCount = device.is_cuda() ? 1 : 0;
  run.sampleShape = model->sampleShape();
  run.data = options.data;
  run.stepsPerEpoch = options.stepsPerEpoch;
  run.optimizer = toString(config.hyper.optimizer);
  run.lr = config.hyper.lr;
  run.channelsLast = options.channelsLast;
  run.cudaGraphs = options.cudaGraphs;
  run.batchNorm = options.batchNorm;
  run.seed = options.seed;
  err << "hetbench-train: " << models::descriptor(options.model).name << " on " << run.device
      << " (" << run.acceleratorName << "), " << run.precision << ", global batch " << batch.global
      << " (" << batch.perRank << " x " << run.worldSize << " ranks), " << run.optimizer << " lr "
      << run.lr << ", " << options.epochs << " epochs" << std::endl;
  std::optional<EpochProfiler> profiler;
  if (!options.profile.empty()) {
    profiler.emplace(profilePathOfRank(options.profile, run.rank, run.worldSize), device.is_cuda());
  }
  reporter.runStart(run);

  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    const bool warmup = epoch < options.warmupEpochs;
    const bool profiled = profiler && epoch + 1 == options.epochs;
    reporter.epochStart(epoch);
    if (profiled) {
      profiler->start();
    }
    EpochFigures mine = trainer.trainEpoch(epoch, *data.train, warmup);
    if (profiled) {
      mine.profiled = true;
      profiler->stopAndWrite({epoch,
                              run.rank,
                              mine.steps,
                              mine.wallSeconds,
                              device.is_cuda() ? device.str() : "cpu",
                              {}});
    }
    reporter.epochStop(epoch);
    if (options.eval) {
      reporter.evalStart(epoch);
      mine.eval = trainer.evaluate(*data.eval);
      reporter.evalStop(epoch);
    }
    const EpochFigures all = combineRanks(collective.gatherFigures(mine));
    reporter.epoch(mine, all);
    err << progressLine(options, mine, all) << std::endl;
    // As MLPerf does, training stops at the quality target, once an epoch is measured.
    if (!warmup && all.eval && reachesTarget(options.model, *all.eval)) {
      err << "hetbench-train: the quality target is reached" << std::endl;
      return true;
    }
  }
  return false;
}

}  // namespace

c10::Device chooseDevice(DeviceChoice choice, int localRank) {
  if (choice == DeviceChoice::kCpu) {
    return torch::kCPU;
  }
  if (choice == DeviceChoice::kCuda && !cuda::built()) {
    throw std::invalid_argument(
        "--device cuda: this hetbench-train is built on a LibTorch without CUDA");
  }
  const int64_t visible = cuda::built() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  if (choice == DeviceChoice::kCuda && visible == 0) {
    throw std::invalid_argument("--device cuda: no CUDA device is visible");
  }
  if (visible == 0) {
    return torch::kCPU;
  }
  if (localRank >= visible) {
    throw std::invalid_argument("local rank " + std::to_string(localRank) + " needs GPU " +
                                std::to_string(localRank) + ", and " + std::to_string(visible) +
                                " are visible: one process per GPU");
  }
  return {torch::kCUDA, static_cast<c10::DeviceIndex>(localRank)};
}

int localProcesses(const TrainOptions& options) {
  if (options.procsPerNode) {
    return static_cast<int>(*options.procsPerNode);
  }
  if (options.device == DeviceChoice::kCpu || !cuda::built()) {
    return 1;
  }
  return std::max(1, static_cast<int>(torch::cuda::device_count()));
}

void keepFreedMemory() {
#ifdef __GLIBC__
  constexpr int kOneGiB = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kOneGiB);
  mallopt(M_TRIM_THRESHOLD, kOneGiB);
#endif
}

int runTraining(const TrainOptions& options, const ProgramDeps& deps, std::ostream& out,
                std::ostream& err) {
  SingleProcess single;
  Collective& collective = deps.collective != nullptr ? *deps.collective : single;
  BatchSizes batch;
  try {
    batch = resolveBatchSizes(options, collective.worldSize());
  } catch (const std::invalid_argument& e) {
    err << "hetbench-train: " << e.what() << std::endl;
    return 2;
  }
  Reporter reporter(out, collective.rank(), options.mllog, systemWallClock());
  std::string failure;
  try {
    reporter.runEnd(trainAndReport(options, deps, collective, batch, reporter, err));
    return 0;
  } catch (const c10::Error& e) {
    failure = e.what_without_backtrace();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  reporter.runFailed(failure);
  err << "hetbench-train: " << failure << std::endl;
  return 1;
}

}  // namespace hetbench::train
