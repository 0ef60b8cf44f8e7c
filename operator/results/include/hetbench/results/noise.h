#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hetbench/results/reference.h"

namespace hetbench::results {

/// A configuration's noise, from its latest stable points: robust against the outliers that
/// accelerators produce (a throttled trial, a slow node).
struct NoiseModel {
  double median = 0;
  /// 1.4826 x the median absolute deviation: the standard deviation for normal noise.
  double scale = 0;
  std::size_t points = 0;

  bool operator==(const NoiseModel&) const = default;
};

/// The noise model of `points` (not empty).
NoiseModel noiseOf(std::span<const double> points);

struct ScreeningOptions {
  /// With fewer stable points there is no verdict (Bencher's minimum sample size; Chromium's
  /// six points per segment).
  std::size_t minPoints = 6;
  /// The latest stable points the model is made of.
  std::size_t recentPoints = 20;
  /// A change smaller than this fraction of the median is never suspect, however quiet the
  /// configuration.
  double minChange = 0.02;
  /// ... and one within this many times the noise is not suspect either.
  double minScales = 3;

  bool operator==(const ScreeningOptions&) const = default;
};

/// What screening makes of a new trial.
enum class Screen { kInsufficientHistory, kWithinNoise, kImproved, kSuspect };

/// "InsufficientHistory", "WithinNoise", "Improved", "Suspect".
std::string toString(Screen screen);

struct Screening {
  Screen verdict = Screen::kInsufficientHistory;
  NoiseModel noise;
  /// value / median - 1.
  double change = 0;
  /// |value - median| over the larger of the model's scale and the trial's own spread.
  double scales = 0;
  /// Were the noise normal, the probability of a value at least this far on the worse side: the
  /// trial's p-value for falseDiscoveries; 1 on the better side or without a verdict.
  double pValue = 1;
  /// One line with the numbers ("effective_throughput 912.4 is 8.8% below the median 1000.0 of
  /// 20 stable points, 6.1 times their noise 14.4").
  std::string message;

  bool operator==(const Screening&) const = default;
};

/// Screens `value` (the mean of a trial's repetitions, whose standard deviation is `spread`)
/// against `stable`, the configuration's points since its last change (oldest first): Suspect
/// when it is worse in `direction` by at least minChange and by at least minScales times the
/// noise (the model's scale, or the trial's own spread when that is larger); Improved when it is
/// as far better; InsufficientHistory below minPoints stable points.
Screening screen(std::span<const double> stable, double value, double spread, Direction direction,
                 const std::string& metric, const ScreeningOptions& options = {});

/// How far from the median `median` of stable points whose noise is `noise` a trial without a
/// spread of its own must lie for screen() to call it anything but WithinNoise: the larger of
/// minChange × |median| and minScales × noise (the band the report draws).
double screeningDistance(double median, double noise, const ScreeningOptions& options = {});

/// The p-value at which one trial alone is Suspect: that of minScales times the noise.
double screeningLevel(const ScreeningOptions& options = {});

/// Which of `pValues` (the trials of one run, judged together) are discoveries at false discovery
/// rate `q` by the Benjamini-Hochberg procedure: the k smallest, for the largest k whose k-th
/// smallest is at most k q / m. With one p-value, whether it is at most q.
std::vector<bool> falseDiscoveries(std::span<const double> pValues, double q);

}  // namespace hetbench::results
