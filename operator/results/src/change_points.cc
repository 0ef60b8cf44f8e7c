#include "hetbench/results/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "hetbench/results/noise.h"

namespace hetbench::results {
namespace {

/// Pooled samples up to this size get the exact p-value of the Mann-Whitney U test: its normal
/// approximation cannot go below about 0.002 for seven points against seven, however far apart
/// they are, so that a short series could never show a change at p 0.001.
constexpr std::size_t kExactMannWhitneyMax = 30;

double meanOf(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

/// The split of `segment` (into [0, split) and [split, n)) that maximises the E-Divisive
/// divergence, each side at least `minSegment` long; 0 when there is none.
std::size_t bestSplit(std::span<const double> segment, std::size_t minSegment) {
  const std::size_t n = segment.size();
  const std::size_t least = std::max<std::size_t>(minSegment, 2);
  if (n < 2 * least) return 0;
  // prefix[i][j]: the sum of |x_r - x_c| over r < i, c < j, so that any block of the distance
  // matrix sums in O(1).
  std::vector<double> prefix((n + 1) * (n + 1), 0.0);
  const auto at = [&](std::size_t i, std::size_t j) -> double& { return prefix[i * (n + 1) + j]; };
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      at(i + 1, j + 1) = std::abs(segment[i] - segment[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
    }
  }
  const auto block = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
    return at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
  };
  std::size_t best = 0;
  double bestDivergence = -std::numeric_limits<double>::infinity();
  for (std::size_t split = least; split + least <= n; ++split) {
    const auto left = static_cast<double>(split);
    const auto right = static_cast<double>(n - split);
    const double between = block(0, split, split, n) / (left * right);
    const double withinLeft = block(0, split, 0, split) / (left * (left - 1));
    const double withinRight = block(split, n, split, n) / (right * (right - 1));
    const double divergence =
        left * right / (left + right) * (2 * between - withinLeft - withinRight);
    if (divergence > bestDivergence) {
      bestDivergence = divergence;
      best = split;
    }
  }
  return best;
}

/// Candidate splits of [begin, end) of the window, by binary segmentation on the divergence alone,
/// down to segments too short to split.
void candidateSplits(std::span<const double> window, std::size_t begin, std::size_t end,
                     std::size_t minSegment, std::vector<std::size_t>& found) {
  const std::size_t split = bestSplit(window.subspan(begin, end - begin), minSegment);
  if (split == 0) return;
  found.push_back(begin + split);
  candidateSplits(window, begin, begin + split, minSegment, found);
  candidateSplits(window, begin + split, end, minSegment, found);
}

/// A candidate judged against the segments on either side of it, up to its neighbours.
ChangePoint judge(std::span<const double> left, std::span<const double> right, std::size_t index,
                  const ChangePointOptions& options, bool& significant) {
  ChangePoint point;
  point.index = index;
  point.before = meanOf(left);
  point.after = meanOf(right);
  point.magnitude = point.before != 0 ? point.after / point.before - 1 : 0;
  point.pValue = mannWhitneyPValue(left, right);
  const NoiseModel before = noiseOf(left);
  const NoiseModel after = noiseOf(right);
  const double noise = std::sqrt((before.scale * before.scale + after.scale * after.scale) / 2);
  const double effect = noise > 0 ? std::abs(after.median - before.median) / noise : INFINITY;
  significant = point.pValue <= options.maxPValue &&
                std::abs(point.magnitude) >= options.minMagnitude && effect >= options.minEffect;
  return point;
}

}  // namespace

double mannWhitneyPValue(std::span<const double> a, std::span<const double> b) {
  // Ranks of the pooled sample, ties given their mean rank, doubled so that they are integers.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(a.size() + b.size());
  for (const double v : a) pooled.emplace_back(v, 0);
  for (const double v : b) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end());
  std::vector<std::size_t> doubledRanks;
  doubledRanks.reserve(pooled.size());
  std::size_t doubledRankSumA = 0;
  double tieTerm = 0;  // sum of t^3 - t over groups of t tied values
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const std::size_t doubledRank = i + j + 1;  // ranks i+1 .. j, their mean doubled
    for (std::size_t k = i; k < j; ++k) {
      doubledRanks.push_back(doubledRank);
      if (pooled[k].second == 0) doubledRankSumA += doubledRank;
    }
    const auto tied = static_cast<double>(j - i);
    tieTerm += tied * tied * tied - tied;
    i = j;
  }
  const std::size_t total = pooled.size();
  const std::size_t na = a.size();
  if (na == 0 || na == total) return 1;
  const double meanDoubled = static_cast<double>(na * (total + 1));
  const double distance = std::abs(static_cast<double>(doubledRankSumA) - meanDoubled);
  if (total <= kExactMannWhitneyMax) {
    // The exact null distribution: every way of drawing a's size from the pooled ranks (ties
    // kept as they are) is equally likely; count the ways by their doubled rank sum.
    const std::size_t maxSum = total * (total + 1);
    std::vector<double> ways((na + 1) * (maxSum + 1), 0.0);
    const auto at = [&](std::size_t k, std::size_t sum) -> double& {
      return ways[k * (maxSum + 1) + sum];
    };
    at(0, 0) = 1;
    for (std::size_t item = 0; item < total; ++item) {
      for (std::size_t k = std::min(na, item + 1); k >= 1; --k) {
        for (std::size_t sum = maxSum; sum >= doubledRanks[item]; --sum) {
          at(k, sum) += at(k - 1, sum - doubledRanks[item]);
        }
      }
    }
    double asFar = 0;
    double all = 0;
    for (std::size_t sum = 0; sum <= maxSum; ++sum) {
      const double count = at(na, sum);
      all += count;
      // A small allowance, so that sums as far away as the observed one in floating point count.
      if (std::abs(static_cast<double>(sum) - meanDoubled) >= distance - 1e-9) asFar += count;
    }
    return std::min(1.0, asFar / all);
  }
  const auto n = static_cast<double>(total);
  const auto nA = static_cast<double>(na);
  const auto nB = static_cast<double>(b.size());
  const double variance = nA * nB / 12 * ((n + 1) - tieTerm / (n * (n - 1)));
  if (variance <= 0) return 1;
  // The normal approximation of U (= the rank sum less na(na+1)/2) with a continuity correction.
  const double z = (distance / 2 - 0.5) / std::sqrt(variance);
  return z <= 0 ? 1 : std::erfc(z / std::sqrt(2.0));
}

std::vector<ChangePoint> findChangePoints(std::span<const double> series,
                                          const ChangePointOptions& options) {
  const std::size_t offset = series.size() > options.window ? series.size() - options.window : 0;
  const std::span<const double> window = series.subspan(offset);
  std::vector<std::size_t> candidates;
  candidateSplits(window, 0, window.size(), options.minSegment, candidates);
  std::sort(candidates.begin(), candidates.end());
  // As Otava does: judge every candidate against its neighbouring segments, drop the least
  // significant that fails, and judge again, until every candidate left is a change.
  while (true) {
    std::vector<ChangePoint> judged;
    std::size_t weakest = candidates.size();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const std::size_t begin = i == 0 ? 0 : candidates[i - 1];
      const std::size_t end = i + 1 == candidates.size() ? window.size() : candidates[i + 1];
      bool significant = false;
      judged.push_back(judge(window.subspan(begin, candidates[i] - begin),
                             window.subspan(candidates[i], end - candidates[i]),
                             offset + candidates[i], options, significant));
      if (!significant &&
          (weakest == candidates.size() || judged.back().pValue > judged[weakest].pValue)) {
        weakest = i;
      }
    }
    if (weakest == candidates.size()) return judged;
    candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
}

}  // namespace hetbench::results
