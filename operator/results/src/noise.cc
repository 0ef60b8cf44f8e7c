#include "hetbench/results/noise.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace hetbench::results {
namespace {

double medianOf(std::vector<double> values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2;
}

std::string format(const char* pattern, auto... values) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

}  // namespace

NoiseModel noiseOf(std::span<const double> points) {
  NoiseModel model;
  model.points = points.size();
  model.median = medianOf({points.begin(), points.end()});
  std::vector<double> deviations;
  deviations.reserve(points.size());
  for (const double p : points) deviations.push_back(std::abs(p - model.median));
  // 1.4826 = 1 / Φ⁻¹(3/4): the MAD of normal noise is 0.6745 of its standard deviation.
  model.scale = 1.4826 * medianOf(std::move(deviations));
  return model;
}

std::string toString(Screen screen) {
  switch (screen) {
    case Screen::kInsufficientHistory:
      return "InsufficientHistory";
    case Screen::kWithinNoise:
      return "WithinNoise";
    case Screen::kImproved:
      return "Improved";
    case Screen::kSuspect:
      return "Suspect";
  }
  return "Unknown";
}

Screening screen(std::span<const double> stable, double value, double spread, Direction direction,
                 const std::string& metric, const ScreeningOptions& options) {
  Screening out;
  const std::span<const double> recent =
      stable.size() > options.recentPoints ? stable.last(options.recentPoints) : stable;
  if (recent.size() < options.minPoints) {
    out.message = format("%s has %zu stable points; %zu are needed for a verdict", metric.c_str(),
                         recent.size(), options.minPoints);
    return out;
  }
  out.noise = noiseOf(recent);
  out.change = out.noise.median != 0 ? value / out.noise.median - 1 : 0;
  const double noise = std::max(out.noise.scale, spread);
  const double distance = std::abs(value - out.noise.median);
  out.scales = noise > 0 ? distance / noise : (distance > 0 ? INFINITY : 0);
  const bool large = std::abs(out.change) >= options.minChange && out.scales >= options.minScales;
  const bool worse = direction == Direction::kHigher ? out.change < 0 : out.change > 0;
  out.verdict = !large ? Screen::kWithinNoise : worse ? Screen::kSuspect : Screen::kImproved;
  if (worse) out.pValue = 0.5 * std::erfc(out.scales / std::sqrt(2.0));
  out.message = format(
      "%s %.1f is %.1f%% %s the median %.1f of %zu stable points, %.1f times "
      "their noise %.1f",
      metric.c_str(), value, std::abs(out.change) * 100, out.change < 0 ? "below" : "above",
      out.noise.median, out.noise.points, out.scales, noise);
  return out;
}

double screeningDistance(double median, double noise, const ScreeningOptions& options) {
  return std::max(options.minChange * std::abs(median), options.minScales * noise);
}

double screeningLevel(const ScreeningOptions& options) {
  return 0.5 * std::erfc(options.minScales / std::sqrt(2.0));
}

std::vector<bool> falseDiscoveries(std::span<const double> pValues, double q) {
  const std::size_t m = pValues.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pValues[a] < pValues[b]; });
  std::size_t discovered = 0;  // the largest k that passes
  for (std::size_t k = 1; k <= m; ++k) {
    if (pValues[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) {
      discovered = k;
    }
  }
  std::vector<bool> out(m, false);
  for (std::size_t k = 0; k < discovered; ++k) out[order[k]] = true;
  return out;
}

}  // namespace hetbench::results
