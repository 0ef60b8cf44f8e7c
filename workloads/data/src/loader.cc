#include "hetbench/data/loader.h"

#include <torch/cuda.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "hetbench/data/dataset.h"
#include "hetbench/data/sampler.h"

namespace hetbench::data {
namespace {

/// A batch being filled by the workers.
struct Pending {
  models::Batch batch;
  float* input = nullptr;
  char* target = nullptr;
  int64_t inputStride = 0;   // floats per sample
  int64_t targetStride = 0;  // bytes per sample
  int64_t remaining = 0;
  /// The failure of the lowest failing slot, so that the message does not depend on timing.
  int64_t errorSlot = -1;
  std::string error;
};

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

/// Workers take the epoch's samples in order, at most `prefetch` batches ahead of the consumer,
/// and decode each straight into its place in a batch; the consumer takes whole batches in
/// order. One mutex guards the state; workers wait on workReady_, the consumer on batchReady_.
class BatchLoader : public Loader {
 public:
  BatchLoader(std::unique_ptr<Dataset> dataset, const LoaderOptions& options)
      : dataset_(std::move(dataset)), options_(options) {
    shard_.datasetSize = dataset_->size();
    shard_.batchSize = options.batchSize;
    shard_.train = options.train;
    shard_.seed = options.seed;
    shard_.rank = options.rank;
    shard_.worldSize = options.worldSize;
    batches_ = shardBatches(shard_);
    if (batches_ == 0) {
      throw std::runtime_error(options.path.string() + ": " + std::to_string(shard_.datasetSize) +
                               " samples make no whole batch of " +
                               std::to_string(options.batchSize) + " on each of " +
                               std::to_string(options.worldSize) + " ranks");
    }
    const SampleLayout& layout = dataset_->layout();
    inputShape_ = layout.input;
    targetShape_ = layout.target;
    inputStride_ = product(layout.input);
    targetType_ = layout.int64Target ? torch::kInt64 : torch::kFloat32;
    targetStride_ = product(layout.target) * (layout.int64Target ? 8 : 4);
    workers_.reserve(static_cast<size_t>(options.threads));
    try {
      for (int i = 0; i < options.threads; ++i) workers_.emplace_back([this] { work(); });
    } catch (...) {
      stop();  // the threads that did start
      throw;
    }
  }

  ~BatchLoader() override { stop(); }

  int64_t batchesPerEpoch() const override { return batches_; }

  void startEpoch(int64_t epoch) override {
    std::vector<int64_t> order = shardOrder(shard_, epoch);
    {
      std::lock_guard lock(mutex_);
      // Workers still decoding for the old epoch keep their batch alive through its
      // shared_ptr and drop the result when they see the generation has moved on.
      ++generation_;
      epoch_ = epoch;
      order_ = std::move(order);
      nextSample_ = 0;
      consumed_ = 0;
      pending_.clear();
      started_ = true;
    }
    workReady_.notify_all();
  }

  std::optional<models::Batch> next() override {
    std::shared_ptr<Pending> done;
    {
      std::unique_lock lock(mutex_);
      if (!started_) throw std::logic_error("Loader::next before startEpoch");
      if (consumed_ == batches_) return std::nullopt;
      const int64_t wanted = consumed_;
      batchReady_.wait(lock, [&] {
        const auto it = pending_.find(wanted);
        return it != pending_.end() && it->second->remaining == 0;
      });
      done = std::move(pending_[wanted]);
      pending_.erase(wanted);
      ++consumed_;
    }
    workReady_.notify_all();
    if (done->errorSlot >= 0) throw std::runtime_error(done->error);
    return std::move(done->batch);
  }

 private:
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    workReady_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  bool hasWork() const {
    return started_ && nextSample_ < static_cast<int64_t>(order_.size()) &&
           nextSample_ / options_.batchSize < consumed_ + options_.prefetch;
  }

