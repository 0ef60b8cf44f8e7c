#include "hetbench/models/model.h"

#include <stdexcept>
#include <utility>

#include "hetbench/models/cosmoflow.h"
#include "hetbench/models/deepcam.h"
#include "hetbench/models/resnet.h"

namespace hetbench::models {
namespace {

std::string sizeText(const std::vector<int64_t>& size) {
  std::string text;
  for (const int64_t n : size) {
    text += (text.empty() ? "" : "x") + std::to_string(n);
  }
  return text.empty() ? "{}" : text;
}

/// {H, W} from the options: the benchmark's when empty, a square from one side.
std::vector<int64_t> planeSize(const ModelDescriptor& model, const std::vector<int64_t>& size,
                               int64_t multiple) {
  if (size.empty()) {
    return model.sampleSize;
  }
  std::vector<int64_t> plane = size.size() == 1 ? std::vector<int64_t>{size[0], size[0]} : size;
  if (plane.size() != 2 || plane[0] < multiple || plane[1] < multiple || plane[0] % multiple != 0 ||
      plane[1] % multiple != 0) {
    throw std::invalid_argument(model.name + " takes a sample size of one or two sides, " +
                                "each a positive multiple of " + std::to_string(multiple) +
                                ", not " + sizeText(size));
  }
  return plane;
}

/// The side of a cube from the options: the benchmark's when empty.
int64_t cubeSide(const ModelDescriptor& model, const std::vector<int64_t>& size, int64_t multiple) {
  if (size.empty()) {
    return model.sampleSize[0];
  }
  if (size.size() > 1 || size[0] < multiple || size[0] % multiple != 0) {
    throw std::invalid_argument(model.name +
                                " takes a sample size of one side, a positive multiple of " +
                                std::to_string(multiple) + ", not " + sizeText(size));
  }
  return size[0];
}

class ResNet50Model final : public Model {
 public:
  ResNet50Model(std::vector<int64_t> size, BatchNormKernels kernels)
      : size_(std::move(size)),
        net_(ResNet50Options().numClasses(kClasses).batchNormKernels(kernels)) {}

  ModelKind kind() const override { return ModelKind::kResnet50; }
  torch::nn::Module& module() override { return *net_; }
  torch::Tensor forward(const torch::Tensor& input) override { return net_(input); }
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) override {
    return resnetLoss(output, target);
  }
  std::vector<int64_t> sampleShape() const override { return {3, size_[0], size_[1]}; }
  Batch randomBatch(int64_t size) const override {
    return {torch::randn({size, 3, size_[0], size_[1]}),
            torch::randint(0, kClasses, {size}, torch::kLong)};
  }

 private:
  static constexpr int64_t kClasses = 1000;
  std::vector<int64_t> size_;
  ResNet50 net_;
};

class CosmoFlowModel final : public Model {
 public:
  explicit CosmoFlowModel(int64_t side) : side_(side), net_(CosmoFlowOptions().inputSize(side)) {}

  ModelKind kind() const override { return ModelKind::kCosmoflow; }
  torch::nn::Module& module() override { return *net_; }
  torch::Tensor forward(const torch::Tensor& input) override { return net_(input); }
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) override {
    return cosmoflowLoss(output, target);
  }
  std::vector<int64_t> sampleShape() const override {
    return {CosmoFlowImpl::kInputChannels, side_, side_, side_};
  }
  Batch randomBatch(int64_t size) const override {
    // Particle counts, log-transformed as the data pipeline does.
    const auto counts =
        torch::randint(0, 16, {size, CosmoFlowImpl::kInputChannels, side_, side_, side_});
    return {cosmoflowLogTransform(counts), torch::rand({size, CosmoFlowImpl::kOutputs}) * 2 - 1};
  }

 private:
  int64_t side_;
  CosmoFlow net_;
};

class DeepCamModel final : public Model {
 public:
  explicit DeepCamModel(std::vector<int64_t> size) : size_(std::move(size)) {}

  ModelKind kind() const override { return ModelKind::kDeepcam; }
  torch::nn::Module& module() override { return *net_; }
  torch::Tensor forward(const torch::Tensor& input) override { return net_(input); }
  torch::Tensor loss(const torch::Tensor& output, const torch::Tensor& target) override {
    if (weights_.device() != output.device() || weights_.dtype() != output.dtype()) {
      weights_ = weights_.to(output.device(), output.scalar_type());
    }
    return deepcamLoss(output, target, weights_);
  }
  std::vector<int64_t> sampleShape() const override {
    return {DeepCamOptions().inputChannels(), size_[0], size_[1]};
  }
  Batch randomBatch(int64_t size) const override {
    return {
        torch::randn({size, DeepCamOptions().inputChannels(), size_[0], size_[1]}),
        torch::randint(0, DeepCamOptions().numClasses(), {size, size_[0], size_[1]}, torch::kLong)};
  }

 private:
  std::vector<int64_t> size_;
  DeepCam net_;
  torch::Tensor weights_ = deepcamClassWeights();
};

}  // namespace

std::unique_ptr<Model> makeModel(ModelKind kind, const ModelOptions& options) {
  const ModelDescriptor& model = descriptor(kind);
  const auto& size = options.sampleSize();
  switch (kind) {
    case ModelKind::kResnet50:
      return std::make_unique<ResNet50Model>(planeSize(model, size, 1), options.batchNormKernels());
    case ModelKind::kCosmoflow:
      // Five poolings, each halving the side.
      return std::make_unique<CosmoFlowModel>(cubeSide(model, size, 32));
    case ModelKind::kDeepcam:
      return std::make_unique<DeepCamModel>(planeSize(model, size, DeepCamImpl::kOutputStride));
  }
  throw std::invalid_argument("unknown model kind");
}

int64_t parameterCount(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& p : module.parameters()) {
    count += p.numel();
  }
  return count;
}

torch::Tensor toChannelsLast(const torch::Tensor& tensor) {
  if (tensor.dim() == 4) {
    return tensor.contiguous(torch::MemoryFormat::ChannelsLast);
  }
  if (tensor.dim() == 5) {
    return tensor.contiguous(torch::MemoryFormat::ChannelsLast3d);
  }
  return tensor;
}

void toChannelsLast(torch::nn::Module& module) {
  torch::NoGradGuard noGrad;
  for (auto& tensor : module.parameters()) {
    tensor.set_data(toChannelsLast(tensor.data()));
  }
  for (auto& tensor : module.buffers()) {
    tensor.set_data(toChannelsLast(tensor.data()));
  }
}

}  // namespace hetbench::models
