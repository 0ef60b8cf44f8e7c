#include "hetbench/train/trainer.h"

#include <ATen/autocast_mode.h>
#include <hetbench/data/loader.h>
#include <torch/cuda.h>
#include <torch/utils.h>
#include <torch/version.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "cuda_support.h"

namespace hetbench::train {
namespace {

/// Forward passes run here before a CUDA graph captures one.
constexpr int kGraphWarmupRuns = 3;

// LibTorch 2.4 added autocast functions that take the device type and deprecated the ones per
// device; the header checked here (2.6) has both, 1.13 only the old ones.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
bool autocastEnabled(c10::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
void setAutocastEnabled(c10::DeviceType type, bool enabled) {
  at::autocast::set_autocast_enabled(type, enabled);
}
at::ScalarType autocastType(c10::DeviceType type) { return at::autocast::get_autocast_dtype(type); }
void setAutocastType(c10::DeviceType type, at::ScalarType dtype) {
  at::autocast::set_autocast_dtype(type, dtype);
}
#else
bool autocastEnabled(c10::DeviceType type) {
  return type == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                       : at::autocast::is_cpu_enabled();
}
void setAutocastEnabled(c10::DeviceType type, bool enabled) {
  if (type == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
}
at::ScalarType autocastType(c10::DeviceType type) {
  return type == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                       : at::autocast::get_autocast_cpu_dtype();
}
void setAutocastType(c10::DeviceType type, at::ScalarType dtype) {
  if (type == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
}
#endif

/// Autocast for one forward pass, as `torch.autocast(device_type, dtype)` in Python: bf16 or
/// fp16 on CUDA, bf16 on the CPU (the only type LibTorch 1.13 autocasts to there). On leaving
/// it restores the previous state and empties the cache of cast weights, which would otherwise
/// hold stale copies after the optimizer updates the weights in place.
class AutocastGuard {
 public:
  AutocastGuard(const torch::Device& device, Precision precision, bool cacheEnabled)
      : active_(precision != Precision::kFp32),
        type_(device.is_cuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU) {
    if (!active_) {
      return;
    }
    wasEnabled_ = autocastEnabled(type_);
    previousType_ = autocastType(type_);
    setAutocastEnabled(type_, true);
    setAutocastType(type_, precision == Precision::kBf16 ? at::kBFloat16 : at::kHalf);
    cacheWasEnabled_ = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(cacheEnabled);
    at::autocast::increment_nesting();
  }

  ~AutocastGuard() {
    if (!active_) {
      return;
    }
    if (at::autocast::decrement_nesting() == 0) {
      at::autocast::clear_cache();
    }
    at::autocast::set_autocast_cache_enabled(cacheWasEnabled_);
    setAutocastEnabled(type_, wasEnabled_);
    setAutocastType(type_, previousType_);
  }

  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool active_;
  c10::DeviceType type_;
  bool wasEnabled_ = false;
  bool cacheWasEnabled_ = true;
  at::ScalarType previousType_ = at::kFloat;
};

/// Each sample's IoU averaged over the classes, a class absent from both prediction and truth
/// counting as 1 (the DeepCAM reference's compute_score), summed over the batch.
torch::Tensor meanIouSum(const torch::Tensor& output, const torch::Tensor& target) {
  const int64_t classes = output.size(1);
  const torch::Tensor prediction = output.argmax(1).flatten(1);
  const torch::Tensor truth = target.flatten(1);
  torch::Tensor iou = torch::zeros({prediction.size(0)}, output.options().dtype(torch::kDouble));
  for (int64_t c = 0; c < classes; ++c) {
    const torch::Tensor predicted = prediction.eq(c);
    const torch::Tensor actual = truth.eq(c);
    const torch::Tensor hits = predicted.logical_and(actual).sum(1).to(torch::kDouble);
    const torch::Tensor either = predicted.logical_or(actual).sum(1).to(torch::kDouble);
    iou += torch::where(either > 0, hits / either.clamp_min(1), torch::ones_like(hits));
  }
  return (iou / static_cast<double>(classes)).sum();
}

}  // namespace

torch::Tensor evalMetricSum(models::MetricKind metric, const torch::Tensor& output,
                            const torch::Tensor& target) {
  switch (metric) {
    case models::MetricKind::kTop1Accuracy:
      return output.argmax(1).eq(target).sum().to(torch::kDouble);
    case models::MetricKind::kMeanAbsoluteError:
      return (output.to(torch::kFloat) - target).abs().mean(1).sum().to(torch::kDouble);
    case models::MetricKind::kMeanIoU:
      return meanIouSum(output, target);
  }
  throw std::invalid_argument("unknown evaluation metric");
}

TrainingData TrainingData::fixedBatch(models::Batch batch, int64_t steps) {
  if (steps < 1) {
    throw std::invalid_argument("a fixed batch needs at least one step per epoch");
  }
  TrainingData data;
  data.batch_ = std::move(batch);
  data.steps_ = steps;
  return data;
}

TrainingData TrainingData::fromLoader(data::Loader& loader, int64_t steps) {
  TrainingData data;
  data.loader_ = &loader;
  data.steps_ = steps;
  return data;
}

Trainer::Trainer(models::Model& model, TrainerConfig config, Collective& collective)
    : model_(model), config_(std::move(config)), collective_(collective) {
  const bool cuda = config_.device.is_cuda();
  if (config_.precision == Precision::kFp16 && !cuda) {
    throw std::invalid_argument(
        "fp16 needs a CUDA device: on the CPU LibTorch 1.13 autocasts to bf16 only");
  }
  if (config_.cudaGraphs && !cuda) {
    throw std::invalid_argument("CUDA graphs need a CUDA device, and this run is on the CPU");
  }
  torch::nn::Module& module = model_.module();
  module.to(config_.device);
  if (config_.channelsLast) {
    models::toChannelsLast(module);
  }
  module.train();
  collective_.broadcastParameters(module);
  optimizer_ = makeOptimizer(module.parameters(), config_.hyper);
  if (config_.precision == Precision::kFp16) {
    scaler_ = std::make_unique<GradScaler>(config_.device);
  }
}

Trainer::~Trainer() = default;

void Trainer::synchronize() const {
  if (config_.device.is_cuda()) {
    torch::cuda::synchronize(config_.device.index());
  }
}

models::Batch Trainer::toDevice(const models::Batch& batch) const {
  const bool async = config_.device.is_cuda() && batch.input.is_pinned();
  const auto options = torch::TensorOptions().device(config_.device);
  torch::Tensor input = batch.input.to(options, async);
  if (config_.channelsLast) {
    input = models::toChannelsLast(input);
  }
  return {input, batch.target.to(options, async)};
}

void Trainer::forwardBackward(const models::Batch& batch) {
  torch::Tensor loss;
  {
    // A graph captures the casts themselves, so the cache of cast weights stays off then.
    const AutocastGuard autocast(config_.device, config_.precision, !config_.cudaGraphs);
    loss = model_.loss(model_.forward(batch.input), batch.target);
  }
  lastLoss_ = loss.detach();
  (scaler_ ? scaler_->scale(loss) : loss).backward();
}

void Trainer::finishStep() {
  std::vector<torch::Tensor> gradients = optimizer_->gradients();
  collective_.averageGradients(gradients);
  // Averaging may give a parameter that had none its first gradient: then the list grows.
  if (gradients.size() < optimizer_->parameters().size()) {
    gradients = optimizer_->gradients();
  }
  if (scaler_) {
    const bool nonFinite = scaler_->unscale(gradients);
    if (scaler_->update(nonFinite)) {
      optimizer_->step();
    }
  } else {
    optimizer_->step();
  }
}

torch::Tensor Trainer::step(const models::Batch& batch) {
  if (!config_.cudaGraphs) {
    optimizer_->clearGradients();
    forwardBackward(batch);
  } else {
    if (!graph_) {
      graphBatch_ = batch;
      graph_ = std::make_unique<cuda::StepGraph>([this] { forwardBackward(graphBatch_); },
                                                 kGraphWarmupRuns,
                                                 [this] { optimizer_->clearGradients(); });
    } else if (!batch.input.is_same(graphBatch_.input)) {
      graphBatch_.input.copy_(batch.input, /*non_blocking=*/true);
      graphBatch_.target.copy_(batch.target, /*non_blocking=*/true);
    }
    graph_->replay();
  }
  finishStep();
  return lastLoss_;
}

EpochFigures Trainer::trainEpoch(int64_t epoch, TrainingData& data, bool warmup) {
  model_.module().train();
  EpochTimer timer(config_.clock, [this] { synchronize(); });
  EpochFigures figures;
  figures.epoch = epoch;
  figures.warmup = warmup;
  torch::Tensor lossSum =
      torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(config_.device));

  timer.startEpoch();
  const bool metered = static_cast<bool>(config_.energyJoules);
  const double energyAtStart = metered ? config_.energyJoules() : 0.0;
  if (config_.deviceHealth) config_.deviceHealth();  // the time before the epoch is not its own
  if (data.loader_ != nullptr) {
    timer.startIo();
    data.loader_->startEpoch(epoch);
    timer.stopIo();
  }
  while (data.steps_ == 0 || figures.steps < data.steps_) {
    models::Batch batch;
    if (data.batch_) {
      batch = *data.batch_;
    } else {
      timer.startIo();
      std::optional<models::Batch> next = data.loader_->next();
      if (next) {
        batch = toDevice(*next);
        // With a graph, the batch is copied into its input now, as part of the I/O.
        if (graph_) {
          graphBatch_.input.copy_(batch.input, /*non_blocking=*/true);
          graphBatch_.target.copy_(batch.target, /*non_blocking=*/true);
          batch = graphBatch_;
        }
      }
      timer.stopIo();
      if (!next) {
        break;
      }
    }
    lossSum += step(batch);
    figures.samples += batch.input.size(0);
    ++figures.steps;
  }
  const EpochTimes times = timer.stopEpoch();
  if (metered) {
    figures.energyJoules = config_.energyJoules() - energyAtStart;
  }
  if (config_.deviceHealth) figures.devices = config_.deviceHealth();
  if (figures.steps == 0) {
    throw std::runtime_error("epoch " + std::to_string(epoch) +
                             " got no batch: the data is smaller than one batch");
  }
  figures.wallSeconds = times.wallSeconds;
  figures.ioSeconds = times.ioSeconds;
  figures.computeSeconds = times.computeSeconds;
  figures.lossSum = lossSum.item<double>();
  collective_.trainingEpochEnded(model_.module());
  return figures;
}

EvalTotals Trainer::evaluate(TrainingData& data) {
  torch::nn::Module& module = model_.module();
  module.eval();
  const torch::NoGradGuard noGrad;
  EpochTimer timer(config_.clock, [this] { synchronize(); });
  const auto sumOptions = torch::TensorOptions().dtype(torch::kDouble).device(config_.device);
  torch::Tensor lossSum = torch::zeros({}, sumOptions);
  torch::Tensor metric = torch::zeros({}, sumOptions);
  EvalTotals totals;

  timer.startEpoch();
  if (data.loader_ != nullptr) {
    data.loader_->startEpoch(0);
  }
  for (int64_t steps = 0; data.steps_ == 0 || steps < data.steps_; ++steps) {
    models::Batch batch;
    if (data.batch_) {
      batch = *data.batch_;
    } else {
      std::optional<models::Batch> next = data.loader_->next();
      if (!next) {
        break;
      }
      batch = toDevice(*next);
    }
    torch::Tensor output;
    torch::Tensor loss;
    {
      const AutocastGuard autocast(config_.device, config_.precision, true);
      output = model_.forward(batch.input);
      loss = model_.loss(output, batch.target);
    }
    const int64_t samples = batch.input.size(0);
    lossSum += loss.to(torch::kDouble) * static_cast<double>(samples);
    metric += evalMetricSum(models::descriptor(model_.kind()).metric.kind, output, batch.target);
    totals.samples += samples;
  }
  totals.seconds = timer.stopEpoch().wallSeconds;
  totals.lossSum = lossSum.item<double>();
  totals.metricSum = metric.item<double>();
  module.train();
  return totals;
}

}  // namespace hetbench::train
