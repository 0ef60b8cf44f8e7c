#include "hetbench/results/reference.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "hetbench/common/field_errors.h"
#include "numbers.h"
#include "spec_fields.h"

namespace hetbench::results {
namespace {

using common::StatusCause;
using internal::member;
using nlohmann::json;

constexpr Direction kDirections[] = {Direction::kHigher, Direction::kLower};

// Bounds are inclusive; this much relative slack keeps a value exactly on a bound from failing
// on the rounding of value × (1 − lower).
constexpr double kBoundSlack = 1e-9;

// A number of spec.references; a cause when it is not one.
std::optional<double> number(const json& v, const std::string& field,
                             std::vector<StatusCause>& causes) {
  if (v.is_number()) return v.get<double>();
  causes.push_back(common::schemaTypeCause(field, v, "number"));
  return std::nullopt;
}

// An integer member of fromHistory within [low, high]; a cause otherwise.
std::optional<std::int64_t> boundedInteger(const json& v, const std::string& field,
                                           std::int64_t low, std::int64_t high,
                                           std::vector<StatusCause>& causes) {
  if (!v.is_number_integer()) {
    causes.push_back(common::schemaTypeCause(field, v, "integer"));
    return std::nullopt;
  }
  const std::int64_t n = v.get<std::int64_t>();
  if (n < low || n > high) {
    causes.push_back(common::invalidCause(
        field, v, "must be between " + std::to_string(low) + " and " + std::to_string(high)));
    return std::nullopt;
  }
  return n;
}

constexpr HistoryBaseline::Statistic kStatistics[] = {HistoryBaseline::Statistic::kMedian,
                                                      HistoryBaseline::Statistic::kMean};

std::optional<HistoryBaseline> readHistory(const json& entry, const std::string& field,
                                           std::vector<StatusCause>& causes) {
  if (!entry.is_object()) {
    causes.push_back(common::schemaTypeCause(field, entry, "object"));
    return std::nullopt;
  }
  HistoryBaseline out;
  if (const json* v = member(entry, "runs")) {
    out.runs = boundedInteger(*v, field + ".runs", 1, 100, causes).value_or(out.runs);
  }
  out.minRuns = std::min(out.minRuns, out.runs);
  if (const json* v = member(entry, "minRuns")) {
    out.minRuns = boundedInteger(*v, field + ".minRuns", 1, out.runs, causes).value_or(out.minRuns);
  }
  if (const json* v = member(entry, "statistic")) {
    out.statistic =
        internal::oneOf(*v, kStatistics, field + ".statistic", causes).value_or(out.statistic);
  }
  return out;
}

// One entry of spec.references; causes are appended to `causes`.
std::optional<Reference> readReference(const std::string& name, const json& entry,
                                       const MetricUnits& units, std::vector<StatusCause>& causes) {
  const std::string field = "spec.references." + name;
  if (!entry.is_object()) {
    causes.push_back(common::schemaTypeCause(field, entry, "object"));
    return std::nullopt;
  }
  const std::size_t before = causes.size();
  Reference ref;
  const json* history = member(entry, "fromHistory");
  if (history != nullptr) {
    ref.fromHistory = readHistory(*history, field + ".fromHistory", causes);
    if (member(entry, "value") != nullptr) {
      causes.push_back(common::invalidCause(field + ".value", *member(entry, "value"),
                                            "must be absent when fromHistory gives the value"));
    }
  } else if (const json* v = member(entry, "value"); v == nullptr) {
    causes.push_back(common::requiredCause(field + ".value"));
  } else if (const std::optional<double> d = number(*v, field + ".value", causes)) {
    if (*d > 0) {
      ref.value = *d;
    } else {
      causes.push_back(common::invalidCause(field + ".value", *v, "must be greater than 0"));
    }
  }
  if (const json* v = member(entry, "lower")) {
    if (const std::optional<double> d = number(*v, field + ".lower", causes)) {
      if (*d >= 0 && *d <= 1) {
        ref.lower = *d;
      } else {
        causes.push_back(common::invalidCause(
            field + ".lower", *v,
            "must be between 0 and 1, a fraction of value (0.05 allows 5% below it)"));
      }
    }
  }
  if (const json* v = member(entry, "upper")) {
    if (const std::optional<double> d = number(*v, field + ".upper", causes)) {
      if (*d >= 0) {
        ref.upper = *d;
      } else {
        causes.push_back(common::invalidCause(
            field + ".upper", *v,
            "must be greater than or equal to 0, a fraction of value (0.1 allows 10% above it)"));
      }
    }
  }
  const auto known = units.find(name);
  if (known != units.end()) ref.unit = known->second;
  if (const json* v = member(entry, "unit")) {
    if (!v->is_string()) {
      causes.push_back(common::schemaTypeCause(field + ".unit", *v, "string"));
    } else if (known != units.end() && *v != known->second) {
      causes.push_back(common::invalidCause(
          field + ".unit", v->get<std::string>(),
          "must be " + common::goQuote(known->second) + ", the unit of " + name));
    } else {
      ref.unit = v->get<std::string>();
    }
  }
  if (const json* v = member(entry, "direction")) {
    ref.direction =
        internal::oneOf(*v, kDirections, field + ".direction", causes).value_or(ref.direction);
  }
  if (causes.size() != before) return std::nullopt;
  return ref;
}

// A fraction as a percentage with at most one decimal: 0.0876 -> "8.8".
std::string percent(double fraction) {
  return internal::formatNumber(std::round(fraction * 1000) / 10);
}

// MetricMissing unless every repetition has the metric.
std::optional<MetricCheck> missingCheck(const std::string& name, const TrialMetrics& trial) {
  const auto it = trial.metrics.find(name);
  const std::int64_t have = it == trial.metrics.end() ? 0 : it->second.n;
  if (have > 0 && have >= trial.repetitions) return std::nullopt;
  std::string message = name + " is missing from ";
  message += have == 0 ? std::string("the log")
                       : std::to_string(trial.repetitions - have) + " of " +
                             std::to_string(trial.repetitions) + " repetitions";
  return MetricCheck{name, Verdict::kMetricMissing, std::move(message)};
}

// Pass for a mean within the band when the repetitions show it there: the one-sided 95%
// confidence bound of the mean on the worse side lies within the band's worse side too (a
// non-inferiority test); Inconclusive when it does not.
MetricCheck shownWithin(const std::string& name, const MetricStats& stats, const Reference& ref,
                        std::string message) {
  const bool higher = ref.direction == Direction::kHigher;
  const std::optional<double>& bound = higher ? ref.lower : ref.upper;
  if (stats.n < 2 || !bound) return {name, Verdict::kPass, std::move(message)};
  const double margin =
      studentT95(stats.n - 1) * stats.stddev / std::sqrt(static_cast<double>(stats.n));
  const double worst = higher ? stats.mean - margin : stats.mean + margin;
  const double limit = higher ? ref.value * (1 - *bound) : ref.value * (1 + *bound);
  const double slack = kBoundSlack * ref.value;
  const bool shown = higher ? worst >= limit - slack : worst <= limit + slack;
  if (shown) return {name, Verdict::kPass, std::move(message)};
  message += ": within the band, but the 95% confidence bound of the mean, " +
             internal::formatNumber(worst) + ", is beyond " + internal::formatNumber(limit) +
             "; more repetitions would tell";
  return {name, Verdict::kInconclusive, std::move(message)};
}

MetricCheck compare(const std::string& name, const MetricStats& stats, const Reference& ref) {
  std::string message = name + " " + internal::formatNumber(stats.mean);
  if (!ref.unit.empty()) message += " " + ref.unit;
  if (stats.n > 1) message += " (mean of " + std::to_string(stats.n) + ")";
  if (ref.value <= 0) {
    return {name, Verdict::kNoReference, message + " has no reference yet: " + ref.basis};
  }
  if (!ref.basis.empty()) message += ", against " + ref.basis + ",";
  if (stats.mean == ref.value) {
    return shownWithin(name, stats, ref,
                       message + " equals the reference " + internal::formatNumber(ref.value));
  }
  const bool below = stats.mean < ref.value;
  message += " is " + percent(std::abs(stats.mean - ref.value) / ref.value) + "% " +
             (below ? "below" : "above") + " the reference " + internal::formatNumber(ref.value);
  const std::optional<double>& bound = below ? ref.lower : ref.upper;
  if (!bound) {
    message += below ? " (no lower bound)" : " (no upper bound)";
    return shownWithin(name, stats, ref, std::move(message));
  }
  message += std::string(" (allowed ") + (below ? "\u2212" : "+") + percent(*bound) + "%)";
  const double slack = kBoundSlack * ref.value;
  const bool outside = below ? stats.mean < ref.value * (1 - *bound) - slack
                             : stats.mean > ref.value * (1 + *bound) + slack;
  if (!outside) return shownWithin(name, stats, ref, std::move(message));
  const bool worse = below == (ref.direction == Direction::kHigher);
  if (worse) return {name, Verdict::kRegressed, std::move(message)};
  message += ": an improvement beyond the band; update the reference if it holds";
  return {name, Verdict::kPass, std::move(message)};
}

}  // namespace

double studentT95(std::int64_t degrees) {
  // The tables' values up to 30 degrees of freedom; beyond, the Cornish-Fisher expansion about
  // the normal quantile, within 1e-4 of them there.
  static constexpr double kTable[] = {
      6.3138, 2.9200, 2.3534, 2.1318, 2.0150, 1.9432, 1.8946, 1.8595, 1.8331, 1.8125,
      1.7959, 1.7823, 1.7709, 1.7613, 1.7531, 1.7459, 1.7396, 1.7341, 1.7291, 1.7247,
      1.7207, 1.7171, 1.7139, 1.7109, 1.7081, 1.7056, 1.7033, 1.7011, 1.6991, 1.6973};
  const std::int64_t df = std::max<std::int64_t>(degrees, 1);
  if (df <= 30) return kTable[df - 1];
  const double z = 1.6448536;
  const double v = static_cast<double>(df);
  const double z3 = z * z * z;
  const double z5 = z3 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
}

std::string toString(Direction direction) {
  return direction == Direction::kHigher ? "higher" : "lower";
}

std::string toString(HistoryBaseline::Statistic statistic) {
  return statistic == HistoryBaseline::Statistic::kMedian ? "median" : "mean";
}

double baselineOf(HistoryBaseline::Statistic statistic, std::vector<double> values) {
  if (statistic == HistoryBaseline::Statistic::kMean) {
    double sum = 0;
    for (double v : values) sum += v;
    return sum / static_cast<double>(values.size());
  }
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string toString(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNoReference:
      return "NoReference";
    case Verdict::kPass:
      return "Pass";
    case Verdict::kInconclusive:
      return "Inconclusive";
    case Verdict::kRegressed:
      return "Regressed";
    case Verdict::kInvalid:
      return "Invalid";
    case Verdict::kMetricMissing:
      return "MetricMissing";
  }
  return "Unknown";
}

common::Result<References> parseReferences(const json& references, const MetricUnits& units) {
  References out;
  if (references.is_null()) return out;
  if (!references.is_object()) {
    return common::invalidStatus(
        {common::schemaTypeCause("spec.references", references, "object")});
  }
  std::vector<StatusCause> causes;
  for (const auto& [name, entry] : references.items()) {
    if (entry.is_null()) continue;
    if (!isMetricName(name)) {
      causes.push_back(
          common::invalidCause("spec.references", name, std::string(internal::kMetricNameRule)));
      continue;
    }
    if (std::optional<Reference> ref = readReference(name, entry, units, causes)) {
      out.emplace(name, std::move(*ref));
    }
  }
  if (!causes.empty()) return common::invalidStatus(std::move(causes));
  return out;
}

TrialVerdict judgeTrial(const TrialMetrics& trial, const References& references,
                        const std::vector<std::string>& required) {
  std::set<std::string> names(required.begin(), required.end());
  for (const auto& [name, ref] : references) names.insert(name);
  TrialVerdict out;
  for (const std::string& name : names) {
    std::optional<MetricCheck> check = missingCheck(name, trial);
    const auto ref = references.find(name);
    if (!check && ref == references.end()) continue;
    if (!check) check = compare(name, trial.metrics.at(name), ref->second);
    out.verdict = std::max(out.verdict, check->verdict);
    out.checks.push_back(std::move(*check));
  }
  return out;
}

Verdict runVerdict(const std::vector<Verdict>& trials) {
  Verdict out = Verdict::kNoReference;
  for (Verdict v : trials) out = std::max(out, v);
  return out;
}

}  // namespace hetbench::results
