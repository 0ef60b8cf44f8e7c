#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/results/metrics.h"

namespace hetbench::results {

/// How the values a pattern matches in one log become the metric's value.
enum class Reduce { kFirst, kLast, kMin, kMax, kMean, kSum };

/// "first", "last", "min", "max", "mean", "sum": the spellings of spec.metrics[].reduce.
std::string toString(Reduce reduce);

/// One entry of spec.metrics: a metric read from a log with a regular expression (RE2 syntax),
/// ReFrame-style.
struct MetricSpec {
  std::string name;
  std::string pattern;
  std::string unit;
  Reduce reduce = Reduce::kMean;
  int group = 1;  // the capture group holding the number; 0 is the whole match
  bool required = true;

  bool operator==(const MetricSpec&) const = default;
};

inline constexpr std::size_t kMaxMetricSpecs = 32;
inline constexpr std::size_t kMaxPatternBytes = 1024;
inline constexpr std::size_t kMaxUnitBytes = 32;

/// Parses spec.metrics (an array; null reads as empty). Each entry needs `name` (a metric name,
/// unique) and `pattern`, which must compile under RE2 and have the capture group `group`;
/// `unit`, `reduce` (default mean), `group` (default 1) and `required` (default true) are
/// optional. A spec named like a built-in metric gets, and must keep, the built-in's unit;
/// otherwise `unit` defaults to "". Null fields count as absent and unknown fields are ignored.
/// Errors are Invalid, one cause per problem naming its field (`spec.metrics[2].pattern`, with
/// RE2's message for a pattern that does not compile). Never throws.
common::Result<std::vector<MetricSpec>> parseMetricSpecs(const nlohmann::json& metrics);

/// parseMetricSpecs without the result: the controller's admission-time check.
common::Status validateMetricSpecs(const nlohmann::json& metrics);

/// The units of the built-in metrics and of `specs`, by metric name.
MetricUnits metricUnits(const std::vector<MetricSpec>& specs);

/// The names of the specs marked required, in spec order.
std::vector<std::string> requiredMetrics(const std::vector<MetricSpec>& specs);

}  // namespace hetbench::results
