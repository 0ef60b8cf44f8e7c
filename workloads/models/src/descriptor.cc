#include "hetbench/models/descriptor.h"

#include <stdexcept>

namespace hetbench::models {

const std::vector<ModelDescriptor>& allModels() {
  // The quality targets are MLPerf's: top-1 0.759 (Training), MAE 0.124 and IoU 0.82 (HPC).
  static const std::vector<ModelDescriptor> table = {
      {.kind = ModelKind::kResnet50,
       .name = "resnet50",
       .modelName = "resnet50-v1.5",
       .sampleSize = {224, 224},
       .data = DataFormat::kImageFolder,
       .metric = {.kind = MetricKind::kTop1Accuracy,
                  .lowerIsBetter = false,
                  .target = 0.759,
                  .eventField = "eval_accuracy",
                  .mllogKey = "eval_accuracy",
                  .label = "accuracy"},
       .optimizer = {.kind = OptimizerKind::kSgd,
                     .lr = 0.1,
                     .lrBatch = 256,
                     .momentum = 0.9,
                     .weightDecay = 1e-4},
       .bufferSync = BufferSync::kBroadcastEachStep,
       .zeroInitResidual = true},
      {.kind = ModelKind::kCosmoflow,
       .name = "cosmoflow",
       .modelName = "cosmoflow",
       .sampleSize = {128},
       .data = DataFormat::kCosmoflow,
       .metric = {.kind = MetricKind::kMeanAbsoluteError,
                  .lowerIsBetter = true,
                  .target = 0.124,
                  .eventField = "eval_mae",
                  .mllogKey = "eval_error",
                  .label = "MAE"},
       .optimizer = {.kind = OptimizerKind::kSgd, .lr = 0.001, .lrBatch = 64, .momentum = 0.9},
       .bufferSync = BufferSync::kNone,
       .zeroInitResidual = false},
      {.kind = ModelKind::kDeepcam,
       .name = "deepcam",
       .modelName = "deepcam-deeplabv3plus",
       .sampleSize = {768, 1152},
       .data = DataFormat::kDeepcam,
       // The IoU is reported as an accuracy, as the reference logs it.
       .metric = {.kind = MetricKind::kMeanIoU,
                  .lowerIsBetter = false,
                  .target = 0.82,
                  .eventField = "eval_accuracy",
                  .mllogKey = "eval_accuracy",
                  .label = "accuracy"},
       // The MLPerf HPC reference's defaults: Adam, betas 0.9 and 0.999.
       .optimizer = {.kind = OptimizerKind::kAdam, .lr = 1e-3, .weightDecay = 1e-6, .eps = 1e-6},
       .bufferSync = BufferSync::kAverageEachEpoch,
       .zeroInitResidual = false},
  };
  return table;
}

const ModelDescriptor& descriptor(ModelKind kind) {
  const auto index = static_cast<size_t>(kind);
  if (index >= allModels().size()) {
    throw std::invalid_argument("no descriptor for model kind " + std::to_string(index));
  }
  return allModels()[index];
}

std::optional<ModelKind> modelNamed(std::string_view name) {
  for (const ModelDescriptor& model : allModels()) {
    if (model.name == name) {
      return model.kind;
    }
  }
  return std::nullopt;
}

}  // namespace hetbench::models
