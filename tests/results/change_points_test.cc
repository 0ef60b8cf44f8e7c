#include "hetbench/results/change_points.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hetbench/results/noise.h"

namespace hetbench::results {
namespace {

/// `n` points around `level` with a deterministic wobble of about `noise` (a fraction).
std::vector<double> flat(std::size_t n, double level, double noise = 0.005) {
  std::vector<double> points;
  for (std::size_t i = 0; i < n; ++i) {
    points.push_back(level * (1 + noise * std::sin(static_cast<double>(i) * 2.3)));
  }
  return points;
}

std::vector<double> joined(std::vector<std::vector<double>> parts) {
  std::vector<double> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Verifies the Mann-Whitney U test: cases worked by hand, exact and approximate, ties, and order
// not mattering.
TEST(MannWhitney, PValues) {
  // Exact: of the 20 ways to draw three of six ranks, 2 are as far from the middle as {1, 2, 3}.
  EXPECT_NEAR(mannWhitneyPValue(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}), 0.1,
              1e-12);
  EXPECT_NEAR(mannWhitneyPValue(std::vector<double>{6, 4, 5}, std::vector<double>{3, 1, 2}), 0.1,
              1e-12);
  // Seven against seven completely apart: 2 of C(14, 7) = 3432, under 0.001 (the normal
  // approximation gives 0.0022).
  EXPECT_NEAR(mannWhitneyPValue(std::vector<double>{1, 2, 3, 4, 5, 6, 7},
                                std::vector<double>{8, 9, 10, 11, 12, 13, 14}),
              2.0 / 3432, 1e-15);
  // Ties: {1, 2} against {2, 3} has doubled ranks {2, 5} and {5, 8}; of the 6 draws of two, the
  // rank sums 7, 7, 10, 10, 13, 13 (doubled) are each 3 or more from the middle 10 in 4 draws.
  EXPECT_NEAR(mannWhitneyPValue(std::vector<double>{1, 2}, std::vector<double>{2, 3}), 4.0 / 6,
              1e-12);
  EXPECT_DOUBLE_EQ(mannWhitneyPValue(std::vector<double>{}, std::vector<double>{1, 2}), 1.0);
  EXPECT_DOUBLE_EQ(mannWhitneyPValue(std::vector<double>{1, 1}, std::vector<double>{1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(
      mannWhitneyPValue(std::vector<double>{1, 2, 3, 4}, std::vector<double>{1, 2, 3, 4}), 1.0);
  // An outlier moves a rank, not the result: 20 against 20 completely apart.
  std::vector<double> low(20, 0);
  std::vector<double> high(20, 0);
  for (int i = 0; i < 20; ++i) {
    low[i] = 900 + i;
    high[i] = 1000 + i;
  }
  const double apart = mannWhitneyPValue(low, high);
  low[0] = -1e9;
  EXPECT_DOUBLE_EQ(mannWhitneyPValue(low, high), apart);
  // Beyond 30 points, the normal approximation: U = 0 against a mean of 200 and a variance of
  // 20 x 20 x 41 / 12.
  const double z = (200 - 0.5) / std::sqrt(20.0 * 20 * 41 / 12);
  EXPECT_NEAR(apart, std::erfc(z / std::sqrt(2.0)), 1e-20);
}

// Verifies where change points are found, and where none is.
TEST(FindChangePoints, Table) {
  struct Case {
    std::string name;
    std::vector<double> series;
    std::vector<std::size_t> want;
  };
  const std::vector<Case> cases = {
      {"flat", flat(40, 1000), {}},
      {"a 10% drop at 25", joined({flat(25, 1000), flat(20, 900)}), {25}},
      {"a 10% rise at 25", joined({flat(25, 1000), flat(20, 1100)}), {25}},
      {"two steps", joined({flat(20, 1000), flat(15, 900), flat(15, 1000)}), {20, 35}},
      {"a 1% step is below the practical minimum", joined({flat(25, 1000), flat(20, 990)}), {}},
      {"three points after the step", joined({flat(25, 1000), flat(3, 800)}), {}},
      {"a short series: seven and seven", joined({flat(7, 1000), flat(7, 900)}), {7}},
      {"six and six cannot reach p 0.001", joined({flat(6, 1000), flat(6, 900)}), {}},
      {"a single outlier is not a change",
       joined({flat(20, 1000), std::vector<double>{700}, flat(20, 1000)}),
       {}},
      {"a step before the window is not looked at", joined({flat(20, 1000), flat(55, 900)}), {}},
  };
  for (const Case& c : cases) {
    std::vector<std::size_t> found;
    for (const ChangePoint& p : findChangePoints(c.series)) found.push_back(p.index);
    EXPECT_EQ(found, c.want) << c.name;
  }
}

// Verifies what a change point says: its levels, its magnitude and its significance.
TEST(FindChangePoints, Levels) {
  const std::vector<ChangePoint> found =
      findChangePoints(joined({flat(30, 1000, 0), flat(30, 880, 0.01)}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 30u);
  EXPECT_DOUBLE_EQ(found[0].before, 1000);
  EXPECT_NEAR(found[0].after, 880, 1);
  EXPECT_NEAR(found[0].magnitude, -0.12, 0.001);
  EXPECT_LT(found[0].pValue, 1e-8);

  ChangePointOptions strict;
  strict.minMagnitude = 0.15;
  EXPECT_TRUE(findChangePoints(joined({flat(30, 1000), flat(30, 880)}), strict).empty());
}

// Verifies the noise model: median and scaled MAD, unmoved by one wild point.
TEST(Noise, MedianAndScaledMad) {
  const NoiseModel model = noiseOf(std::vector<double>{1, 2, 3, 4, 100});
  EXPECT_EQ(model.median, 3);
  EXPECT_DOUBLE_EQ(model.scale, 1.4826);
  EXPECT_EQ(model.points, 5u);
  EXPECT_EQ(noiseOf(std::vector<double>{4, 1, 3, 2}).median, 2.5);
}

// Verifies each verdict of screening and its message.
TEST(Noise, Screening) {
  const std::vector<double> stable = {1000, 1010, 990, 1005, 995, 1000, 1002, 998};  // scale 5.19
  const std::string metric = "effective_throughput";
  struct Case {
    std::string name;
    std::vector<double> stable;
    double value;
    double spread;
    Direction direction;
    Screen want;
  };
  const std::vector<Case> cases = {
      {"five points",
       {1000, 1000, 1000, 1000, 1000},
       500,
       0,
       Direction::kHigher,
       Screen::kInsufficientHistory},
      {"1% below: within the practical minimum", stable, 990, 0, Direction::kHigher,
       Screen::kWithinNoise},
      {"5% below, 9.6 times the noise", stable, 950, 0, Direction::kHigher, Screen::kSuspect},
      {"5% below, but the trial's own spread is 25", stable, 950, 25, Direction::kHigher,
       Screen::kWithinNoise},
      {"5% above", stable, 1050, 0, Direction::kHigher, Screen::kImproved},
      {"5% above when lower is better", stable, 1050, 0, Direction::kLower, Screen::kSuspect},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(screen(c.stable, c.value, c.spread, c.direction, metric).verdict, c.want) << c.name;
  }
  EXPECT_EQ(screen(stable, 950, 0, Direction::kHigher, metric).message,
            "effective_throughput 950.0 is 5.0% below the median 1000.0 of 8 stable points, 9.6 "
            "times their noise 5.2");
  EXPECT_EQ(screen(std::vector<double>{1000, 1000}, 950, 0, Direction::kHigher, metric).message,
            "effective_throughput has 2 stable points; 6 are needed for a verdict");
  // The p-value: the normal tail of the distance on the worse side, 1 on the better.
  const Screening slow = screen(stable, 984.4, 0, Direction::kHigher, metric);  // 3 scales
  EXPECT_NEAR(slow.pValue, 0.5 * std::erfc(slow.scales / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(slow.pValue, screeningLevel(), 2e-4);
  EXPECT_EQ(screen(stable, 1050, 0, Direction::kHigher, metric).pValue, 1.0);
  EXPECT_NEAR(screeningLevel(), 0.00135, 1e-5);
}

// Verifies the screening distance against screen() itself: a trial just inside it is within
// noise, one just beyond is suspect, whether the 2% floor or three times the noise is larger.
TEST(Noise, ScreeningDistanceIsWhereScreenChangesItsVerdict) {
  const std::string metric = "effective_throughput";
  for (const double spreadOfPoints : {1.0, 20.0}) {
    std::vector<double> stable;
    for (int i = 0; i < 10; ++i) stable.push_back(1000 + (i % 2 == 0 ? 1 : -1) * spreadOfPoints);
    const NoiseModel model = noiseOf(stable);
    const double distance = screeningDistance(model.median, model.scale);
    EXPECT_EQ(
        screen(stable, model.median - distance * 0.999, 0, Direction::kHigher, metric).verdict,
        Screen::kWithinNoise)
        << spreadOfPoints;
    EXPECT_EQ(
        screen(stable, model.median - distance * 1.001, 0, Direction::kHigher, metric).verdict,
        Screen::kSuspect)
        << spreadOfPoints;
  }
}

// Verifies the Benjamini-Hochberg procedure: a worked case, one p-value, and order.
TEST(Noise, FalseDiscoveries) {
  // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. The third smallest (0.03) passes
  // its 0.03, so the three smallest are discoveries, although the second (0.025) misses its 0.02.
  EXPECT_EQ(falseDiscoveries(std::vector<double>{0.5, 0.03, 0.008, 0.025, 0.2}, 0.05),
            (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(falseDiscoveries(std::vector<double>{0.001}, 0.00135), std::vector<bool>{true});
  EXPECT_EQ(falseDiscoveries(std::vector<double>{0.002}, 0.00135), std::vector<bool>{false});
  // What one trial alone would be, among 20 trials of which the rest are quiet, is not.
  std::vector<double> matrix(20, 0.6);
  matrix[7] = 0.001;
  EXPECT_FALSE(falseDiscoveries(matrix, 0.00135)[7]);
  EXPECT_TRUE(falseDiscoveries(std::vector<double>{}, 0.05).empty());
}

}  // namespace
}  // namespace hetbench::results
