#include "hetbench/results/measure.h"

namespace hetbench::results {
namespace {

bool hasEpochsOrErrors(const ParsedLog& log) {
  return !log.epochs.empty() || !log.errors.empty() || log.run.has_value();
}

}  // namespace

common::Result<UnitMeasurer> UnitMeasurer::make(const std::vector<MetricSpec>& specs) {
  UnitMeasurer out;
  out.hetbench_ = makeHetbenchParser();
  out.mlperf_ = makeMlperfParser();
  if (!specs.empty()) {
    HETBENCH_ASSIGN_OR_RETURN(out.patterns_, makePatternParser(specs));
  }
  return out;
}

void UnitMeasurer::consume(std::string_view source, std::string_view line) {
  hetbench_->consume(source, line);
  mlperf_->consume(source, line);
  if (patterns_) patterns_->consume(source, line);
}

UnitMeasurement UnitMeasurer::finish(const AggregationOptions& options,
                                     const std::vector<std::string>& required) {
  UnitMeasurement out;
  const ParsedLog fromHetbench = hetbench_->result();
  ParsedLog log = hasEpochsOrErrors(fromHetbench) ? fromHetbench : mlperf_->result();
  if (patterns_) {
    ParsedLog matched = patterns_->result();
    log.errors.insert(log.errors.end(), matched.errors.begin(), matched.errors.end());
    log.errorsOmitted += matched.errorsOmitted;
    for (const auto& [name, value] : matched.scalars) log.scalars[name] = value;
  }
  common::Result<RepetitionMetrics> repetition = aggregateRepetition(log, options);
  if (!repetition.isOk()) {
    out.status = repetition.status();
    return out;
  }
  out.summary = summarize(repetition.value(), required);
  for (const std::string& name : required) {
    if (!repetition.value().values.contains(name)) out.missing.push_back(name);
  }
  return out;
}

}  // namespace hetbench::results
