// How well regressions are told from noise: generated series with known change points, judged
// online (one new trial at a time) by the operator's path (a BenchmarkSeries screened, and a
// suspect trial confirmed by reruns drawn from the same process), by hetbench's change-point
// detector alone (E-Divisive means with the Mann-Whitney U test), by the median band that
// `fromHistory` references use, and by a plain z-score rule; prints recall, detection delay and
// false alarms per 1000 stable trials for each kind of noise (docs/performance.md, "Regression
// detection").
//
//   build/bench/regression_bench [SERIES_PER_CASE]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hetbench/benchmark/confirmation.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/series.h"
#include "hetbench/results/change_points.h"

namespace {

using hetbench::results::ChangePoint;
using hetbench::results::findChangePoints;

constexpr int kLength = 60;
constexpr double kLevel = 1000;
constexpr double kNoise = 0.01;  // one standard deviation, a fraction of the level
constexpr int kFirstJudged = 12;
/// An alarm within this many trials of a change, or placed this close to it, finds it.
constexpr int kTolerance = 3;
constexpr int kMaxDelay = 10;

/// The noise of a series, besides its steps.
enum class Noise { kGaussian, kHeavyTailed, kAutocorrelated, kOutliers, kDrift, kBadNode };

const char* nameOf(Noise noise) {
  switch (noise) {
    case Noise::kGaussian:
      return "gaussian";
    case Noise::kHeavyTailed:
      return "heavy-tailed (t, 3 dof)";
    case Noise::kAutocorrelated:
      return "autocorrelated (AR1 0.5)";
    case Noise::kOutliers:
      return "outliers (5% at -15%)";
    case Noise::kDrift:
      return "drift (-0.03%/trial)";
    case Noise::kBadNode:
      return "a bad node (1 in 4, -8%)";
  }
  return "?";
}

struct Series {
  Noise noise = Noise::kGaussian;
  double step = 0;
  std::vector<double> values;
  /// Whether the trial ran on the bad node (Noise::kBadNode).
  std::vector<bool> badNode;
  int change = -1;  // the first trial after the step; -1 for none
};

/// One draw of the noise process at trial `i` (unit variance but for outliers and the bad node),
/// `previous` carrying the autocorrelated process; reruns pass their own.
double noiseAt(Noise noise, std::mt19937_64& random, double& previous) {
  std::normal_distribution<double> normal(0, 1);
  std::student_t_distribution<double> heavy(3);
  double e = normal(random);
  if (noise == Noise::kHeavyTailed) e = heavy(random) / std::sqrt(3.0);  // unit variance
  if (noise == Noise::kAutocorrelated) {
    e = 0.5 * previous + std::sqrt(1 - 0.25) * e;  // unit marginal variance
    previous = e;
  }
  return e;
}

/// A value at trial `i` of `series`, its noise `e`, on the bad node or not.
double valueAt(const Series& series, int i, double e, bool bad, std::mt19937_64& random) {
  std::uniform_real_distribution<double> uniform(0, 1);
  double value = kLevel * (1 + kNoise * e);
  if (series.noise == Noise::kOutliers && uniform(random) < 0.05) value *= 0.85;
  if (series.noise == Noise::kDrift) value *= 1 - 0.0003 * i;
  if (bad) value *= 0.92;
  if (series.change >= 0 && i >= series.change) value *= 1 - series.step;
  return value;
}

Series generate(Noise noise, double step, std::mt19937_64& random) {
  std::uniform_int_distribution<int> where(20, 40);
  Series series;
  series.noise = noise;
  series.step = step;
  series.change = step > 0 ? where(random) : -1;
  double previous = 0;
  for (int i = 0; i < kLength; ++i) {
    const double e = noiseAt(noise, random, previous);
    const bool bad = noise == Noise::kBadNode && i % 4 == 3;
    series.badNode.push_back(bad);
    series.values.push_back(valueAt(series, i, e, bad, random));
  }
  return series;
}

/// One detector's alarms: each the trial it was raised at and the trial it places the change at.
struct Alarm {
  int at;
  int placed;
};
using Detector = std::function<std::vector<Alarm>(const Series&, std::mt19937_64&)>;

std::vector<Alarm> changePoints(const std::vector<double>& values) {
  std::vector<Alarm> alarms;
  std::vector<int> reported;
  for (int t = kFirstJudged; t < kLength; ++t) {
    const std::span<const double> seen(values.data(), static_cast<std::size_t>(t) + 1);
    for (const ChangePoint& p : findChangePoints(seen)) {
      const int index = static_cast<int>(p.index);
      if (p.magnitude >= 0) continue;  // regressions only, as the other rules
      const bool known = std::any_of(reported.begin(), reported.end(),
                                     [&](int r) { return std::abs(r - index) <= kTolerance; });
      if (known) continue;
      reported.push_back(index);
      alarms.push_back({t, index});
    }
  }
  return alarms;
}

/// The operator's own path (benchmark/series.h, confirmation.h): each trial a point of a
/// BenchmarkSeries, judged (change points, screening), and a Suspect one confirmed by reruns on
/// its node and on another, drawn from the same process at that trial (a rerun on the bad node
/// is slow again, one elsewhere is not; the autocorrelated process starts afresh); an alarm is a
/// confirmed Regressed, placed at the suspect trial. A slow node (NodeSuspect) is no alarm.
std::vector<Alarm> confirmed(const Series& series, std::mt19937_64& random) {
  namespace b = hetbench::benchmark;
  const b::SeriesSpec spec{{}, "effective_throughput"};
  const auto start = std::chrono::system_clock::time_point(std::chrono::hours(500000));
  b::SeriesStatus status;
  std::vector<Alarm> alarms;
  for (int t = 0; t < kLength; ++t) {
    b::SeriesPoint point;
    point.time = start + std::chrono::hours(t);
    point.run = point.runUid = "r" + std::to_string(t);
    point.value = series.values[t];
    point.verdict = "Pass";
    point.nodes = {series.badNode[t] ? "bad" : "node-" + std::to_string(t % 4)};
    b::addSeriesPoint(status.points, point);
    if (t < kFirstJudged) continue;
    b::judgeSeries(spec, status);
    std::optional<b::SeriesConfirmation> c =
        b::startConfirmation("s", spec, status, b::Confirm{}, point.time);
    if (c) {
      while (c->state == b::reason::kConfirming) {
        for (b::Rerun& rerun : c->reruns) {
          if (rerun.done) continue;
          double fresh = 0;
          const bool same = rerun.placement == b::kSameNodes;
          rerun.value = valueAt(series, t, noiseAt(series.noise, random, fresh),
                                same && series.badNode[t], random);
          rerun.done = true;
        }
        b::advanceConfirmation("s", spec, *c, point.time);
      }
      if (c->state == b::reason::kRegressed) alarms.push_back({t, t});
      status.confirmation = c;
    }
    b::settleSeriesState(status);
  }
  return alarms;
}

/// What the operator raises on a series with confirmation: a confirmed Regressed, and a change
/// point for the worse (a ChangePoint Warning), whichever comes first for a step.
std::vector<Alarm> operatorAlarms(const Series& series, std::mt19937_64& random) {
  std::vector<Alarm> alarms = confirmed(series, random);
  for (const Alarm& a : changePoints(series.values)) {
    const bool known = std::any_of(alarms.begin(), alarms.end(), [&](const Alarm& b) {
      return std::abs(a.placed - b.placed) <= kTolerance;
    });
    if (!known) alarms.push_back(a);
  }
  std::sort(alarms.begin(), alarms.end(),
            [](const Alarm& a, const Alarm& b) { return a.at < b.at; });
  return alarms;
}

/// Today's fromHistory reference: the median of the latest 5 passing trials, a 5% lower band;
/// a trial below it fails and never becomes history.
std::vector<Alarm> medianBand(const std::vector<double>& values) {
  std::vector<Alarm> alarms;
  std::vector<double> passing(values.begin(), values.begin() + kFirstJudged);
  for (int t = kFirstJudged; t < kLength; ++t) {
    std::vector<double> last(passing.end() - 5, passing.end());
    std::nth_element(last.begin(), last.begin() + 2, last.end());
    if (values[t] < last[2] * 0.95) {
      alarms.push_back({t, t});
    } else {
      passing.push_back(values[t]);
    }
  }
  return alarms;
}

/// A lookback z-score: below the mean of the previous 20 trials by more than 3 standard
/// deviations.
std::vector<Alarm> zScore(const std::vector<double>& values) {
  std::vector<Alarm> alarms;
  for (int t = kFirstJudged; t < kLength; ++t) {
    const int from = std::max(0, t - 20);
    double mean = 0;
    for (int i = from; i < t; ++i) mean += values[i];
    mean /= t - from;
    double variance = 0;
    for (int i = from; i < t; ++i) variance += (values[i] - mean) * (values[i] - mean);
    const double sd = std::sqrt(variance / (t - from - 1));
    if (mean - values[t] > 3 * sd) alarms.push_back({t, t});
  }
  return alarms;
}

struct Score {
  int changes = 0;
  int found = 0;
  double delays = 0;
  int falseAlarms = 0;
  int stableTrials = 0;
};

/// Scores one series: the change is found by the first alarm placed within kTolerance of it and
/// raised within kMaxDelay after it; any alarm placed elsewhere is false. Trials judged before the
/// change (or all of a series without one) are stable trials.
void score(const Series& series, const std::vector<Alarm>& alarms, Score& out) {
  out.stableTrials += series.change < 0 ? kLength - kFirstJudged : series.change - kFirstJudged;
  bool found = false;
  for (const Alarm& alarm : alarms) {
    const bool matches = series.change >= 0 &&
                         std::abs(alarm.placed - series.change) <= kTolerance &&
                         alarm.at - series.change <= kMaxDelay && alarm.at >= series.change;
    const bool sameRegression = series.change >= 0 && alarm.at >= series.change &&
                                alarm.placed >= series.change - kTolerance;
    if (matches && !found) {
      found = true;
      out.delays += alarm.at - series.change;
    } else if (!sameRegression) {
      ++out.falseAlarms;
    }
  }
  if (series.change >= 0) {
    ++out.changes;
    if (found) ++out.found;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int perCase = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::vector<double> steps = {0, 0.01, 0.02, 0.03, 0.05, 0.10, 0.20};
  const auto onValues = [](std::vector<Alarm> (*detect)(const std::vector<double>&)) {
    return Detector(
        [detect](const Series& series, std::mt19937_64&) { return detect(series.values); });
  };
  const std::vector<std::pair<const char*, Detector>> detectors = {
      {"operator", operatorAlarms},
      {"confirmed", confirmed},
      {"change points", onValues(changePoints)},
      {"median band 5%", onValues(medianBand)},
      {"z-score 3", onValues(zScore)}};
  std::printf("%d series of %d trials per case, noise %.0f%% of the level; a step at trial 20-40\n",
              perCase, kLength, kNoise * 100);
  std::printf("%-26s %-15s %7s %7s %7s %7s %7s %7s %8s %10s\n", "noise", "detector", "1%", "2%",
              "3%", "5%", "10%", "20%", "delay", "false/1000");
  std::map<std::string, Score> totals;  // detector → over every case, for the summary
  std::map<std::string, Score> large;   // detector → steps of at least 3 times the noise
  for (const Noise noise : {Noise::kGaussian, Noise::kHeavyTailed, Noise::kAutocorrelated,
                            Noise::kOutliers, Noise::kDrift, Noise::kBadNode}) {
    for (const auto& [name, detect] : detectors) {
      std::mt19937_64 random(20261126);  // the same series for every detector
      std::mt19937_64 reruns(42);
      std::vector<Score> byStep(steps.size());
      for (std::size_t s = 0; s < steps.size(); ++s) {
        for (int i = 0; i < perCase; ++i) {
          const Series series = generate(noise, steps[s], random);
          score(series, detect(series, reruns), byStep[s]);
        }
      }
      Score all;
      std::printf("%-26s %-15s", nameOf(noise), name);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const Score& b = byStep[s];
        all.changes += b.changes;
        all.found += b.found;
        all.delays += b.delays;
        all.falseAlarms += b.falseAlarms;
        all.stableTrials += b.stableTrials;
        if (steps[s] > 0) std::printf(" %7.3f", static_cast<double>(b.found) / b.changes);
        if (steps[s] >= 3 * kNoise) {
          large[name].changes += b.changes;
          large[name].found += b.found;
        }
      }
      std::printf(" %8.2f %10.2f\n", all.found > 0 ? all.delays / all.found : 0.0,
                  1000.0 * all.falseAlarms / all.stableTrials);
      Score& total = totals[name];
      total.changes += all.changes;
      total.found += all.found;
      total.delays += all.delays;
      total.falseAlarms += all.falseAlarms;
      total.stableTrials += all.stableTrials;
    }
  }
  std::printf("\nover every case:\n%-15s %12s %9s %8s %10s\n", "detector", "recall >=3x",
              "precision", "delay", "false/1000");
  for (const auto& [name, detect] : detectors) {
    const Score& t = totals[name];
    std::printf("%-15s %12.3f %9.3f %8.2f %10.2f\n", name,
                static_cast<double>(large[name].found) / large[name].changes,
                static_cast<double>(t.found) / std::max(1, t.found + t.falseAlarms),
                t.found > 0 ? t.delays / t.found : 0.0, 1000.0 * t.falseAlarms / t.stableTrials);
  }
  return 0;
}
