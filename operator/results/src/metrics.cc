#include "hetbench/results/metrics.h"

#include <cstddef>

namespace hetbench::results {
namespace {

constexpr std::size_t kMaxMetricName = 63;

}  // namespace

bool isMetricName(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || name.size() > kMaxMetricName || digit(name.front())) return false;
  for (char c : name) {
    if (!letter(c) && !digit(c) && c != '_') return false;
  }
  return true;
}

const BuiltinMetric* builtinMetric(std::string_view name) {
  for (const BuiltinMetric& metric : kBuiltinMetrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

}  // namespace hetbench::results
