#include "hetbench/benchmark/status_budget.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/plan.h"
#include "hetbench/common/go_text.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/reference.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

const RunRef kRun = {"lab", "sweep", "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b"};
const std::vector<std::string> kJudged = {"effective_throughput"};

/// Two finished units of one trial, each with a long message and a judged and two other
/// metrics, and the trial's result with all three.
RunStatus fullStatus() {
  RunStatus status;
  status.phase = "Succeeded";
  results::UnitSummary summary;
  summary.values = {{"effective_throughput", 123.25}, {"loss", 0.5}, {"power_watts", 300}};
  for (std::int64_t repetition : {0, 1}) {
    UnitRecord unit;
    unit.repetition = repetition;
    unit.phase = UnitPhase::kFailed;
    unit.reason = std::string(100, 'R');
    unit.message = std::string(1000, 'm');
    unit.metrics = summary;
    status.trials.push_back(unit);
  }
  TrialResult result;
  result.repetitions = 2;
  for (const auto& [name, value] : summary.values)
    result.metrics[name] = {{value, 0, value, value, 2}, ""};
  result.checks = {{"effective_throughput", results::Verdict::kPass, std::string(300, 'c')}};
  status.results.push_back(result);
  return status;
}

// Verifies that fitting gives up the least first and stops as soon as the status fits: each
// budget below is what the status takes after one more step, and nothing judged ever goes.
TEST(FitStatus, GivesUpTheLeastFirstAndStopsWhenItFits) {
  RunStatus steps[5] = {fullStatus(), fullStatus(), fullStatus(), fullStatus(), fullStatus()};
  std::erase_if(steps[1].results[0].metrics,
                [](const auto& m) { return m.first != "effective_throughput"; });
  steps[2] = steps[1];
  for (UnitRecord& unit : steps[2].trials) unit.message = common::cutText(unit.message, 128);
  steps[3] = steps[2];
  for (UnitRecord& unit : steps[3].trials) {
    unit.metrics->values.erase("loss");
    unit.metrics->values.erase("power_watts");
    unit.metrics->omitted = 2;
  }
  steps[4] = steps[3];
  for (UnitRecord& unit : steps[4].trials) {
    unit.message.clear();
    unit.reason = common::cutText(unit.reason, kTrimmedReasonBytes);
  }
  steps[4].results[0].checks[0].message.clear();
  for (int i = 0; i < 5; ++i) {
    RunStatus status = fullStatus();
    const std::size_t budget = statusBytes(steps[i]);
    EXPECT_EQ(fitStatus(status, kJudged, budget), budget) << "step " << i;
    EXPECT_EQ(status, steps[i]) << "step " << i;
  }
  RunStatus status = fullStatus();
  EXPECT_GT(fitStatus(status, kJudged, 100), 100u) << "what a verdict rests on stays";
  EXPECT_EQ(status, steps[4]);
  EXPECT_EQ(status.trials[0].metrics->values.at("effective_throughput"), 123.25);
}

AcceptedRun acceptedRun(const json& references, const json& matrix) {
  const json spec = {{"benchmark", "resnet50"},
                     {"system", "lab"},
                     {"matrix", matrix},
                     {"repetitions", 2},
                     {"workload", {{"image", "hetbench/resnet50"}}},
                     {"references", references}};
  common::Result<AcceptedRun> run = parseRun(spec);
  EXPECT_TRUE(run.isOk()) << run.status().toString();
  return run.isOk() ? run.value() : AcceptedRun{};
}

