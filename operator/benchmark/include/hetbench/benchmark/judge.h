#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetbench/benchmark/run.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/reference.h"

namespace hetbench::benchmark {

/// One trial's statistics over its succeeded repetitions and its verdict.
struct JudgedTrial {
  std::int64_t trial = 0;
  results::TrialMetrics metrics;
  results::TrialVerdict verdict;
};

/// Judges every trial whose units have all ended and whose succeeded units have been measured,
/// in trial order, against the references that `referencesOf` gives for the trial, from the
/// values the units' summaries keep (exact for the `required` metrics). A trial with a
/// repetition whose summary says it is invalid is Invalid (MetricMissing stays MetricMissing),
/// with the first such repetition's reason. A trial none of whose repetitions succeeded is left
/// out.
std::vector<JudgedTrial> judgeTrials(
    const std::vector<UnitRecord>& units,
    const std::function<results::References(std::int64_t trial)>& referencesOf,
    const std::vector<std::string>& required);

}  // namespace hetbench::benchmark
