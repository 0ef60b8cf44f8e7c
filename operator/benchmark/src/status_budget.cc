#include "hetbench/benchmark/status_budget.h"

#include <algorithm>
#include <limits>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/go_text.h"

namespace hetbench::benchmark {
namespace {

// The longest texts of a status that the floor counts, beyond those with a bound of their own
// (constants.h): a Kubernetes name, a node name as the kubelet registers it (the host name), and
// a history baseline's basis.
constexpr std::size_t kNameBytes = 63;
constexpr std::size_t kBasisBytes = 128;
// A uid and the longest numbers as JSON writes them.
constexpr std::size_t kUidBytes = 36;
constexpr double kLongestNumber = -1.2345678901234567e-300;
constexpr std::int64_t kLongestCount = std::numeric_limits<std::int64_t>::min();

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

results::MetricStats longestStats() {
  return {kLongestNumber, kLongestNumber, kLongestNumber, kLongestNumber, kLongestCount};
}

}  // namespace

std::size_t statusBytes(const RunStatus& status) {
  return toJson(status).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
}

std::size_t fitStatus(RunStatus& status, const std::vector<std::string>& judged,
                      std::size_t budget) {
  std::size_t bytes = statusBytes(status);
  if (bytes <= budget) return bytes;
  for (TrialResult& result : status.results) {
    std::erase_if(result.metrics,
                  [&](const auto& entry) { return !contains(judged, entry.first); });
  }
  bytes = statusBytes(status);
  if (bytes <= budget) return bytes;
  for (UnitRecord& unit : status.trials) {
    if (unit.message.size() > kTrimmedMessageBytes)
      unit.message = common::cutText(unit.message, kTrimmedMessageBytes);
  }
  bytes = statusBytes(status);
  if (bytes <= budget) return bytes;
  for (UnitRecord& unit : status.trials) {
    if (!unit.metrics) continue;
    unit.metrics->omitted += static_cast<std::int64_t>(std::erase_if(
        unit.metrics->values, [&](const auto& entry) { return !contains(judged, entry.first); }));
  }
  bytes = statusBytes(status);
  if (bytes <= budget) return bytes;
  for (UnitRecord& unit : status.trials) {
    unit.message.clear();
    if (unit.reason.size() > kTrimmedReasonBytes)
      unit.reason = common::cutText(unit.reason, kTrimmedReasonBytes);
  }
  for (TrialResult& result : status.results) {
    for (results::MetricCheck& check : result.checks) check.message.clear();
  }
  return statusBytes(status);
}

std::size_t statusFloorBytes(const RunRef& ref, const AcceptedRun& run,
                             const std::vector<Unit>& units,
                             const std::vector<std::int64_t>& podsPerUnit) {
  const common::WallTime when{};
  RunStatus status;
  status.phase = "Succeeded";
  status.observedGeneration = kLongestCount;
  status.trialsTotal = kLongestCount;
  status.trialsDone = kLongestCount;
  status.progress = std::to_string(units.size()) + "/" + std::to_string(units.size());
  status.startTime = status.completionTime = when;
  status.verdict = results::Verdict::kMetricMissing;
  status.latestEffectiveThroughput = kLongestNumber;
  for (std::string_view type : {condition::kAccepted, condition::kRunning, condition::kComplete,
                                condition::kFailed, condition::kRegressed}) {
    setCondition(status.conditions, type, "Unknown", std::string(kMaxStatusReasonBytes, 'x'),
                 std::string(kMaxStatusMessageBytes, 'x'), when, kLongestCount);
  }
  results::UnitSummary summary;
  for (const std::string& metric : run.required) summary.values[metric] = kLongestNumber;
  summary.epochs = summary.omitted = kLongestCount;
  for (std::size_t i = 0; i < units.size(); ++i) {
    UnitRecord unit;
    unit.trial = units[i].trial;
    unit.repetition = units[i].repetition;
    unit.params = units[i].params;
    unit.phase = UnitPhase::kSucceeded;
    unit.reason = std::string(kTrimmedReasonBytes, 'x');
    unit.workloadApiVersion = "graphcore.ai/v1alpha1";
    unit.workloadKind = "IPUJob";
    unit.workloadName = std::string(kNameBytes, 'x');
    const std::int64_t pods = i < podsPerUnit.size() ? podsPerUnit[i] : 1;
    unit.nodes.assign(static_cast<std::size_t>(std::max<std::int64_t>(pods, 1)),
                      std::string(kNameBytes, 'x'));
    unit.startTime = unit.completionTime = when;
    unit.retained = true;
    unit.logDir = ref.ns + "/" + ref.name + "/" + std::string(kUidBytes, 'x') + "/" +
                  std::to_string(unit.trial) + "-" + std::to_string(unit.repetition);
    unit.expectedPods = kLongestCount;
    unit.metrics = summary;
    unit.verdict = results::toString(results::Verdict::kMetricMissing);
    status.trials.push_back(std::move(unit));
  }
  for (const Unit& unit : units) {
    if (unit.repetition != 0) continue;
    TrialResult result;
    result.trial = unit.trial;
    result.parameters = unit.params;
    result.verdict = results::Verdict::kMetricMissing;
    result.repetitions = kLongestCount;
    for (const std::string& metric : run.required) {
      result.metrics[metric] = {longestStats(), std::string(results::kMaxUnitBytes, 'x')};
    }
    for (const auto& [metric, reference] : run.references) {
      result.checks.push_back({metric, results::Verdict::kMetricMissing, ""});
      if (!reference.fromHistory) continue;
      Baseline baseline;
      baseline.value = kLongestNumber;
      baseline.basis = std::string(kBasisBytes, 'x');
      baseline.runs.assign(static_cast<std::size_t>(reference.fromHistory->runs),
                           std::string(kNameBytes, 'x'));
      if (!result.baselines) result.baselines.emplace();
      (*result.baselines)[metric] = std::move(baseline);
    }
    status.results.push_back(std::move(result));
  }
  return statusBytes(status);
}

}  // namespace hetbench::benchmark
