#include "hetbench/controller/run_status.h"

#include <gtest/gtest.h>

#include "hetbench/common/time.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

common::WallTime at(const char* text) { return common::parseRfc3339(text).value(); }

UnitRecord unit(UnitPhase phase) {
  UnitRecord u;
  u.phase = phase;
  return u;
}

TEST(RunStatus, PhaseFromUnits) {
  using P = UnitPhase;
  struct Row {
    const char* name;
    std::vector<P> units;
    bool suspended;
    const char* want;
  };
  const Row rows[] = {
      {"nothing started", {P::kPending, P::kPending}, false, "Pending"},
      {"one running", {P::kRunning, P::kPending}, false, "Running"},
      {"one done, rest pending", {P::kSucceeded, P::kPending}, false, "Running"},
      {"all succeeded", {P::kSucceeded, P::kSucceeded}, false, "Succeeded"},
      {"one failed", {P::kSucceeded, P::kFailed}, false, "Failed"},
      {"one timed out", {P::kTimedOut, P::kSucceeded}, false, "Failed"},
      {"failure still running others", {P::kFailed, P::kRunning}, false, "Running"},
      {"suspended, still stopping", {P::kRunning, P::kCancelled}, true, "Running"},
      {"suspended, stopped", {P::kSucceeded, P::kCancelled}, true, "Cancelled"},
      {"suspended before start", {P::kPending}, true, "Cancelled"},
      {"cancelled units after unsuspend", {P::kCancelled, P::kSucceeded}, false, "Cancelled"},
      {"no units", {}, false, "Succeeded"},
  };
  for (const Row& row : rows) {
    std::vector<UnitRecord> units;
    for (P p : row.units) units.push_back(unit(p));
    EXPECT_EQ(runPhase(units, row.suspended), row.want) << row.name;
  }
}

TEST(RunStatus, PhaseWaitsForMetricsWhenMeasured) {
  using P = UnitPhase;
  UnitRecord measured = unit(P::kSucceeded);
  measured.metrics = {{"values", nlohmann::json::object()}};
  const UnitRecord unmeasured = unit(P::kSucceeded);
  struct Row {
    const char* name;
    std::vector<UnitRecord> units;
    bool measuredRun;
    const char* want;
  };
  const Row rows[] = {
      {"all read", {measured, measured}, true, "Succeeded"},
      {"one not read yet", {measured, unmeasured}, true, "Running"},
      {"a failure, one not read yet", {unit(P::kFailed), unmeasured}, true, "Running"},
      {"not measured at all", {unmeasured, unmeasured}, false, "Succeeded"},
      {"cancelled stays cancelled", {unit(P::kCancelled), unmeasured}, true, "Cancelled"},
  };
  for (const Row& row : rows)
    EXPECT_EQ(runPhase(row.units, false, row.measuredRun), row.want) << row.name;
}

TEST(RunStatus, UnitRecordRoundTrips) {
  UnitRecord u;
  u.trial = 3;
  u.repetition = 1;
  u.params = {{"gpus", "4"}, {"batch", "256"}};
  u.phase = UnitPhase::kTimedOut;
  u.reason = "TimeLimitExceeded";
  u.message = "ran longer than timeLimit 2h0m0s";
  u.workloadApiVersion = "batch/v1";
  u.workloadKind = "Job";
  u.workloadName = "r-t3-r1-bcdfg";
  u.nodes = {"a100-1", "a100-2"};
  u.startTime = at("2026-11-22T10:00:00Z");
  u.completionTime = at("2026-11-22T12:00:00Z");
  u.retained = true;
  u.logDir = "ns/r/3-1";
  u.metrics = {{"throughput", 1.5}};
  u.verdict = "Pass";
  EXPECT_EQ(unitFromJson(toJson(u)), u);
  EXPECT_EQ(toJson(u)["phase"], "TimedOut");
  EXPECT_EQ(toJson(u)["workload"],
            json({{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"name", "r-t3-r1-bcdfg"}}));
}

TEST(RunStatus, UnitRecordToleratesMalformedInput) {
  const json rows[] = {
      nullptr,
      json::array(),
      {{"trial", "three"}, {"phase", 7}, {"nodes", "a100-1"}, {"startTime", "yesterday"}},
      {{"parameters", {{"gpus", 4}}}, {"workload", "Pod/x"}, {"retained", "yes"}},
  };
  for (const json& row : rows) {
    UnitRecord u = unitFromJson(row);
    EXPECT_EQ(u.trial, 0) << row.dump();
    EXPECT_EQ(u.phase, UnitPhase::kPending) << row.dump();
    EXPECT_TRUE(u.params.empty()) << row.dump();
    EXPECT_FALSE(u.startTime) << row.dump();
    EXPECT_FALSE(u.retained) << row.dump();
  }
}

TEST(RunStatus, ConditionsKeepTransitionTimeWhileUnchanged) {
  json status = json::object();
  setCondition(status, "Running", "True", "UnitsRunning", "1 of 2", at("2026-11-22T10:00:00Z"), 1);
  setCondition(status, "Running", "True", "UnitsRunning", "2 of 2", at("2026-11-22T10:05:00Z"), 1);
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], "2026-11-22T10:00:00Z");
  EXPECT_EQ(status["conditions"][0]["message"], "2 of 2");

  setCondition(status, "Running", "False", "Succeeded", "", at("2026-11-22T10:09:00Z"), 2);
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], "2026-11-22T10:09:00Z");
  EXPECT_EQ(status["conditions"][0]["observedGeneration"], 2);
  EXPECT_EQ(conditionStatus(status, "Running"), "False");
  EXPECT_EQ(conditionStatus(status, "Complete"), "");

  setCondition(status, "Complete", "True", "AllSucceeded", "", at("2026-11-22T10:09:00Z"), 2);
  EXPECT_EQ(status["conditions"].size(), 2u);
}

}  // namespace
}  // namespace hetbench::controller
