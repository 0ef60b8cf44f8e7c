#include "hetbench/results/confirm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace hetbench::results {
namespace {

/// The share of `s` at or below `x`.
double below(const std::vector<double>& s, double x) {
  return static_cast<double>(std::count_if(s.begin(), s.end(), [x](double v) { return v <= x; })) /
         static_cast<double>(s.size());
}

/// The largest distance between the empirical distribution functions, directly.
double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (const std::vector<double>* side : {&a, &b}) {
    for (const double x : *side) largest = std::max(largest, std::abs(below(a, x) - below(b, x)));
  }
  return largest;
}

/// The exact p-value by enumerating every way to split the pooled values into the two sizes.
double enumerated(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const double observed = distance(a, b);
  std::vector<bool> inA(pooled.size(), false);
  std::fill(inA.begin(), inA.begin() + static_cast<std::ptrdiff_t>(a.size()), true);
  std::sort(inA.begin(), inA.end());
  int total = 0;
  int asFar = 0;
  do {
    std::vector<double> x;
    std::vector<double> y;
    for (std::size_t i = 0; i < pooled.size(); ++i) (inA[i] ? x : y).push_back(pooled[i]);
    ++total;
    if (distance(x, y) >= observed - 1e-12) ++asFar;
  } while (std::next_permutation(inA.begin(), inA.end()));
  return static_cast<double>(asFar) / total;
}

// Verifies the Kolmogorov-Smirnov test against a case worked by hand and against enumerating
// every split of small samples.
TEST(KolmogorovSmirnov, PValues) {
  // {1, 2, 3} against {4, 5, 6}: 2 of the 20 splits are as far apart.
  EXPECT_NEAR(kolmogorovSmirnovPValue(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}),
              0.1, 1e-12);
  // A suspect trial and one rerun, both below 20 stable trials: 2 of C(22, 2) = 231.
  std::vector<double> stable;
  for (int i = 0; i < 20; ++i) stable.push_back(1000 + i);
  EXPECT_NEAR(kolmogorovSmirnovPValue(stable, std::vector<double>{900, 905}), 2.0 / 231, 1e-12);
  EXPECT_DOUBLE_EQ(kolmogorovSmirnovPValue(std::vector<double>{1, 2}, std::vector<double>{1, 2}),
                   1.0);
  EXPECT_DOUBLE_EQ(kolmogorovSmirnovPValue(std::vector<double>{}, std::vector<double>{1}), 1.0);
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1, 4, 6, 9}, {2, 3, 5}},
      {{10, 11, 12, 13, 14}, {12.5, 13.5, 20}},
      {{3, 1, 4, 1.5, 9, 2.6}, {5, 3.5, 8.9, 7.9}},
      {{1, 2, 3, 4, 5, 6, 7}, {8}},
  };
  for (const auto& [a, b] : cases) {
    EXPECT_NEAR(kolmogorovSmirnovPValue(a, b), enumerated(a, b), 1e-12);
    EXPECT_NEAR(kolmogorovSmirnovPValue(b, a), enumerated(a, b), 1e-12);
  }
}

// Verifies what reruns say against the stable trials.
TEST(CompareSamples, Table) {
  std::vector<double> stable;
  for (int i = 0; i < 20; ++i) stable.push_back(1000 + 3 * std::sin(i * 2.3));
  struct Case {
    std::string name;
    std::vector<double> sample;
    Comparison want;
  };
  const std::vector<Case> cases = {
      {"one slow value cannot be significant", {900}, Comparison::kUndecided},
      {"a suspect and a slow rerun", {900, 903}, Comparison::kDifferent},
      {"a suspect and a normal rerun: the median is between", {900, 1001}, Comparison::kUndecided},
      {"a blip and two normal reruns", {900, 1001, 999}, Comparison::kSame},
      {"one normal value is not enough for Same", {1000}, Comparison::kUndecided},
      {"two normal values", {1001, 998}, Comparison::kSame},
      {"a significant 1% change is within the practical minimum",
       {990, 991, 989},
       Comparison::kSame},
      {"faster is different too", {1100, 1103}, Comparison::kDifferent},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(toString(compareSamples(stable, c.sample).verdict), toString(c.want)) << c.name;
  }
  const SampleComparison slow = compareSamples(stable, std::vector<double>{900, 903});
  EXPECT_NEAR(slow.change, 901.5 / 1000.0 - 1, 0.005);
  EXPECT_NEAR(slow.mannWhitney, 2.0 / 231, 1e-12);
  EXPECT_NEAR(slow.kolmogorovSmirnov, 2.0 / 231, 1e-12);
  // Same is shown, not assumed: against a baseline with 1% noise, two values 1.25% below could
  // still be 2% below (the bound of their median's error is 1.5%); four values 0.5% below are not.
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(1000 + 10 * std::sin(i * 2.3));
  EXPECT_EQ(compareSamples(noisy, std::vector<double>{985, 990}).verdict, Comparison::kUndecided);
  EXPECT_EQ(compareSamples(noisy, std::vector<double>{994, 996, 995, 995}).verdict,
            Comparison::kSame);
  // Either test can show a difference: four values well below and one at the top, which the
  // Kolmogorov-Smirnov test sees (p 0.0053) and the Mann-Whitney U test does not (p 0.035).
  const SampleComparison split =
      compareSamples(stable, std::vector<double>{960, 961, 962, 963, 1002.9});
  EXPECT_NEAR(split.kolmogorovSmirnov, 0.0053, 1e-4);
  EXPECT_NEAR(split.mannWhitney, 0.0351, 1e-4);
  EXPECT_EQ(split.verdict, Comparison::kDifferent);
  // A stricter p needs more reruns.
  EXPECT_EQ(compareSamples(stable, std::vector<double>{900, 903}, {.maxPValue = 0.001}).verdict,
            Comparison::kUndecided);
  EXPECT_EQ(
      compareSamples(stable, std::vector<double>{900, 903, 902}, {.maxPValue = 0.001}).verdict,
      Comparison::kUndecided);  // 2 / C(23, 3) = 0.0011
  EXPECT_EQ(
      compareSamples(stable, std::vector<double>{900, 903, 902, 901}, {.maxPValue = 0.001}).verdict,
      Comparison::kDifferent);
}

}  // namespace
}  // namespace hetbench::results
