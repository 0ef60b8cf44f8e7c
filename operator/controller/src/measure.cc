#include "hetbench/controller/measure.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "hetbench/results/parser.h"

namespace hetbench::controller {
namespace {

namespace fs = std::filesystem;

bool hasEpochsOrErrors(const results::ParsedLog& log) {
  return !log.epochs.empty() || !log.errors.empty() || log.run.has_value();
}

}  // namespace

UnitMeasurement measureUnit(const fs::path& unitDir, const std::vector<results::MetricSpec>& specs,
                            const results::AggregationOptions& options,
                            const std::vector<std::string>& required) {
  UnitMeasurement out;
  std::unique_ptr<results::LogParser> hetbench = results::makeHetbenchParser();
  std::unique_ptr<results::LogParser> mlperf = results::makeMlperfParser();
  std::unique_ptr<results::LogParser> patterns;
  if (!specs.empty()) {
    common::Result<std::unique_ptr<results::LogParser>> made = results::makePatternParser(specs);
    if (!made.isOk()) {
      out.status = made.status();
      return out;
    }
    patterns = std::move(made).value();
  }

  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(unitDir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".log") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string source = fs::relative(file, unitDir, ec).generic_string();
    std::ifstream in(file, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
      hetbench->consume(source, line);
      mlperf->consume(source, line);
      if (patterns) patterns->consume(source, line);
    }
  }

  const results::ParsedLog fromHetbench = hetbench->result();
  results::ParsedLog log = hasEpochsOrErrors(fromHetbench) ? fromHetbench : mlperf->result();
  if (patterns) {
    results::ParsedLog matched = patterns->result();
    log.errors.insert(log.errors.end(), matched.errors.begin(), matched.errors.end());
    log.errorsOmitted += matched.errorsOmitted;
    for (const auto& [name, value] : matched.scalars) log.scalars[name] = value;
  }
  common::Result<results::RepetitionMetrics> repetition =
      results::aggregateRepetition(log, options);
  if (!repetition.isOk()) {
    out.status = repetition.status();
    return out;
  }
  out.summary = results::summarize(repetition.value());
  for (const std::string& name : required) {
    if (!repetition.value().values.contains(name)) out.missing.push_back(name);
  }
  return out;
}

std::vector<TrialResult> judgeTrials(
    const std::vector<UnitRecord>& units,
    const std::function<results::References(std::int64_t trial)>& referencesOf,
    const std::vector<std::string>& required) {
  std::map<std::int64_t, std::vector<const UnitRecord*>> byTrial;
  for (const UnitRecord& unit : units) byTrial[unit.trial].push_back(&unit);
  std::vector<TrialResult> out;
  for (const auto& [trial, records] : byTrial) {
    const bool ready = std::all_of(records.begin(), records.end(), [](const UnitRecord* u) {
      return isTerminal(u->phase) && !awaitsMetrics(*u);
    });
    if (!ready) continue;
    std::vector<results::MetricValues> values;
    for (const UnitRecord* unit : records) {
      if (unit->phase == UnitPhase::kSucceeded)
        values.push_back(results::unitSummaryFromJson(unit->metrics).values);
    }
    if (values.empty()) continue;
    TrialResult result;
    result.trial = trial;
    result.metrics = results::aggregateTrial(values);
    result.verdict = results::judgeTrial(result.metrics, referencesOf(trial), required);
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace hetbench::controller
