// spec.metrics as the controller takes it, with fuzzed names, patterns, units, reductions and
// groups, then the accepted specs over a fuzzed log. Validation never throws and agrees with
// parsing; its causes name spec.metrics fields in UTF-8; an accepted spec list always gives a
// pattern reader, whose log is what RE2's own matches give, with finite metrics or none.
//
// The input: one spec per line up to a line "---", fields separated by tabs in the order name,
// pattern, unit, reduce, group, required (a field that reads as JSON is that JSON value, any
// other a string; missing fields are absent); then the log's lines.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/metrics.h"
#include "hetbench/results/parser.h"
#include "log_checks.h"
#include "pattern_oracle.h"

namespace {

namespace fuzz = hetbench::fuzz;
namespace results = hetbench::results;
using fuzz::fail;
using nlohmann::json;

constexpr const char* kFields[] = {"name", "pattern", "unit", "reduce", "group", "required"};

json fieldValue(std::string_view text) {
  std::size_t budget = fuzz::kMaxExpandedBytes;
  const std::string expanded = fuzz::expand(text, budget);
  try {
    return json::parse(expanded);
  } catch (const json::exception&) {
    return expanded;
  }
}

json specEntry(std::string_view line) {
  json entry = json::object();
  std::size_t field = 0;
  std::size_t at = 0;
  while (field < std::size(kFields) && at <= line.size()) {
    std::size_t end = line.find('\t', at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) entry[kFields[field]] = fieldValue(line.substr(at, end - at));
    ++field;
    at = end + 1;
  }
  return entry;
}

void checkUtf8(const std::string& text) {
  try {
    (void)json(text).dump();
  } catch (const json::exception&) {
    fail("a cause is not UTF-8");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::asText(data, size);
  const std::size_t split = input.find("\n---\n");
  const std::string_view specText = input.substr(0, split);
  const std::string_view logText =
      split == std::string_view::npos ? std::string_view() : input.substr(split + 5);

  json metrics = json::array();
  for (std::size_t at = 0; at <= specText.size();) {
    std::size_t end = specText.find('\n', at);
    if (end == std::string_view::npos) end = specText.size();
    metrics.push_back(specEntry(specText.substr(at, end - at)));
    at = end + 1;
  }

  const hetbench::common::Status valid = results::validateMetricSpecs(metrics);
  const hetbench::common::Result<std::vector<results::MetricSpec>> parsed =
      results::parseMetricSpecs(metrics);
  if (valid.isOk() != parsed.isOk()) fail("validation and parsing disagree");
  if (!parsed.isOk()) {
    const hetbench::common::Status status = parsed.status();
    if (!status.isInvalid()) fail("a refused spec that is not Invalid");
    checkUtf8(status.message());
    for (const hetbench::common::StatusCause& cause : status.causes()) {
      if (cause.field.rfind("spec.metrics", 0) != 0) fail("a cause outside spec.metrics");
      checkUtf8(cause.field);
      checkUtf8(cause.message);
    }
    return 0;
  }

  const std::vector<results::MetricSpec>& specs = parsed.value();
  if (specs.size() != metrics.size()) fail("an accepted spec list lost an entry");
  std::set<std::string> names;
  const results::MetricUnits units = results::metricUnits(specs);
  for (const results::MetricSpec& spec : specs) {
    if (!results::isMetricName(spec.name)) fail("an accepted name that is no metric name");
    if (!names.insert(spec.name).second) fail("an accepted duplicate name");
    if (spec.pattern.empty() || spec.pattern.size() > results::kMaxPatternBytes) {
      fail("an accepted pattern of the wrong size");
    }
    if (spec.unit.size() > results::kMaxUnitBytes) fail("an accepted unit too long");
    const results::BuiltinMetric* builtin = results::builtinMetric(spec.name);
    if (builtin != nullptr && spec.unit != builtin->unit) fail("a built-in metric's unit changed");
    if (units.at(spec.name) != spec.unit) fail("metricUnits disagrees with the spec");
  }

  hetbench::common::Result<std::unique_ptr<results::LogParser>> parser =
      results::makePatternParser(specs);
  if (!parser.isOk()) fail("accepted specs give no reader: " + parser.status().toString());
  const std::vector<fuzz::FuzzLine> lines = fuzz::fuzzLines(logText);
  for (const fuzz::FuzzLine& line : lines) (*parser)->consume(line.source, line.text);
  const results::ParsedLog log = (*parser)->result();
  fuzz::PatternOracle(specs).check(lines, log);
  fuzz::checkLog(log);
  return 0;
}
