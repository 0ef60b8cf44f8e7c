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
  /// Different needs both tests at or below this.
  double maxPValue = 0.01;
  /// ... and the medians at least this fraction apart; Same, less than this apart.
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
/// trials; neither empty): Different when the Mann-Whitney U and the Kolmogorov-Smirnov tests
/// both give at most maxPValue and the medians differ by minChange or more; Same when the
/// medians differ by less than minChange and the sample has minSame values or more (a change too
/// small to matter, however significant: equivalence within the practical minimum); else
/// Undecided (one more rerun may decide).
SampleComparison compareSamples(std::span<const double> baseline, std::span<const double> sample,
                                const ComparisonOptions& options = {});

/// The two-sample Kolmogorov-Smirnov test: the probability, were both samples drawn from one
/// distribution, of a largest distance between their empirical distribution functions at least
/// the observed one; exact (the lattice paths of the two samples' merged order) for any sizes,
/// as ties are rare in measured throughputs. 1 when either is empty.
double kolmogorovSmirnovPValue(std::span<const double> a, std::span<const double> b);

}  // namespace hetbench::results
