#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "hetbench/results/metrics.h"

namespace hetbench::results {

/// Significant digits that summaries keep: far below run-to-run noise, and short in JSON.
inline constexpr int kSummaryDigits = 5;
/// The most bytes the values of one summary take in JSON, so that status.trials[] of a run of
/// 1000 units stays far below etcd's object size limit.
inline constexpr std::size_t kMaxSummaryValueBytes = 512;

/// What status.trials[].metrics holds for one unit: its metric values and no raw data. The
/// metrics a verdict is drawn from (`judged`) are kept exact and always; the others are rounded
/// to kSummaryDigits, built-in metrics first (headline first), then by name, as long as they fit
/// kMaxSummaryValueBytes; those that do not are counted in `omitted`.
struct UnitSummary {
  MetricValues values;
  std::int64_t epochs = 0;  // epochs measured
  std::int64_t omitted = 0;
  /// Why the unit's measured epochs cannot be judged (RepetitionMetrics::invalid); "" when they
  /// can.
  std::string invalid = {};

  bool operator==(const UnitSummary&) const = default;
};

UnitSummary summarize(const RepetitionMetrics& repetition,
                      const std::vector<std::string>& judged = {});

/// {"values": {...}, "epochs": n, "omitted": k, "invalid": "..."}; `epochs` and `omitted` only
/// when above 0, `invalid` only when set.
nlohmann::json toJson(const UnitSummary& summary);

/// Reads what toJson wrote, so that a trial's statistics can be rebuilt from the run's status
/// after a restart; fields that are missing or of the wrong type read as empty. Never throws.
UnitSummary unitSummaryFromJson(const nlohmann::json& json);

}  // namespace hetbench::results
