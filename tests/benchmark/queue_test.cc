#include "hetbench/benchmark/queue.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/time.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

RenderedUnit rendered(WorkloadKind kind, json workload) {
  RenderedUnit unit;
  unit.name = "w";
  unit.kind = kind;
  unit.workload = std::move(workload);
  return unit;
}

json queuedJob(bool suspend, json status = json::object()) {
  return {{"metadata", {{"labels", {{std::string(kQueueNameLabel), "gpu"}}}}},
          {"spec", {{"suspend", suspend}}},
          {"status", std::move(status)}};
}

json queuedPod(json gates, json conditions = json::array()) {
  return {{"metadata", {{"labels", {{std::string(kQueueNameLabel), "gpu"}}}}},
          {"spec", {{"schedulingGates", std::move(gates)}}},
          {"status", {{"conditions", std::move(conditions)}}}};
}

const json kGate = json::array({{{"name", std::string(kAdmissionGate)}}});

// Verifies that a Job goes to its queue suspended with the queue label, and that its pod template
// is left for Kueue to fill in.
TEST(SubmitToQueue, JobIsLabelledAndSuspended) {
  RenderedUnit unit =
      rendered(WorkloadKind::kJob, {{"metadata", {{"labels", {{"hetbench.io/run", "r"}}}}},
                                    {"spec", {{"template", {{"spec", json::object()}}}}}});
  submitToQueue(unit, "gpu-queue");
  EXPECT_EQ(unit.workload["metadata"]["labels"][std::string(kQueueNameLabel)], "gpu-queue");
  EXPECT_EQ(unit.workload["metadata"]["labels"]["hetbench.io/run"], "r");
  EXPECT_EQ(unit.workload["spec"]["suspend"], true);
  EXPECT_FALSE(unit.workload["spec"]["template"]["spec"].contains("schedulingGates"));
}

// Verifies that a Pod gets the label and Kueue's admission gate once, beside a gate of its own.
TEST(SubmitToQueue, PodWaitsBehindTheAdmissionGate) {
  RenderedUnit unit = rendered(WorkloadKind::kPod,
                               {{"metadata", json::object()},
                                {"spec", {{"schedulingGates", {{{"name", "example.com/mine"}}}}}}});
  submitToQueue(unit, "q");
  submitToQueue(unit, "q");
  EXPECT_EQ(unit.workload["metadata"]["labels"][std::string(kQueueNameLabel)], "q");
  EXPECT_EQ(unit.workload["spec"]["schedulingGates"],
            json::array({{{"name", "example.com/mine"}}, {{"name", std::string(kAdmissionGate)}}}));
  EXPECT_FALSE(unit.workload["spec"].contains("suspend"));
}

// Verifies which kinds Kueue integrates: an IPUJob is not queued (validate_test has the refusal).
TEST(SubmitToQueue, IpuJobsAreNotQueueable) {
  EXPECT_TRUE(queueable(WorkloadKind::kPod));
  EXPECT_TRUE(queueable(WorkloadKind::kJob));
  EXPECT_FALSE(queueable(WorkloadKind::kIpuJob));
}

// Verifies the names a queue label can take.
TEST(QueueName, IsADnsSubdomainThatFitsALabel) {
  const std::string longest(63, 'a');
  for (const std::string& good : {std::string("q"), std::string("gpu-queue"), std::string("team.a"),
                                  std::string("a1"), longest})
    EXPECT_TRUE(isQueueName(good)) << good;
  for (const std::string& bad : {std::string(), std::string("Gpu"), std::string("-q"),
                                 std::string("q-"), std::string("q_1"), std::string(64, 'a')})
    EXPECT_FALSE(isQueueName(bad)) << bad;
}