  /// The batch that sample position `position` belongs to, allocated by the first worker that
  /// reaches it. Called with the mutex held.
  std::shared_ptr<Pending> batchFor(int64_t position) {
    const int64_t index = position / options_.batchSize;
    std::shared_ptr<Pending>& slot = pending_[index];
    if (!slot) {
      const int64_t first = index * options_.batchSize;
      const int64_t size =
          std::min(options_.batchSize, static_cast<int64_t>(order_.size()) - first);
      auto pending = std::make_shared<Pending>();
      pending->remaining = size;
      pending->inputStride = inputStride_;
      pending->targetStride = targetStride_;
      try {
        std::vector<int64_t> inputShape{size};
        inputShape.insert(inputShape.end(), inputShape_.begin(), inputShape_.end());
        std::vector<int64_t> targetShape{size};
        targetShape.insert(targetShape.end(), targetShape_.begin(), targetShape_.end());
        const auto memory = torch::TensorOptions().pinned_memory(options_.pinMemory);
        pending->batch.input = torch::empty(inputShape, memory.dtype(torch::kFloat32));
        pending->batch.target = torch::empty(targetShape, memory.dtype(targetType_));
        pending->input = pending->batch.input.data_ptr<float>();
        pending->target = static_cast<char*>(pending->batch.target.data_ptr());
      } catch (const std::exception& e) {
        // The samples are then skipped, and next() reports this when the batch is due.
        pending->errorSlot = 0;
        pending->error = std::string("cannot allocate a batch: ") + e.what();
      }
      slot = std::move(pending);
    }
    return slot;
  }

  void work() {
    std::unique_lock lock(mutex_);
    while (true) {
      workReady_.wait(lock, [&] { return stopping_ || hasWork(); });
      if (stopping_) return;
      const int64_t position = nextSample_++;
      const std::shared_ptr<Pending> batch = batchFor(position);
      const uint64_t generation = generation_;
      const int64_t sample = order_[static_cast<size_t>(position)];
      const uint64_t seed = sampleSeed(options_.seed, epoch_, sample);
      const int64_t slot = position % options_.batchSize;
      lock.unlock();
      std::string error;
      try {
        if (batch->input != nullptr) {
          dataset_->read(sample, seed, batch->input + slot * batch->inputStride,
                         batch->target + slot * batch->targetStride);
        }
      } catch (const std::exception& e) {
        error = e.what();
      } catch (...) {
        error = "sample " + std::to_string(sample) + ": unknown error";
      }
      lock.lock();
      if (generation != generation_) continue;  // the epoch was restarted meanwhile
      if (!error.empty() && (batch->errorSlot < 0 || slot < batch->errorSlot)) {
        batch->errorSlot = slot;
        batch->error = std::move(error);
      }
      if (--batch->remaining == 0) batchReady_.notify_all();
    }
  }

  const std::unique_ptr<Dataset> dataset_;
  const LoaderOptions options_;
  ShardOptions shard_;
  int64_t batches_ = 0;
  std::vector<int64_t> inputShape_;
  std::vector<int64_t> targetShape_;
  int64_t inputStride_ = 0;
  int64_t targetStride_ = 0;
  torch::ScalarType targetType_ = torch::kInt64;

  std::mutex mutex_;
  std::condition_variable workReady_;
  std::condition_variable batchReady_;
  bool stopping_ = false;
  bool started_ = false;
  uint64_t generation_ = 0;
  int64_t epoch_ = 0;
  std::vector<int64_t> order_;
  int64_t nextSample_ = 0;
  int64_t consumed_ = 0;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
  std::vector<std::thread> workers_;  // last: started once everything above exists
};

void check(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("LoaderOptions: " + message);
}

}  // namespace

std::unique_ptr<Loader> openLoader(const LoaderOptions& options) {
  check(options.batchSize >= 1, "batchSize must be at least 1");
  check(options.threads >= 1, "threads must be at least 1");
  check(options.prefetch >= 1, "prefetch must be at least 1");
  check(options.worldSize >= 1 && options.rank >= 0 && options.rank < options.worldSize,
        "rank must be in [0, worldSize)");
  // Page-locked memory is allocated through CUDA; a LibTorch without it would fail at the
  // first batch, so say so now.
  check(!options.pinMemory || torch::cuda::is_available(),
        "pinMemory needs CUDA, and this LibTorch has no CUDA device");
  DatasetOptions dataset;
  dataset.model = options.model;
  dataset.path = options.path;
  dataset.train = options.train;
  dataset.sampleSize = options.sampleSize;
  return std::make_unique<BatchLoader>(openDataset(dataset), options);
}

}  // namespace hetbench::data
