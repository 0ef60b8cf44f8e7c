#include "hetbench/data/sampler.h"

#include <cstddef>
#include <numeric>
#include <utility>

namespace hetbench::data {
namespace {

__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang; __extension__ for -Wpedantic

}  // namespace

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

int64_t SplitMix64::below(int64_t n) {
  // The high word of a 64x64-bit product: a bias of at most n / 2^64, far below anything a
  // training run could notice, and no rejection loop.
  const Uint128 product = static_cast<Uint128>(next()) * static_cast<Uint128>(n);
  return static_cast<int64_t>(product >> 64);
}

uint64_t sampleSeed(uint64_t seed, int64_t epoch, int64_t index) {
  SplitMix64 mix(seed);
  mix = SplitMix64(mix.next() ^ static_cast<uint64_t>(epoch));
  mix = SplitMix64(mix.next() ^ static_cast<uint64_t>(index));
  return mix.next();
}

int64_t shardSamples(const ShardOptions& o) {
  const int64_t n = o.datasetSize;
  const int64_t perRank = o.train ? n / o.worldSize : (n + o.worldSize - 1) / o.worldSize;
  return o.train ? perRank / o.batchSize * o.batchSize : perRank;
}

int64_t shardBatches(const ShardOptions& o) {
  return (shardSamples(o) + o.batchSize - 1) / o.batchSize;
}

std::vector<int64_t> shardOrder(const ShardOptions& o, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(o.datasetSize));
  std::iota(order.begin(), order.end(), 0);
  if (o.train) {
    // Fisher-Yates from a generator of (seed, epoch): the same on every rank.
    SplitMix64 rng(sampleSeed(o.seed, epoch, -1));
    for (int64_t i = o.datasetSize - 1; i > 0; --i) {
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.below(i + 1))]);
    }
  }
  const int64_t count = shardSamples(o);
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    const int64_t position = o.rank + k * o.worldSize;
    mine.push_back(order[static_cast<size_t>(position % o.datasetSize)]);
  }
  return mine;
}

}  // namespace hetbench::data
