#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace hetbench::results {

/// How change points are looked for; the defaults are Apache Otava's window and significance and
/// Chromium's dashboard's segment size, with hetbench's default practical minimum.
struct ChangePointOptions {
  /// Only the latest `window` points are looked at.
  std::size_t window = 50;
  /// A split is a change only when the Mann-Whitney U test between its two sides gives at most
  /// this.
  double maxPValue = 0.001;
  /// ... and the means differ by at least this fraction of the earlier one.
  double minMagnitude = 0.02;
  /// ... and the medians differ by at least this many times the sides' robust noise (their
  /// pooled scaled MADs).
  double minEffect = 2;
  /// Points on each side of a split, at least.
  std::size_t minSegment = 6;

  bool operator==(const ChangePointOptions&) const = default;
};

/// A change in a series: where the new level starts and how large it is.
struct ChangePoint {
  /// The first point of the new segment, an index into the series given.
  std::size_t index = 0;
  /// The means of the segments on either side, up to the neighbouring change points.
  double before = 0;
  double after = 0;
  /// after / before - 1.
  double magnitude = 0;
  double pValue = 1;

  bool operator==(const ChangePoint&) const = default;
};

/// The change points of `series` (oldest first) in its latest `window` points, in index order, by
/// E-Divisive means (Matteson and James, alpha 1) as Apache Otava applies it: binary segmentation
/// at the splits that maximise the energy divergence of their sides gives the candidates; each is
/// then judged against the segments up to its neighbours, and the least significant that fails is
/// dropped until all that are left pass: the Mann-Whitney U test (p <= maxPValue), the change of
/// the means (at least minMagnitude) and of the medians against the sides' robust noise (at least
/// minEffect). O(n^2) per split for n points.
std::vector<ChangePoint> findChangePoints(std::span<const double> series,
                                          const ChangePointOptions& options = {});

/// The Mann-Whitney U test of two samples: the two-sided p-value that one tends to be larger than
/// the other; exact (the permutation distribution of the rank sum, ties included) up to 30 points
/// in all, and beyond by the normal approximation with tie and continuity corrections. Ranks make
/// it immune to outliers and heavy tails, which inflate the variances of a t-test.
double mannWhitneyPValue(std::span<const double> a, std::span<const double> b);

}  // namespace hetbench::results