// Verifies where a workload stands with its queue, read from the workload alone.
TEST(QueueState, ReadsTheWorkload) {
  const std::string started = "2026-11-26T10:00:00Z";
  struct Row {
    const char* name;
    WorkloadKind kind;
    json object;
    QueueStage want;
  };
  const Row rows[] = {
      {"job without the label",
       WorkloadKind::kJob,
       {{"spec", {{"suspend", true}}}},
       QueueStage::kNone},
      {"suspended job", WorkloadKind::kJob, queuedJob(true), QueueStage::kWaiting},
      {"resumed job", WorkloadKind::kJob, queuedJob(false, {{"startTime", started}}),
       QueueStage::kAdmitted},
      {"suspended job that failed", WorkloadKind::kJob,
       queuedJob(true, {{"conditions", {{{"type", "Failed"}, {"status", "True"}}}}}),
       QueueStage::kAdmitted},
      {"gated pod", WorkloadKind::kPod, queuedPod(kGate), QueueStage::kWaiting},
      {"pod without the gate", WorkloadKind::kPod, queuedPod(json::array()), QueueStage::kAdmitted},
      {"pod behind another gate", WorkloadKind::kPod, queuedPod({{{"name", "other"}}}),
       QueueStage::kAdmitted},
      {"pod Kueue stopped", WorkloadKind::kPod,
       queuedPod(json::array(), {{{"type", "TerminationTarget"}, {"status", "True"}}}),
       QueueStage::kStopped},
      {"pod without the label",
       WorkloadKind::kPod,
       {{"spec", {{"schedulingGates", kGate}}}, {"status", json::object()}},
       QueueStage::kNone},
      {"ipujob", WorkloadKind::kIpuJob, queuedJob(true), QueueStage::kNone},
  };
  for (const Row& row : rows)
    EXPECT_EQ(queueState(row.kind, row.object).stage, row.want) << row.name;

  const QueueState admitted =
      queueState(WorkloadKind::kJob, queuedJob(false, {{"startTime", started}}));
  EXPECT_EQ(admitted.admittedAt, common::parseRfc3339(started).value());
  const QueueState stopped =
      queueState(WorkloadKind::kPod,
                 queuedPod(json::array(),
                           {{{"type", "TerminationTarget"},
                             {"status", "True"},
                             {"reason", "WorkloadEvicted"},
                             {"message", "Preempted to accommodate a higher priority Workload"}}}));
  EXPECT_EQ(stopped.message,
            "WorkloadEvicted: Preempted to accommodate a higher priority Workload");
}

// Verifies what a queue state means for a Queued or Running unit: admission, the queue timeout,
// and an eviction after admission.
TEST(CheckQueue, DecidesForTheUnit) {
  const common::WallTime queued{hours(1000)};
  const common::WallTime deadline = queued + hours(1);
  const QueueState waiting{QueueStage::kWaiting, std::nullopt, ""};
  const QueueState admittedJob{QueueStage::kAdmitted, queued + minutes(5), ""};
  const QueueState admittedPod{QueueStage::kAdmitted, std::nullopt, ""};
  const QueueState stopped{QueueStage::kStopped, std::nullopt, "WorkloadEvicted: preempted"};
  const UnitEnd evictedJob{UnitPhase::kFailed, "Evicted",
                           "Kueue suspended the Job after admitting it (preempted, or its "
                           "admission was withdrawn); its pods were stopped"};
  const UnitEnd evictedPod{UnitPhase::kFailed, "Evicted",
                           "Kueue stopped the pod (WorkloadEvicted: preempted)"};
  struct Row {
    const char* name;
    UnitPhase phase;
    QueueState state;
    common::WallTime now;
    QueueDecision want;
  };
  const Row rows[] = {
      {"not queued", UnitPhase::kRunning, QueueState{}, deadline + hours(5), {}},
      {"waiting", UnitPhase::kQueued, waiting, deadline - seconds(1), {{}, deadline, {}}},
      {"waited too long",
       UnitPhase::kQueued,
       waiting,
       deadline,
       {UnitEnd{UnitPhase::kFailed, "QueueTimeout",
                "not admitted by its queue within queueTimeout 1h0m0s"},
        {},
        {}}},
      {"job admitted",
       UnitPhase::kQueued,
       admittedJob,
       deadline + hours(3),
       {{}, {}, queued + minutes(5)}},
      {"pod admitted",
       UnitPhase::kQueued,
       admittedPod,
       queued + minutes(7),
       {{}, {}, queued + minutes(7)}},
      {"running and admitted", UnitPhase::kRunning, admittedJob, deadline + hours(3), {}},
      {"job suspended again",
       UnitPhase::kRunning,
       waiting,
       queued + minutes(9),
       {evictedJob, {}, {}}},
      {"pod stopped while running",
       UnitPhase::kRunning,
       stopped,
       queued + minutes(9),
       {evictedPod, {}, {}}},
      {"pod stopped while queued",
       UnitPhase::kQueued,
       stopped,
       queued + minutes(9),
       {evictedPod, {}, {}}},
      {"finished unit", UnitPhase::kFailed, waiting, deadline + hours(1), {}},
  };
  for (const Row& row : rows)
    EXPECT_EQ(checkQueue(row.phase, row.state, queued, hours(1), row.now), row.want) << row.name;
}

}  // namespace
}  // namespace hetbench::benchmark
