#include "hetbench/results/confirm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "hetbench/results/change_points.h"
#include "hetbench/results/noise.h"
#include "hetbench/results/reference.h"

namespace hetbench::results {
namespace {

/// The largest distance between the empirical distribution functions of `a` and `b`, as
/// m x n x D, an integer: comparing it exactly avoids the rounding of fractions.
long long scaledDistance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const auto m = static_cast<long long>(a.size());
  const auto n = static_cast<long long>(b.size());
  long long i = 0;
  long long j = 0;
  long long largest = 0;
  while (i < m || j < n) {
    const double next = j == n || (i < m && a[i] <= b[j]) ? a[i] : b[j];
    while (i < m && a[i] == next) ++i;
    while (j < n && b[j] == next) ++j;
    largest = std::max(largest, std::llabs(i * n - j * m));
  }
  return largest;
}

}  // namespace

std::string toString(Comparison comparison) {
  switch (comparison) {
    case Comparison::kSame:
      return "Same";
    case Comparison::kDifferent:
      return "Different";
    case Comparison::kUndecided:
      break;
  }
  return "Undecided";
}

double kolmogorovSmirnovPValue(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return 1;
  const long long observed = scaledDistance(std::vector<double>(a.begin(), a.end()),
                                            std::vector<double>(b.begin(), b.end()));
  const auto m = static_cast<long long>(a.size());
  const auto n = static_cast<long long>(b.size());
  // paths[j]: the share of monotone paths from (0, 0) to (i, j) that stay strictly inside the
  // band |i n - j m| < observed, each step weighted so that the total over all paths to (m, n)
  // is 1 (a path's weight is 1 / C(m + n, m), built up step by step to avoid huge counts).
  std::vector<double> paths(static_cast<std::size_t>(n + 1), 0.0);
  const auto inside = [&](long long i, long long j) {
    return std::llabs(i * n - j * m) < observed;
  };
  for (long long i = 0; i <= m; ++i) {
    for (long long j = 0; j <= n; ++j) {
      double& here = paths[static_cast<std::size_t>(j)];
      if (i == 0 && j == 0) {
        here = 1;
      } else {
        // From (i-1, j) with probability of an `a` step, from (i, j-1) of a `b` step: the share
        // of the remaining draws at that point.
        const double fromA =
            i > 0 ? here * static_cast<double>(m - i + 1) / static_cast<double>(m + n - (i - 1) - j)
                  : 0.0;
        const double fromB = j > 0 ? paths[static_cast<std::size_t>(j - 1)] *
                                         static_cast<double>(n - j + 1) /
                                         static_cast<double>(m + n - i - (j - 1))
                                   : 0.0;
        here = fromA + fromB;
      }
      if (!inside(i, j)) here = 0;
    }
  }
  return std::clamp(1 - paths[static_cast<std::size_t>(n)], 0.0, 1.0);
}

SampleComparison compareSamples(std::span<const double> baseline, std::span<const double> sample,
                                const ComparisonOptions& options) {
  SampleComparison out;
  if (baseline.empty() || sample.empty()) return out;
  const NoiseModel before = noiseOf(baseline);
  const double after = noiseOf(sample).median;
  if (before.median == 0) return out;
  out.change = after / before.median - 1;
  out.mannWhitney = mannWhitneyPValue(baseline, sample);
  out.kolmogorovSmirnov = kolmogorovSmirnovPValue(baseline, sample);
  // The median of k values varies about 1.2533 / sqrt(k) times the noise (normal noise); its
  // one-sided 95% bound, with the baseline's noise estimated from its own size.
  const double margin = studentT95(static_cast<std::int64_t>(baseline.size()) - 1) * 1.2533 *
                        before.scale / std::sqrt(static_cast<double>(sample.size())) /
                        std::abs(before.median);
  if (std::abs(out.change) >= options.minChange &&
      std::min(out.mannWhitney, out.kolmogorovSmirnov) <= options.maxPValue) {
    out.verdict = Comparison::kDifferent;
  } else if (sample.size() >= options.minSame &&
             std::abs(out.change) + margin < options.minChange) {
    out.verdict = Comparison::kSame;
  }
  return out;
}

}  // namespace hetbench::results
