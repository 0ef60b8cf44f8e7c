#pragma once

// The readers behind the loader: one sample at a time into the caller's buffers, without torch,
// so that the loader's threads can decode straight into a batch.

#include <hetbench/models/descriptor.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace hetbench::data {

/// The shapes of one sample; inputs are always float32.
struct SampleLayout {
  std::vector<int64_t> input;
  std::vector<int64_t> target;
  /// int64 targets (class indices, per-pixel classes) or float32 (regression).
  bool int64Target = true;
};

/// A split of a dataset on disk, read sample by sample. Thread-safe.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual const SampleLayout& layout() const = 0;
  /// Writes sample `index` into `input` (the product of layout().input floats) and `target`
  /// (layout().target elements of int64 or float). `seed` drives the random augmentations of
  /// the training split. Throws std::runtime_error naming the file.
  virtual void read(int64_t index, uint64_t seed, float* input, void* target) const = 0;
};

/// Which dataset, which split, and at what size.
struct DatasetOptions {
  /// Whose dataset: its descriptor gives the format and the benchmark's sample size.
  models::ModelKind model = models::ModelKind::kResnet50;
  std::filesystem::path path;
  bool train = true;
  /// As models::ModelOptions::sampleSize; empty for the benchmark's size.
  std::vector<int64_t> sampleSize;
};

/// Lists the split's samples (and, for DeepCAM, reads stats.h5). Throws std::invalid_argument
/// for a sample size the format cannot take, std::runtime_error naming the path for a missing or
/// empty split or unusable statistics.
std::unique_ptr<Dataset> openDataset(const DatasetOptions& options);

}  // namespace hetbench::data
