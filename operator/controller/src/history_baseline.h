#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/results/reference.h"

namespace hetbench::controller::detail {

/// One trial's references with their fromHistory values resolved, and what to keep of the
/// resolution in the trial's status.results entry (`baselines`: per metric its value, how it was
/// found and from which runs), so that the verdict does not move when later runs finish.
struct ResolvedReferences {
  results::References references;
  nlohmann::json baselines = nlohmann::json::object();
};

/// Resolves the fromHistory references of trial `trial` of `run`. A baseline already kept in
/// `previous` (the trial's earlier status.results entry) stands; any other is the statistic of
/// the metric's trial means over the latest `runs` runs of `history` that were created before
/// `run`, finished, and hold a trial of the same configuration whose verdict was Pass or
/// NoReference. With fewer than minRuns of them the reference has value 0: no reference yet.
ResolvedReferences resolveHistory(const results::References& configured, const nlohmann::json& run,
                                  std::int64_t trial, const nlohmann::json& previous,
                                  const std::vector<nlohmann::json>& history);

/// A history reference as a status.results entry keeps it (value 0 when none was kept).
results::Reference frozenBaseline(const results::Reference& configured, const nlohmann::json& entry,
                                  const std::string& metric);

}  // namespace hetbench::controller::detail
