#include "hetbench/benchmark/run.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/time.h"

namespace hetbench::benchmark {
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
  measured.metrics = results::UnitSummary{};
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
  u.expectedPods = 2;
  u.metrics = results::UnitSummary{
      {{"throughput", 1.5}}, 3, 1, "rank 0, GPU 0 (X): Xid 79 during the measured epochs"};
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
  std::vector<Condition> conditions;
  setCondition(conditions, "Running", "True", "UnitsRunning", "1 of 2", at("2026-11-22T10:00:00Z"),
               1);
  setCondition(conditions, "Running", "True", "UnitsRunning", "2 of 2", at("2026-11-22T10:05:00Z"),
               1);
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].lastTransitionTime, at("2026-11-22T10:00:00Z"));
  EXPECT_EQ(conditions[0].message, "2 of 2");

  setCondition(conditions, "Running", "False", "Succeeded", "", at("2026-11-22T10:09:00Z"), 2);
  EXPECT_EQ(conditions[0].lastTransitionTime, at("2026-11-22T10:09:00Z"));
  EXPECT_EQ(conditions[0].observedGeneration, 2);
  EXPECT_EQ(conditionStatus(conditions, "Running"), "False");
  EXPECT_EQ(conditionStatus(conditions, "Complete"), "");

  setCondition(conditions, "Complete", "True", "AllSucceeded", "", at("2026-11-22T10:09:00Z"), 2);
  EXPECT_EQ(conditions.size(), 2u);
  const json written = toJson(conditions);
  EXPECT_EQ(written[0]["lastTransitionTime"], "2026-11-22T10:09:00Z");
  EXPECT_EQ(conditionsFromJson(written), conditions);
}

// Verifies that reasons and messages from outside (a pod's termination message, an API error)
// are kept within their bounds in units and conditions, cut between runes, and that a kept
// text read back from the status is kept again unchanged (no status write on every pass).
TEST(RunStatus, ReasonsAndMessagesStayWithinTheirBounds) {
  struct Row {
    std::string text;
    std::size_t max;
    std::string want;
  };
  const std::string euro = "\xE2\x82\xAC";  // 3 bytes
  const Row rows[] = {
      {std::string(1024, 'a'), kMaxStatusMessageBytes, std::string(1024, 'a')},
      {std::string(1025, 'a'), kMaxStatusMessageBytes, std::string(1021, 'a') + "..."},
      {std::string(1020, 'a') + euro + "bb", kMaxStatusMessageBytes,
       std::string(1020, 'a') + "..."},
      {std::string(200, 'R'), kMaxStatusReasonBytes, std::string(125, 'R') + "..."},
  };
  for (const Row& row : rows) {
    const std::string kept =
        row.max == kMaxStatusMessageBytes ? statusMessage(row.text) : statusReason(row.text);
    EXPECT_EQ(kept, row.want) << row.text.size();
    EXPECT_LE(kept.size(), row.max);
    EXPECT_EQ(row.max == kMaxStatusMessageBytes ? statusMessage(kept) : statusReason(kept), kept);
  }

  std::vector<Condition> conditions;
  setCondition(conditions, "Failed", "True", std::string(300, 'X'), std::string(100000, 'm'),
               at("2026-11-22T10:00:00Z"), 1);
  EXPECT_EQ(conditions[0].reason.size(), kMaxStatusReasonBytes);
  EXPECT_EQ(conditions[0].message.size(), kMaxStatusMessageBytes);
  EXPECT_EQ(conditionsFromJson(toJson(conditions)), conditions);

  UnitRecord unit;
  json written = toJson(unit);
  written["reason"] = std::string(300, 'r');
  written["message"] = std::string(5000, 'm');
  const UnitRecord read = unitFromJson(written);
  EXPECT_EQ(read.reason.size(), kMaxStatusReasonBytes);
  EXPECT_EQ(read.message.size(), kMaxStatusMessageBytes);
  EXPECT_EQ(unitFromJson(toJson(read)), read);
}

