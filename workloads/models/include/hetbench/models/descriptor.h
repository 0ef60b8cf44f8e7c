#pragma once

// What differs between the benchmarks' models, as plain data without LibTorch: the data readers
// and the training program read one table (descriptor.cc) instead of comparing names, and
// `modelNamed` is the one place a name becomes a model. Building a network and its loss needs
// LibTorch and stays with the models (makeModel in model.h, a switch over ModelKind).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::models {

/// The MLPerf benchmarks whose models the workloads train.
enum class ModelKind { kResnet50, kCosmoflow, kDeepcam };

/// How an evaluation scores a batch's outputs against its targets (train::evalMetricSum).
enum class MetricKind {
  /// Top-1 accuracy: whether a sample's highest score is its label.
  kTop1Accuracy,
  /// A sample's mean absolute error over its targets.
  kMeanAbsoluteError,
  /// A sample's IoU averaged over the classes, a class in neither the prediction nor the truth
  /// counting as 1 (the MLPerf HPC reference's compute_score).
  kMeanIoU,
};

/// The evaluation metric, its MLPerf quality target and the names it is reported under.
struct EvalMetric {
  MetricKind kind = MetricKind::kTop1Accuracy;
  /// An error rather than a score: the target is reached at or below it.
  bool lowerIsBetter = false;
  /// The MLPerf quality target of the metric's mean over the validation samples.
  double target = 0;
  /// The epoch event's field (docs/metrics.md): eval_accuracy, eval_mae.
  std::string eventField;
  /// The MLLOG key of the evaluation result: eval_accuracy, eval_error (the HPC references').
  std::string mllogKey;
  /// The progress line's word for it: accuracy, MAE.
  std::string label;
};

/// A dataset's layout on disk and the reader of it (data::openDataset; docs/workloads.md).
enum class DataFormat {
  /// ImageNet as torchvision's ImageFolder: train/ and val/, a folder per class of JPEG files.
  kImageFolder,
  /// CosmoFlow universes in train/ and validation/: HDF5 files, or .npy pairs.
  kCosmoflow,
  /// DeepCAM climate images in train/ and validation/ (HDF5), normalised with stats.h5.
  kDeepcam,
};

enum class OptimizerKind { kSgd, kAdam, kAdamW };

/// The reference's optimizer and its settings, before the flags' overrides
/// (train::resolveHyperparameters).
struct ReferenceOptimizer {
  OptimizerKind kind = OptimizerKind::kSgd;
  /// The learning rate at a global batch of `lrBatch`, scaled linearly with the global batch;
  /// with `lrBatch` 0 the same at every batch size.
  double lr = 0;
  int64_t lrBatch = 0;
  double momentum = 0;  // SGD only
  double weightDecay = 0;
  double eps = 1e-8;  // Adam only
};

/// How the ranks keep BatchNorm's running statistics in step (docs/workloads.md, "BatchNorm
/// statistics, as the references keep them"; train::DataParallel does it).
enum class BufferSync {
  /// Each rank keeps its own (a model without BatchNorm).
  kNone,
  /// Every rank takes rank 0's buffers at every step, as DDP's broadcast_buffers=True does before
  /// each forward.
  kBroadcastEachStep,
  /// The floating-point buffers become their mean over the ranks at the end of each training
  /// epoch, as the DeepCAM reference's BatchNormStatsSynchronize does.
  kAverageEachEpoch,
};

/// Everything the workloads need to know about one benchmark's model besides its network.
struct ModelDescriptor {
  ModelKind kind = ModelKind::kResnet50;
  /// --model's name: run_start's benchmark and MLLOG's submission_benchmark.
  std::string name;
  /// run_start's model: the network and its version (resnet50-v1.5).
  std::string modelName;
  /// The benchmark's spatial sample size: {height, width} of an image or {side} of a cube. A
  /// reduced size (ModelOptions::sampleSize) has at most as many sides; one side of an image
  /// makes it square.
  std::vector<int64_t> sampleSize;
  DataFormat data = DataFormat::kImageFolder;
  EvalMetric metric;
  ReferenceOptimizer optimizer;
  /// The reference's handling of BatchNorm buffers in a multi-process run.
  BufferSync bufferSync = BufferSync::kNone;
  /// Whether --zero-init-residual applies: residual branches that end in a BatchNorm.
  bool zeroInitResidual = false;
};

/// Every model, in ModelKind's order: resnet50, cosmoflow, deepcam.
const std::vector<ModelDescriptor>& allModels();

/// The model's row of the table.
const ModelDescriptor& descriptor(ModelKind kind);

/// The model whose ModelDescriptor::name is `name`; nullopt for any other text. The one place a
/// model is looked up by name (hetbench-train's --model).
std::optional<ModelKind> modelNamed(std::string_view name);

}  // namespace hetbench::models
