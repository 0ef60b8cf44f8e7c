#pragma once

// Confirmation of a suspect trial by reruns (docs/metrics.md, "Confirmation reruns"): the reruns'
// values against the configuration's stable trials, by two rank tests at once, as Chromium's
// Pinpoint decides DIFFERENT, and by the practical minimum for SAME.

#include <cstddef>
#include <span>
#include <string>

namespace hetbench::results {

/// What a sample of reruns says against the stable trials of its configuration.
enum class Comparison { kUndecided, kSame, kDifferent };

/// "Undecided", "Same", "Different".
std::string toString(Comparison comparison);

struct ComparisonOptions {
  /// Different needs one of the two tests at or below this (so at most twice this, by
  /// Bonferroni, for samples of one distribution).
  double maxPValue = 0.01;
  /// ... and the medians at least this fraction apart; Same, the medians shown less than this
  /// apart.
  double minChange = 0.02;
  /// Same needs at least this many values in the sample.
  std::size_t minSame = 2;

  bool operator==(const ComparisonOptions&) const = default;
};

struct SampleComparison {
  Comparison verdict = Comparison::kUndecided;
  /// median(sample) / median(baseline) - 1.
  double change = 0;
  double mannWhitney = 1;
  double kolmogorovSmirnov = 1;

  bool operator==(const SampleComparison&) const = default;
};

/// `sample` (a suspect trial and its reruns) against `baseline` (the configuration's stable
/// trials; neither empty): Different when the medians differ by minChange or more and the
/// Mann-Whitney U test (a shift) or the Kolmogorov-Smirnov test (any difference of the
/// distributions) gives at most maxPValue; Same when the sample has minSame values or more and
/// the medians are shown closer than minChange: the change plus the one-sided 95% bound of the
/// sample median's error (from the baseline's noise, Student's t for its size) stays under it,
/// an equivalence test; else Undecided (one more rerun may decide).
SampleComparison compareSamples(std::span<const double> baseline, std::span<const double> sample,
                                const ComparisonOptions& options = {});

double kolmogorovSmirnovPValue(std::span<const double> a, std::span<const double> b);

}  // namespace hetbench::results