// Verifies that the floor bounds what a status of the plan takes once fitted, for a status
// built as the controller builds one at its largest: real check messages from judgeTrial with
// the longest numbers and a history basis, 63-byte node names, reasons and messages past every
// bound, and metrics beyond the judged ones.
TEST(StatusFloor, BoundsAFittedStatusOfThePlan) {
  const AcceptedRun run =
      acceptedRun({{"effective_throughput", {{"fromHistory", {{"runs", 7}}}, {"lower", 0.1}}}},
                  {{"gpus", {1, 2, 4}}, {"batch", {std::string(200, 'b')}}});
  const std::vector<Unit> units = planUnits(run.spec);
  const std::vector<std::int64_t> pods(units.size(), 2);
  RunStatus status;
  for (std::string_view type : {condition::kAccepted, condition::kFailed}) {
    setCondition(status.conditions, type, "True", std::string(500, 'r'), std::string(5000, 'm'),
                 common::WallTime{}, 1);
  }
  for (const Unit& u : units) {
    UnitRecord unit;
    unit.trial = u.trial;
    unit.repetition = u.repetition;
    unit.params = u.params;
    unit.phase = UnitPhase::kTimedOut;
    unit.reason = statusReason(std::string(500, 'r'));
    unit.message = statusMessage(std::string(5000, 'm'));
    unit.workloadApiVersion = "batch/v1";
    unit.workloadKind = "Job";
    unit.workloadName = std::string(63, 'w');
    unit.nodes = {std::string(63, 'n'), std::string(63, 'n')};
    unit.startTime = unit.completionTime = common::WallTime{};
    unit.logDir = kRun.ns + "/" + kRun.name + "/" + kRun.uid + "/0-0";
    unit.expectedPods = 2;
    results::UnitSummary summary;
    summary.values = {{"effective_throughput", -1.2345678901234567e-300}, {"loss", 1.5}};
    unit.metrics = summary;
    unit.verdict = "Regressed";
    status.trials.push_back(unit);
  }
  for (const Unit& u : units) {
    if (u.repetition != 0) continue;
    results::Reference reference = run.references.at("effective_throughput");
    reference.value = 1e300;
    reference.basis = "the median of the last 7 passing run(s)";
    reference.unit = std::string(results::kMaxUnitBytes, 'u');
    results::TrialMetrics metrics;
    metrics.repetitions = 2;
    metrics.metrics["effective_throughput"] = {-1.2345678901234567e-300, 1, 2, 3, 2};
    metrics.metrics["loss"] = {1, 1, 1, 1, 2};
    const results::TrialVerdict verdict =
        results::judgeTrial(metrics, {{"effective_throughput", reference}}, run.required);
    TrialResult result;
    result.trial = u.trial;
    result.parameters = u.params;
    result.verdict = verdict.verdict;
    result.repetitions = 2;
    for (const auto& [name, stats] : metrics.metrics)
      result.metrics[name] = {stats, reference.unit};
    result.checks = verdict.checks;
    Baseline baseline;
    baseline.value = 1e300;
    baseline.basis = reference.basis;
    baseline.runs.assign(7, std::string(63, 'h'));
    result.baselines = std::map<std::string, Baseline>{{"effective_throughput", baseline}};
    status.results.push_back(result);
  }
  const std::size_t floor = statusFloorBytes(kRun, run, units, pods);
  EXPECT_LE(fitStatus(status, run.required, 0), floor);
  EXPECT_LT(floor, statusBytes(status) * 2)
      << "a floor far above the status refuses plans that fit";
}

// Verifies acceptance: one of the largest plans allowed (1000 trials of one repetition) fits
// with short matrix values, and is refused, saying which limit, with 100 bytes more per value.
TEST(StatusFloor, AcceptanceRefusesAPlanWhoseStatusCannotFit) {
  json values = json::array();
  for (int i = 0; i < 1000; ++i) values.push_back(i);
  json spec = {{"benchmark", "resnet50"},
               {"system", "lab"},
               {"matrix", {{"batch", values}}},
               {"repetitions", 1},
               {"workload", {{"image", "hetbench/resnet50"}}},
               {"references", {{"effective_throughput", {{"value", 100}, {"lower", 0.1}}}}}};
  common::Result<AcceptedRun> fits = validateRun(kRun, spec);
  EXPECT_TRUE(fits.isOk()) << fits.status().toString();

  json longValues = json::array();
  for (int i = 0; i < 1000; ++i) longValues.push_back(std::to_string(i) + std::string(100, 'v'));
  spec["matrix"]["batch"] = longValues;
  common::Result<AcceptedRun> refused = validateRun(kRun, spec);
  ASSERT_TRUE(refused.status().isInvalid());
  ASSERT_EQ(refused.status().causes().size(), 1u);
  EXPECT_EQ(refused.status().causes()[0].field, "spec.matrix");
  EXPECT_NE(refused.status().causes()[0].message.find("the status of 1000 units could need "),
            std::string::npos)
      << refused.status().causes()[0].message;
  EXPECT_NE(refused.status().causes()[0].message.find("etcd"), std::string::npos);
}

}  // namespace
}  // namespace hetbench::benchmark
