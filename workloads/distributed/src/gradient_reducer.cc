#include "hetbench/distributed/gradient_reducer.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/utils.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

namespace hetbench::distributed {
namespace {

/// Runs after a parameter's AccumulateGrad node, when .grad holds this backward's gradient
/// (a hook on the tensor itself would run before the accumulation).
class AccumulatedHook final : public torch::autograd::FunctionPostHook {
 public:
  explicit AccumulatedHook(std::function<void()> ready) : ready_(std::move(ready)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    ready_();
    return outputs;
  }

 private:
  std::function<void()> ready_;
};

std::string joinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

GradientReducer::GradientReducer(Communicator& comm, torch::nn::Module& module,
                                 const GradientReducerOptions& options)
    : comm_(comm), options_(options) {
  if (options.bucketCapBytes() <= 0 || options.firstBucketCapBytes() <= 0) {
    throw std::invalid_argument("bucket caps must be positive");
  }
  for (const auto& item : module.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    Parameter parameter;
    parameter.name = item.key();
    parameter.tensor = item.value();
    parameters_.push_back(std::move(parameter));
  }

  // DDP's assignment: walk the parameters from the last registered, one open bucket per data
  // type and device; close a bucket once it reaches its cap (the first one of each kind has the
  // smaller cap).
  struct Open {
    std::vector<size_t> parameters;
    int64_t bytes = 0;
    bool first = true;
  };
  std::map<std::string, Open> open;
  std::vector<std::vector<size_t>> assigned;
  for (size_t i = parameters_.size(); i-- > 0;) {
    const auto& tensor = parameters_[i].tensor;
    auto& bucket =
        open[std::string(c10::toString(tensor.scalar_type())) + "@" + tensor.device().str()];
    bucket.parameters.push_back(i);
    bucket.bytes += tensor.numel() * static_cast<int64_t>(tensor.element_size());
    if (bucket.bytes >= (bucket.first ? options.firstBucketCapBytes() : options.bucketCapBytes())) {
      assigned.push_back(std::move(bucket.parameters));
      bucket = Open{{}, 0, false};
    }
  }
  std::vector<std::vector<size_t>> leftover;
  for (auto& [key, bucket] : open) {
    if (!bucket.parameters.empty()) leftover.push_back(std::move(bucket.parameters));
  }
  std::sort(leftover.begin(), leftover.end(),
            [](const auto& a, const auto& b) { return a.front() > b.front(); });
  assigned.insert(assigned.end(), leftover.begin(), leftover.end());

  for (auto& indices : assigned) {
    Bucket bucket;
    int64_t numel = 0;
    for (size_t i : indices) {
      parameters_[i].bucket = buckets_.size();
      parameters_[i].offset = numel;
      numel += parameters_[i].tensor.numel();
    }
    // One process has nothing to average: no buffers, no hooks, and finish() does nothing.
    if (comm_.size() > 1) {
      const auto& first = parameters_[indices.front()].tensor;
      bucket.buffer = torch::zeros({numel}, first.options().requires_grad(false));
    }
    bucket.parameters = std::move(indices);
    bucket.pending = bucket.parameters.size();
    buckets_.push_back(std::move(bucket));
  }
  ready_.assign(parameters_.size(), false);

  if (comm_.size() == 1) return;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    auto& parameter = parameters_[i];
    // The variable keeps only a weak reference to its accumulator: hold it, or the hook would go
    // with it.
    parameter.accumulator = torch::autograd::impl::grad_accumulator(parameter.tensor);
    parameter.hook = parameter.accumulator->add_post_hook(
        std::make_unique<AccumulatedHook>([this, i] { gradientReady(i); }));
  }
}

GradientReducer::~GradientReducer() {
  for (auto& parameter : parameters_) {
    if (parameter.accumulator) parameter.accumulator->del_post_hook(parameter.hook);
  }
}

std::vector<std::vector<size_t>> GradientReducer::buckets() const {
  std::vector<std::vector<size_t>> result;
  for (const auto& bucket : buckets_) result.push_back(bucket.parameters);
  return result;
}

void GradientReducer::gradientReady(size_t index) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& parameter = parameters_[index];
  if (ready_[index]) {
    throw std::logic_error("the gradient of " + parameter.name +
                           " arrived twice in one step: call finish() after each backward");
  }
  ready_[index] = true;
  torch::NoGradGuard noGrad;
  auto& bucket = buckets_[parameter.bucket];
  auto slot = bucket.buffer.narrow(0, parameter.offset, parameter.tensor.numel());
  const auto& grad = parameter.tensor.grad();
  if (grad.defined()) {
    slot.view(grad.sizes()).copy_(grad);
  } else {
    slot.zero_();
  }
  if (--bucket.pending == 0) launchReadyBuckets();
}

void GradientReducer::launchReadyBuckets() {
  while (nextBucket_ < buckets_.size() && buckets_[nextBucket_].pending == 0) {
    auto& bucket = buckets_[nextBucket_++];
    bucket.work = comm_.allReduceAsync(bucket.buffer, ReduceOp::kSum);
  }
}

void GradientReducer::reset() {
  std::fill(ready_.begin(), ready_.end(), false);
  for (auto& bucket : buckets_) {
    bucket.pending = bucket.parameters.size();
    bucket.work.reset();
  }
  nextBucket_ = 0;
}

void GradientReducer::finish() {
  if (comm_.size() == 1) return;
  std::lock_guard<std::mutex> lock(mutex_);
  torch::NoGradGuard noGrad;

  std::vector<std::string> missing;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!ready_[i]) missing.push_back(parameters_[i].name);
  }
  if (!missing.empty() && !options_.findUnusedParameters()) {
    for (auto& bucket : buckets_) {
      if (bucket.work) bucket.work->wait();
    }
    reset();
    throw std::runtime_error(
        "no gradient in this backward for " + joinNames(missing) +
        ": every parameter must contribute to the loss on every rank, or the reducer needs "
        "findUnusedParameters (as DDP's find_unused_parameters)");
  }

  // Every rank ends up here with all buckets launched, in the same order, then (with
  // findUnusedParameters) the flags of who used what.
  torch::Tensor used;
  std::unique_ptr<PendingWork> usedWork;
  if (options_.findUnusedParameters()) {
    used = torch::zeros({static_cast<int64_t>(parameters_.size())}, torch::kFloat32);
    for (size_t i = 0; i < parameters_.size(); ++i) {
      if (ready_[i]) {
        used[static_cast<int64_t>(i)] = 1.0F;
        continue;
      }
      auto& parameter = parameters_[i];
      auto& bucket = buckets_[parameter.bucket];
      bucket.buffer.narrow(0, parameter.offset, parameter.tensor.numel()).zero_();
      --bucket.pending;
    }
    launchReadyBuckets();
    used = used.to(comm_.device());
    usedWork = comm_.allReduceAsync(used, ReduceOp::kMax);
  }

  for (auto& bucket : buckets_) bucket.work->wait();
  if (usedWork) {
    usedWork->wait();
    used = used.cpu();
  }
  for (auto& bucket : buckets_) bucket.buffer.div_(comm_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (used.defined() && used.data_ptr<float>()[i] == 0.0F) continue;
    auto& parameter = parameters_[i];
    const auto average = buckets_[parameter.bucket]
                             .buffer.narrow(0, parameter.offset, parameter.tensor.numel())
                             .view(parameter.tensor.sizes());
    auto& grad = parameter.tensor.mutable_grad();
    if (grad.defined()) {
      grad.copy_(average);
    } else {
      grad = average.clone();
    }
  }
  reset();
}

}  // namespace hetbench::distributed
