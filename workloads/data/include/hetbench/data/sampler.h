#pragma once

// Which samples a rank reads in an epoch, and the random numbers of their augmentations: both
// depend only on the seed, the epoch and the sample, never on threads or timing.

#include <cstdint>
#include <vector>

namespace hetbench::data {

/// splitmix64: a tiny generator whose stream is fixed by its seed on every platform (the
/// standard library's distributions are not), so that runs are reproducible anywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  /// Uniform in [0, 1), 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) for n >= 1.
  int64_t below(int64_t n);

 private:
  uint64_t state_;
};

/// The seed of one sample's augmentations in an epoch.
uint64_t sampleSeed(uint64_t seed, int64_t epoch, int64_t index);

/// How the samples of a dataset are split among ranks and batches.
struct ShardOptions {
  int64_t datasetSize = 0;
  int64_t batchSize = 1;
  /// Training shuffles each epoch and drops what does not fill whole batches on every rank;
  /// validation keeps the order and pads (below).
  bool train = true;
  uint64_t seed = 0;
  int64_t rank = 0;
  int64_t worldSize = 1;
};

/// As PyTorch's DistributedSampler: the epoch's order (a permutation from (seed, epoch) when
/// training, 0..n-1 otherwise) is cut to a multiple of worldSize when training (drop_last) or
/// padded with its own first samples otherwise, and rank r takes every worldSize-th sample from
/// position r. Training then drops the rank's last partial batch. Every rank gets the same count.
std::vector<int64_t> shardOrder(const ShardOptions& options, int64_t epoch);

/// Samples per rank and epoch (the length of shardOrder).
int64_t shardSamples(const ShardOptions& options);

/// Batches per rank and epoch; validation's last batch may be partial.
int64_t shardBatches(const ShardOptions& options);

}  // namespace hetbench::data
