#include "hetbench/data/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

namespace hetbench::data {
namespace {

ShardOptions shard(int64_t size, int64_t batch, bool train, int64_t rank, int64_t world,
                   uint64_t seed = 5) {
  ShardOptions o;
  o.datasetSize = size;
  o.batchSize = batch;
  o.train = train;
  o.seed = seed;
  o.rank = rank;
  o.worldSize = world;
  return o;
}

// Verifies that training shards are disjoint, equally long, whole batches, and together cover
// all but the samples that cannot fill a batch on every rank.
TEST(Shard, TrainingShardsAreDisjointAndCoverTheEpoch) {
  std::set<int64_t> seen;
  for (int64_t rank = 0; rank < 4; ++rank) {
    const std::vector<int64_t> mine = shardOrder(shard(103, 5, true, rank, 4), 2);
    EXPECT_EQ(mine.size(), 25U) << rank;  // 103 / 4 = 25 each, 5 whole batches
    for (const int64_t i : mine) {
      EXPECT_TRUE(i >= 0 && i < 103);
      EXPECT_TRUE(seen.insert(i).second) << "sample " << i << " on two ranks";
    }
  }
  EXPECT_EQ(seen.size(), 100U);
}

// Verifies that validation shards are equally long and cover every sample, padding with the
// first ones as DistributedSampler does.
TEST(Shard, ValidationShardsCoverEverySample) {
  std::vector<int64_t> all;
  for (int64_t rank = 0; rank < 4; ++rank) {
    const std::vector<int64_t> mine = shardOrder(shard(103, 5, false, rank, 4), 0);
    EXPECT_EQ(mine.size(), 26U);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(103);
  for (int64_t i = 0; i < 103; ++i) expected[static_cast<size_t>(i)] = i;
  expected.push_back(0);  // the one pad: position 103 wraps to the first sample
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
  // Rank r reads positions r, r + 4, ...: in order, unshuffled.
  EXPECT_EQ(shardOrder(shard(103, 5, false, 1, 4), 0)[0], 1);
  EXPECT_EQ(shardOrder(shard(103, 5, false, 1, 4), 0)[1], 5);
}

// Verifies that the epoch's permutation is one for all ranks: interleaving the shards of three
// ranks gives the single rank's order.
TEST(Shard, RanksShareOnePermutation) {
  const std::vector<int64_t> whole = shardOrder(shard(99, 1, true, 0, 1), 3);
  for (int64_t rank = 0; rank < 3; ++rank) {
    const std::vector<int64_t> mine = shardOrder(shard(99, 1, true, rank, 3), 3);
    for (size_t k = 0; k < mine.size(); ++k) {
      EXPECT_EQ(mine[k], whole[static_cast<size_t>(rank) + 3 * k]);
    }
  }
  std::vector<int64_t> sorted = whole;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 99; ++i) EXPECT_EQ(sorted[static_cast<size_t>(i)], i);
}

// Verifies that the order depends on the seed and the epoch and on nothing else.
TEST(Shard, SameSeedSameOrderOtherEpochOrSeedOtherOrder) {
  const auto order = [](uint64_t seed, int64_t epoch) {
    return shardOrder(shard(50, 2, true, 1, 2, seed), epoch);
  };
  EXPECT_EQ(order(5, 0), order(5, 0));
  EXPECT_NE(order(5, 0), order(5, 1));
  EXPECT_NE(order(5, 0), order(6, 0));
  EXPECT_EQ(shardOrder(shard(50, 2, false, 1, 2), 0), shardOrder(shard(50, 2, false, 1, 2), 7));
}

// Verifies the batch counts: whole batches when training, a last partial one in validation.
TEST(Shard, BatchesPerRank) {
  // size, batch, world, train -> batches
  const std::vector<std::tuple<int64_t, int64_t, int64_t, bool, int64_t>> cases = {
      {100, 10, 1, true, 10}, {105, 10, 1, true, 10}, {105, 10, 1, false, 11},
      {105, 10, 4, true, 2},  {105, 10, 4, false, 3}, {3, 4, 1, true, 0},
      {3, 4, 1, false, 1},    {3, 1, 4, true, 0},     {3, 1, 4, false, 1}};
  for (const auto& [size, batch, world, train, batches] : cases) {
    const ShardOptions o = shard(size, batch, train, 0, world);
    EXPECT_EQ(shardBatches(o), batches) << size << " " << batch << " " << world << " " << train;
    EXPECT_EQ(static_cast<int64_t>(shardOrder(o, 0).size()), shardSamples(o));
  }
}

// Verifies the generator's ranges and that sample seeds differ by epoch and by sample.
TEST(SplitMix64, StaysInItsRanges) {
  SplitMix64 rng(42);
  int64_t hits[7] = {};
  for (int i = 0; i < 7000; ++i) {
    const int64_t v = rng.below(7);
    ASSERT_TRUE(v >= 0 && v < 7);
    ++hits[v];
    const double u = rng.uniform();
    ASSERT_TRUE(u >= 0 && u < 1);
  }
  for (const int64_t h : hits) EXPECT_GT(h, 800);  // about 1000 each
  EXPECT_NE(sampleSeed(1, 0, 5), sampleSeed(1, 1, 5));
  EXPECT_NE(sampleSeed(1, 0, 5), sampleSeed(1, 0, 6));
  EXPECT_NE(sampleSeed(1, 0, 5), sampleSeed(2, 0, 5));
  EXPECT_EQ(sampleSeed(1, 0, 5), sampleSeed(1, 0, 5));
}

}  // namespace
}  // namespace hetbench::data
