#pragma once

#include <hetbench/models/model.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace hetbench::data {

/// What one rank reads of a dataset, and how.
struct LoaderOptions {
  /// Whose dataset: its descriptor picks the format and the sample transforms.
  models::ModelKind model = models::ModelKind::kResnet50;
  /// The dataset's root directory (each model's layout is in docs/workloads.md).
  std::filesystem::path path;
  /// The training split (shuffled, augmented) or the validation split (fixed order).
  bool train = true;
  /// As models::ModelOptions::sampleSize: empty for the benchmark's size.
  std::vector<int64_t> sampleSize;
  /// Samples per batch on this rank.
  int64_t batchSize = 1;
  /// Threads that read and decode samples.
  int threads = 4;
  /// Batches prepared ahead of the consumer.
  int prefetch = 2;
  /// This rank's shard of each epoch's order of the samples.
  int64_t rank = 0;
  int64_t worldSize = 1;
  /// Seeds each epoch's order and the augmentations: the same seed gives the same batches.
  uint64_t seed = 0;
  /// Batches in page-locked host memory, so that copies to a CUDA device can be asynchronous.
  bool pinMemory = false;
};

/// Batches of one rank's shard, epoch by epoch, prepared ahead on loader threads.
class Loader {
 public:
  virtual ~Loader() = default;
  /// Batches per epoch on this rank (a last partial batch is dropped when training).
  virtual int64_t batchesPerEpoch() const = 0;
  /// Starts an epoch: a fresh order of the samples from (seed, epoch).
  virtual void startEpoch(int64_t epoch) = 0;
  /// The epoch's next batch on the CPU, blocking until it is ready; nullopt after the last.
  /// Throws std::runtime_error naming the file when a sample cannot be read.
  virtual std::optional<models::Batch> next() = 0;
};

/// The loader of options.model's format under options.path. Throws std::invalid_argument for
/// bad options and std::runtime_error, naming the path, for a dataset it cannot use.
std::unique_ptr<Loader> openLoader(const LoaderOptions& options);

}  // namespace hetbench::data
