#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hetbench/distributed/communicator.h"

namespace torch::autograd {
struct Node;
}

namespace hetbench::distributed {

struct GradientReducerOptions {
  /// A bucket is closed once it holds this many bytes of gradients (DDP's bucket_cap_mb, 25).
  TORCH_ARG(int64_t, bucketCapBytes) = 25 * 1024 * 1024;
  /// The first bucket's cap (DDP's default first bucket, 1 MiB): small, so that the first
  /// all-reduce starts early in backward.
  TORCH_ARG(int64_t, firstBucketCapBytes) = 1024 * 1024;
  /// DDP's find_unused_parameters: false makes finish() throw when a parameter got no gradient;
  /// true treats a missing gradient as zeros and leaves the .grad of a parameter that no rank
  /// used untouched, at the cost of one small all-reduce per step.
  TORCH_ARG(bool, findUnusedParameters) = false;
};

/// Averages the gradients of a module's parameters across the ranks after each backward, as
/// PyTorch's DistributedDataParallel does: the parameters are grouped into buckets in the
/// reverse order of their registration (roughly the order in which backward produces their
/// gradients), a hook after each parameter's gradient accumulation copies the gradient into its
/// bucket, and the bucket's all-reduce starts as soon as its last gradient is there, while
/// backward goes on. Buckets are launched in order on every rank, so that the collectives match.
///
/// Per step: forward, loss.backward(), finish(), optimizer step. zero_grad may set the
/// gradients to none or to zero. Build the reducer after the module has reached its device:
/// the buckets live there.
class GradientReducer {
 public:
  GradientReducer(Communicator& comm, torch::nn::Module& module,
                  const GradientReducerOptions& options = {});
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// Waits for every bucket's all-reduce and writes the average of the ranks' gradients into
  /// each parameter's .grad. Throws std::runtime_error naming the parameters that got no
  /// gradient in this backward, unless findUnusedParameters.
  void finish();

  /// The buckets as indices into module.parameters() (those that require a gradient), in
  /// launch order: for tests and logs.
  std::vector<std::vector<size_t>> buckets() const;

 private:
  struct Parameter {
    std::string name;
    torch::Tensor tensor;
    size_t bucket = 0;
    int64_t offset = 0;  // in the bucket's flat buffer
    std::shared_ptr<torch::autograd::Node> accumulator;
    uintptr_t hook = 0;
  };
  struct Bucket {
    std::vector<size_t> parameters;
    torch::Tensor buffer;
    size_t pending = 0;
    std::unique_ptr<PendingWork> work;
  };

  void gradientReady(size_t index);
  void launchReadyBuckets();
  void reset();

  Communicator& comm_;
  const GradientReducerOptions options_;
  std::vector<Parameter> parameters_;
  std::vector<Bucket> buckets_;

  std::mutex mutex_;  // hooks may run on autograd's device threads
  std::vector<bool> ready_;
  size_t nextBucket_ = 0;
};

}  // namespace hetbench::distributed
