#include "hetbench/results/summary.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "numbers.h"

namespace hetbench::results {
namespace {

using nlohmann::json;

// The bytes `"name":value,` takes in the summary's JSON.
std::size_t entryBytes(const std::string& name, double value) {
  return json(name).dump().size() + 1 + json(value).dump().size() + 1;
}

std::int64_t countOf(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

}  // namespace

UnitSummary summarize(const RepetitionMetrics& repetition, const std::vector<std::string>& judged) {
  UnitSummary out;
  out.epochs = repetition.epochsMeasured;
  out.invalid = repetition.invalid;
  auto isJudged = [&](const std::string& name) {
    return std::find(judged.begin(), judged.end(), name) != judged.end();
  };
  for (const std::string& name : judged) {
    const auto it = repetition.values.find(name);
    if (it != repetition.values.end() && std::isfinite(it->second)) out.values.emplace(*it);
  }
  std::vector<std::pair<std::string, double>> ordered;
  for (const BuiltinMetric& metric : kBuiltinMetrics) {
    const auto it = repetition.values.find(std::string(metric.name));
    if (it != repetition.values.end() && !isJudged(it->first)) ordered.emplace_back(*it);
  }
  for (const auto& [name, value] : repetition.values) {
    if (builtinMetric(name) == nullptr && !isJudged(name)) ordered.emplace_back(name, value);
  }
  std::size_t bytes = 2;  // {}
  for (const auto& [name, value] : ordered) {
    const double rounded = internal::roundSignificant(value, kSummaryDigits);
    const std::size_t more = entryBytes(name, rounded);
    if (!std::isfinite(rounded) || bytes + more > kMaxSummaryValueBytes) {
      ++out.omitted;
      continue;
    }
    bytes += more;
    out.values.emplace(name, rounded);
  }
  return out;
}

json toJson(const UnitSummary& summary) {
  json out = {{"values", json::object()}};
  for (const auto& [name, value] : summary.values) out["values"][name] = value;
  if (summary.epochs > 0) out["epochs"] = summary.epochs;
  if (summary.omitted > 0) out["omitted"] = summary.omitted;
  if (!summary.invalid.empty()) out["invalid"] = summary.invalid;
  return out;
}

UnitSummary unitSummaryFromJson(const json& in) {
  UnitSummary out;
  if (!in.is_object()) return out;
  const auto values = in.find("values");
  if (values != in.end() && values->is_object()) {
    for (const auto& [name, value] : values->items()) {
      if (value.is_number()) out.values.emplace(name, value.get<double>());
    }
  }
  out.epochs = countOf(in, "epochs");
  out.omitted = countOf(in, "omitted");
  const auto invalid = in.find("invalid");
  if (invalid != in.end() && invalid->is_string()) out.invalid = invalid->get<std::string>();
  return out;
}

}  // namespace hetbench::results