// Verifies that a whole status survives the JSON round trip, and that the JSON has the shape
// docs/api.md gives (a judged trial's metrics with their unit, checks, baselines).
TEST(RunStatus, StatusRoundTrips) {
  RunStatus s;
  s.phase = "Succeeded";
  s.observedGeneration = 2;
  s.trialsTotal = 1;
  s.trialsDone = 1;
  s.progress = "1/1";
  s.startTime = at("2026-11-22T10:00:00Z");
  s.completionTime = at("2026-11-22T11:00:00Z");
  UnitRecord unit;
  unit.phase = UnitPhase::kSucceeded;
  unit.metrics = results::UnitSummary{{{"effective_throughput", 1234.56789012}}, 2, 0};
  s.trials = {unit};
  TrialResult result;
  result.parameters = {{"gpus", "4"}};
  result.verdict = results::Verdict::kRegressed;
  result.repetitions = 1;
  result.metrics["effective_throughput"] = {{1234.56789012, 0, 1234.56789012, 1234.56789012, 1},
                                            "samples/s"};
  result.checks = {{"effective_throughput", results::Verdict::kRegressed, "below the band"}};
  result.baselines = std::map<std::string, Baseline>{
      {"effective_throughput", {1500.0, "the median of the last 3 passing run(s)", {"a", "b"}}},
      {"compute_throughput", {std::nullopt, "1 earlier passing run(s)", {}}}};
  s.results = {result};
  s.verdict = results::Verdict::kRegressed;
  s.latestEffectiveThroughput = 1234.56789012;
  setCondition(s.conditions, "Regressed", "True", "BelowReference", "trial 0",
               at("2026-11-22T11:00:00Z"), 2);

  const json written = toJson(s);
  EXPECT_EQ(runStatusFromJson(written), s);
  EXPECT_EQ(written["results"][0]["metrics"]["effective_throughput"]["unit"], "samples/s");
  EXPECT_EQ(written["results"][0]["verdict"], "Regressed");
  EXPECT_FALSE(written["results"][0]["baselines"]["compute_throughput"].contains("value"));
  EXPECT_EQ(written["results"][0]["baselines"]["effective_throughput"]["runs"],
            json::array({"a", "b"}));
  EXPECT_EQ(written["verdict"], "Regressed");
  EXPECT_EQ(runStatusFromJson(json::object()), RunStatus{});
  EXPECT_EQ(runStatusFromJson({{"results", "no"}, {"verdict", "Maybe"}, {"trials", 3}}),
            RunStatus{});
}

// Verifies what readRun takes from a run object, and that it never throws on a malformed one.
TEST(RunStatus, ReadsARunObject) {
  const json object = {{"metadata",
                        {{"namespace", "ns"},
                         {"name", "r"},
                         {"uid", "u-1"},
                         {"generation", 3},
                         {"deletionTimestamp", "2026-11-22T10:00:00Z"},
                         {"finalizers", {"hetbench.io/cleanup"}},
                         {"annotations", {{"hetbench.io/accepted-spec", "{}"}}}}},
                       {"spec", {{"suspend", true}}},
                       {"status", {{"phase", "Running"}}}};
  const benchmark::Run run = readRun(object);
  EXPECT_EQ(run.ref.ns, "ns");
  EXPECT_EQ(run.ref.name, "r");
  EXPECT_EQ(run.ref.uid, "u-1");
  EXPECT_EQ(run.generation, 3);
  EXPECT_TRUE(run.deleting);
  EXPECT_TRUE(run.hasFinalizer("hetbench.io/cleanup"));
  EXPECT_EQ(run.acceptedSpecText, "{}");
  EXPECT_TRUE(run.suspended());
  EXPECT_EQ(run.status.phase, "Running");
  for (const json& hostile : {json(nullptr), json::array(), json({{"metadata", 7}})}) {
    const benchmark::Run empty = readRun(hostile);
    EXPECT_TRUE(empty.ref.name.empty());
    EXPECT_FALSE(empty.deleting);
  }
}

}  // namespace
}  // namespace hetbench::benchmark
