#pragma once

#include <hetbench/models/batch_norm_kernels.h>
#include <hetbench/models/descriptor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::train {

enum class Precision { kFp32, kBf16, kFp16 };
enum class DeviceChoice { kAuto, kCpu, kCuda };
/// sgd, adam, adamw: declared with the models' descriptors, which name each reference's.
using models::OptimizerKind;

std::string_view toString(Precision precision);
std::string_view toString(OptimizerKind kind);

/// Everything `hetbench-train` is told on its command line; the hyperparameters left unset take
/// the model's defaults (`resolveHyperparameters`).
struct TrainOptions {
  /// --model, which the parser requires.
  models::ModelKind model = models::ModelKind::kResnet50;
  std::optional<int64_t> batchSize;         // global
  std::optional<int64_t> batchSizePerRank;  // exactly one of the two is set
  int64_t epochs = 2;
  int64_t stepsPerEpoch = 0;  // 0: a whole pass over the data
  int64_t warmupEpochs = 1;
  std::string data = "synthetic";  // or a dataset's root directory
  std::vector<int64_t> sampleSize;
  Precision precision = Precision::kFp32;
  bool channelsLast = false;
  bool cudaGraphs = false;
  models::BatchNormKernels batchNorm = models::BatchNormKernels::kAten;
  int64_t loaderThreads = 4;
  uint64_t seed = 0;
  DeviceChoice device = DeviceChoice::kAuto;
  bool eval = false;
  std::optional<OptimizerKind> optimizer;
  std::optional<double> lr;
  std::optional<double> momentum;
  std::optional<double> weightDecay;
  bool zeroInitResidual = false;
  bool mllog = false;
  int64_t threads = 0;  // intra-op CPU threads; 0: LibTorch's default
  /// Processes this program starts on its node, one per GPU (launcher.h); unset: auto.
  std::optional<int64_t> procsPerNode;
  /// --profile: where the last epoch's profile goes (profile.h); empty: no profiling.
  std::string profile;

  bool synthetic() const { return data == "synthetic"; }
};

/// What the command line asked for: options, `--help`, or an error (one line naming the flag).
struct ParsedArgs {
  std::optional<TrainOptions> options;
  bool help = false;
  std::string error;
};

/// Parses the arguments after the program name: `--flag value` or `--flag=value`, booleans bare
/// (or `=true` / `=false`). Checks each value and the flags' combinations (a model, exactly one
/// batch size, steps for synthetic data, a measured epoch after the warm-up ones, ...).
ParsedArgs parseTrainArgs(const std::vector<std::string>& args);

/// The `--help` text: every flag with its meaning and default.
std::string trainUsage();

struct BatchSizes {
  int64_t global = 0;
  int64_t perRank = 0;
};

/// The global and per-rank batch sizes in a world of `worldSize` ranks; throws
/// std::invalid_argument when the global batch does not divide by the world size.
BatchSizes resolveBatchSizes(const TrainOptions& options, int64_t worldSize);

/// The optimizer and its settings as a run uses them.
struct Hyperparameters {
  OptimizerKind optimizer = OptimizerKind::kSgd;
  double lr = 0;
  double momentum = 0;  // SGD only
  double weightDecay = 0;
  double beta1 = 0.9;  // Adam and AdamW only
  double beta2 = 0.999;
  double eps = 1e-8;
};

/// The reference's optimizer of the model (ModelDescriptor::optimizer) with the flags'
/// overrides: resnet50 SGD (lr 0.1 x global batch / 256, momentum 0.9, weight decay 1e-4),
/// cosmoflow SGD (lr 0.001 x global batch / 64, momentum 0.9, no weight decay), deepcam Adam (lr
/// 1e-3, betas 0.9 and 0.999, eps 1e-6, weight decay 1e-6 as L2, the MLPerf HPC reference's
/// defaults).
Hyperparameters resolveHyperparameters(const TrainOptions& options, int64_t globalBatchSize);

}  // namespace hetbench::train
