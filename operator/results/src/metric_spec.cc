#include "hetbench/results/metric_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "hetbench/common/field_errors.h"
#include "pattern.h"
#include "spec_fields.h"

namespace hetbench::results {
namespace {

using common::StatusCause;
using internal::member;
using nlohmann::json;

constexpr Reduce kReductions[] = {Reduce::kFirst, Reduce::kLast, Reduce::kMin,
                                  Reduce::kMax,   Reduce::kMean, Reduce::kSum};

// One entry of spec.metrics; causes are appended to `causes`.
std::optional<MetricSpec> readSpec(const json& entry, const std::string& field,
                                   std::set<std::string>& names, std::vector<StatusCause>& causes) {
  if (!entry.is_object()) {
    causes.push_back(common::schemaTypeCause(field, entry, "object"));
    return std::nullopt;
  }
  const std::size_t before = causes.size();
  MetricSpec spec;
  if (const json* name = member(entry, "name"); name == nullptr) {
    causes.push_back(common::requiredCause(field + ".name"));
  } else if (!name->is_string()) {
    causes.push_back(common::schemaTypeCause(field + ".name", *name, "string"));
  } else if (spec.name = name->get<std::string>(); !isMetricName(spec.name)) {
    causes.push_back(
        common::invalidCause(field + ".name", spec.name, std::string(internal::kMetricNameRule)));
  } else if (!names.insert(spec.name).second) {
    causes.push_back(common::duplicateCause(field + ".name", spec.name));
  }
  // The group the pattern is checked for: the whole match when `group` itself is wrong, so
  // that one mistake is reported once.
  int checkedGroup = spec.group;
  if (const json* group = member(entry, "group")) {
    const std::optional<std::int64_t> n = common::integralValue(*group);
    checkedGroup = 0;
    if (!n) {
      causes.push_back(common::schemaTypeCause(field + ".group", *group, "integer"));
    } else if (*n < 0) {
      causes.push_back(
          common::invalidCause(field + ".group", *group, "must be greater than or equal to 0"));
    } else {
      spec.group = static_cast<int>(std::min<std::int64_t>(*n, std::numeric_limits<int>::max()));
      checkedGroup = spec.group;
    }
  }
  if (const json* pattern = member(entry, "pattern"); pattern == nullptr) {
    causes.push_back(common::requiredCause(field + ".pattern"));
  } else if (!pattern->is_string()) {
    causes.push_back(common::schemaTypeCause(field + ".pattern", *pattern, "string"));
  } else if (spec.pattern = pattern->get<std::string>(); spec.pattern.empty()) {
    causes.push_back(common::requiredCause(field + ".pattern"));
  } else if (spec.pattern.size() > kMaxPatternBytes) {
    causes.push_back(common::tooLongCause(field + ".pattern", kMaxPatternBytes));
  } else if (const internal::CompiledPattern compiled =
                 internal::compilePattern(spec.pattern, checkedGroup);
             !compiled.error.empty()) {
    causes.push_back(common::invalidCause(field + ".pattern", spec.pattern, compiled.error));
  }
  const BuiltinMetric* known = builtinMetric(spec.name);
  if (known != nullptr) spec.unit = known->unit;
  if (const json* unit = member(entry, "unit")) {
    if (!unit->is_string()) {
      causes.push_back(common::schemaTypeCause(field + ".unit", *unit, "string"));
    } else if (unit->get_ref<const std::string&>().size() > kMaxUnitBytes) {
      causes.push_back(common::tooLongCause(field + ".unit", kMaxUnitBytes));
    } else if (known != nullptr && *unit != known->unit) {
      causes.push_back(common::invalidCause(field + ".unit", unit->get<std::string>(),
                                            "must be " + common::goQuote(known->unit) +
                                                ", the unit of the built-in metric " + spec.name));
    } else {
      spec.unit = unit->get<std::string>();
    }
  }
  if (const json* reduce = member(entry, "reduce")) {
    spec.reduce =
        internal::oneOf(*reduce, kReductions, field + ".reduce", causes).value_or(spec.reduce);
  }
  if (const json* required = member(entry, "required")) {
    if (required->is_boolean()) {
      spec.required = required->get<bool>();
    } else {
      causes.push_back(common::schemaTypeCause(field + ".required", *required, "boolean"));
    }
  }
  if (causes.size() != before) return std::nullopt;
  return spec;
}

}  // namespace

std::string toString(Reduce reduce) {
  switch (reduce) {
    case Reduce::kFirst:
      return "first";
    case Reduce::kLast:
      return "last";
    case Reduce::kMin:
      return "min";
    case Reduce::kMax:
      return "max";
    case Reduce::kMean:
      return "mean";
    case Reduce::kSum:
      return "sum";
  }
  return "unknown";
}

common::Result<std::vector<MetricSpec>> parseMetricSpecs(const json& metrics) {
  std::vector<MetricSpec> specs;
  if (metrics.is_null()) return specs;
  if (!metrics.is_array()) {
    return common::invalidStatus({common::schemaTypeCause("spec.metrics", metrics, "array")});
  }
  if (metrics.size() > kMaxMetricSpecs) {
    return common::invalidStatus(
        {{"spec.metrics", "FieldValueTooMany",
          "Too many: " + std::to_string(metrics.size()) + ": must have at most " +
              std::to_string(kMaxMetricSpecs) + " items"}});
  }
  std::vector<StatusCause> causes;
  std::set<std::string> names;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const std::string field = "spec.metrics[" + std::to_string(i) + "]";
    if (std::optional<MetricSpec> spec = readSpec(metrics[i], field, names, causes)) {
      specs.push_back(std::move(*spec));
    }
  }
  if (!causes.empty()) return common::invalidStatus(std::move(causes));
  return specs;
}

common::Status validateMetricSpecs(const json& metrics) {
  return parseMetricSpecs(metrics).status();
}

MetricUnits metricUnits(const std::vector<MetricSpec>& specs) {
  MetricUnits units;
  for (const BuiltinMetric& metric : kBuiltinMetrics) {
    units.emplace(std::string(metric.name), std::string(metric.unit));
  }
  for (const MetricSpec& spec : specs) units[spec.name] = spec.unit;
  return units;
}

std::vector<std::string> requiredMetrics(const std::vector<MetricSpec>& specs) {
  std::vector<std::string> names;
  for (const MetricSpec& spec : specs) {
    if (spec.required) names.push_back(spec.name);
  }
  return names;
}

}  // namespace hetbench::results
