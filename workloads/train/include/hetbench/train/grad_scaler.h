#pragma once

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace hetbench::train {

struct LossScaleOptions {
  double initialScale = 65536.0;  // 2^16, as torch.cuda.amp.GradScaler
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;  // finite steps in a row before the scale grows
};

/// Dynamic loss scaling's bookkeeping, without tensors: after a step whose gradients held inf or
/// NaN the scale backs off and the count of good steps restarts; after growthInterval good steps
/// in a row it grows.
class LossScale {
 public:
  explicit LossScale(const LossScaleOptions& options = {});

  double scale() const { return scale_; }
  int64_t goodSteps() const { return goodSteps_; }

  /// Records a step's outcome; returns whether the optimizer may step (the gradients were
  /// finite).
  bool update(bool foundNonFinite);

 private:
  LossScaleOptions options_;
  double scale_;
  int64_t goodSteps_ = 0;
};

/// fp16 training's gradient scaler, torch.cuda.amp.GradScaler's algorithm: the loss is
/// multiplied by the scale before backward so that small gradients survive fp16; the gradients
/// are divided by it again (one multi-tensor kernel), checked for inf and NaN, and the step is
/// skipped when any is found. The scale lives in a device tensor too, so that a captured CUDA
/// graph multiplies by its current value.
class GradScaler {
 public:
  GradScaler(const torch::Device& device, const LossScaleOptions& options = {});

  /// loss x scale, for backward.
  torch::Tensor scale(const torch::Tensor& loss) const;

  /// Divides the gradients by the scale in place; true when any of them holds inf or NaN
  /// (found through each gradient's norm, which overflows too only for finite gradients above
  /// about 1e19 after unscaling, where skipping the step is no loss). Synchronises with the
  /// device to read the answer, as PyTorch's GradScaler does.
  bool unscale(const std::vector<torch::Tensor>& gradients) const;

  /// Records the step's outcome and updates the scale; returns whether to step.
  bool update(bool foundNonFinite);

  double currentScale() const { return state_.scale(); }

 private:
  LossScale state_;
  torch::Tensor scaleTensor_;
};

}  // namespace hetbench::train
