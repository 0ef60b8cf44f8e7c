#include "hetbench/benchmark/slurm_job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "render_fixtures.h"

namespace hetbench::benchmark {
namespace {

using namespace hetbench::benchmark::testing;
using namespace std::chrono_literals;
using nlohmann::json;

json slurmWorkload() {
  return {{"image", "docker://ghcr.io/hetbench/train:cuda"},
          {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 2}}},
          {"training", {{"batchSize", 64}, {"epochs", 2}}},
          {"env", {{{"name", "OMP_NUM_THREADS"}, {"value", "8"}}}},
          {"slurm",
           {{"cluster", "cirrus"},
            {"partition", "gpu"},
            {"runtime", "apptainer"},
            {"tasksPerNode", 1}}}};
}

std::vector<std::string> fieldsOf(const common::Status& status) {
  std::vector<std::string> out;
  for (const common::StatusCause& cause : status.causes()) out.push_back(cause.field);
  return out;
}

// Verifies the batch job a unit becomes: its name and comment, the GPUs as GRES per node, the
// time limit in whole minutes, the HETBENCH_* environment with the workload's
// and a PATH, and a script that runs hetbench-train's flags through apptainer with --nv.
TEST(SlurmJob, AUnitBecomesABatchJob) {
  RunSpec spec = workloadSpec(slurmWorkload());
  spec.timeLimit = 90s;
  const RenderedUnit r = mustRender(spec, unitOf(1, 0));
  ASSERT_TRUE(r.slurm.has_value());
  const slurm::JobRequest& job = r.slurm->request;
  EXPECT_EQ(r.slurm->cluster, "cirrus");
  EXPECT_EQ(job.name, r.name);
  EXPECT_EQ(job.comment, "hetbench.io/unit=lab/resnet-sweep/" + kUid + "/1-0");
  EXPECT_EQ(job.partition, "gpu");
  EXPECT_EQ(job.nodes, 1);
  EXPECT_EQ(job.tasksPerNode, 1);
  EXPECT_EQ(job.gpusPerNode, 2);
  EXPECT_EQ(job.timeLimitMinutes, 2) << "90 s rounded up to minutes";
  EXPECT_EQ(job.environment,
            (std::vector<std::pair<std::string, std::string>>{
                {"HETBENCH_RUN", "resnet-sweep"},
                {"HETBENCH_TRIAL", "1"},
                {"HETBENCH_REPETITION", "0"},
                {"HETBENCH_SYSTEM", "a100"},
                {"OMP_NUM_THREADS", "8"},
                {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}}));
  EXPECT_EQ(job.script,
            "#!/bin/sh\n# Written by hetbench for lab/resnet-sweep trial 1 repetition 0.\n"
            "exec 'apptainer' 'run' '--nv' 'docker://ghcr.io/hetbench/train:cuda' '--model' "
            "'resnet50' '--batch-size' '64' '--epochs' '2' '--device' 'cuda'\n");
  EXPECT_EQ(r.expectedPods, 0);
  EXPECT_EQ(r.workload["kind"], "SlurmJob");
  EXPECT_EQ(r.workload["script"], job.script);
}

// Verifies a command run on the node as it is, quoted for sh, and a script given whole.
TEST(SlurmJob, CommandsAreQuotedAndScriptsKept) {
  json w = {{"image", "none"},
            {"command", {"sh", "-c", "echo 'it''s' $HETBENCH_TRIAL"}},
            {"env", {{{"name", "PATH"}, {"value", "/opt/bin"}}}},
            {"slurm", {{"cluster", "local"}}}};
  const RenderedUnit r = mustRender(workloadSpec(w, Benchmark::kCustom), unitOf(0, 0));
  EXPECT_EQ(r.slurm->request.script,
            "#!/bin/sh\n# Written by hetbench for lab/resnet-sweep trial 0 repetition 0.\n"
            "exec 'sh' '-c' 'echo '\\''it'\\'''\\''s'\\'' $HETBENCH_TRIAL'\n");
  EXPECT_EQ(r.slurm->request.environment.back(),
            (std::pair<std::string, std::string>{"PATH", "/opt/bin"}));
  EXPECT_EQ(r.slurm->request.gpusPerNode, 0);

  json scripted = {{"image", "none"},
                   {"slurm", {{"cluster", "local"}, {"script", "#!/bin/bash\nsrun hostname\n"}}}};
  EXPECT_EQ(
      mustRender(workloadSpec(scripted, Benchmark::kCustom), unitOf(0, 0)).slurm->request.script,
      "#!/bin/bash\nsrun hostname\n");
}

// Verifies a unit on several nodes: WORLD_SIZE and MASTER_PORT in the job's environment, and
// one launcher per node through srun with its rank and the first node as master.
TEST(SlurmJob, SeveralNodesRunOneLauncherEachThroughSrun) {
  json w = {{"image", "none"},
            {"command", {"hetbench-train"}},
            {"nodes", 2},
            {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 4}}},
            {"slurm", {{"cluster", "c"}}}};
  const RenderedUnit r = mustRender(workloadSpec(w), unitOf(0, 0));
  const slurm::JobRequest& job = r.slurm->request;
  EXPECT_EQ(job.nodes, 2);
  EXPECT_EQ(job.gpusPerNode, 4);
  const auto& env = job.environment;
  EXPECT_NE(
      std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"WORLD_SIZE", "2"}),
      env.end());
  EXPECT_NE(std::find(env.begin(), env.end(),
                      std::pair<std::string, std::string>{"MASTER_PORT", "29500"}),
            env.end());
  EXPECT_EQ(job.script,
            "#!/bin/sh\n# Written by hetbench for lab/resnet-sweep trial 0 repetition 0.\n"
            "exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c 'export "
            "MASTER_ADDR=$SLURM_LAUNCH_NODE_IPADDR RANK=$SLURM_PROCID; exec \"$@\"' sh "
            "'hetbench-train' '--model' 'resnet50' '--device' 'cuda'\n");
}

// Verifies what a Slurm workload refuses: a pod's fields, IPUs, a script beside
// a command, no way to run, env from a reference, a script without an interpreter.
TEST(SlurmJob, WhatAPodHasASlurmJobRefuses) {
  struct Case {
    const char* name;
    json change;
    std::vector<std::string> fields;
  };
  const std::vector<Case> cases = {
      {"pod fields",
       {{"nodeSelector", {{"a", "b"}}}, {"kind", "Job"}},
       {"spec.workload.kind", "spec.workload.nodeSelector"}},
      {"ipu",
       {{"accelerator", {{"resource", "graphcore.ai/ipu"}, {"count", 1}}}},
       {"spec.workload.accelerator.resource"}},
      {"script and command",
       {{"command", {"x"}}, {"slurm", {{"cluster", "c"}, {"script", "#!/bin/sh\n"}}}},
       {"spec.workload.slurm.script"}},
      {"nothing to run", {{"slurm", {{"cluster", "c"}}}}, {"spec.workload.command"}},
      {"valueFrom",
       {{"env", {{{"name", "X"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "a"}}}}}}}}},
       {"spec.workload.env[0].valueFrom"}},
      {"bad script",
       {{"slurm", {{"cluster", "c"}, {"script", "echo hi"}}}},
       {"spec.workload.slurm.script"}},
      {"no cluster",
       {{"slurm", {{"partition", "gpu"}, {"runtime", "apptainer"}}}},
       {"spec.workload.slurm.cluster"}},
  };
  for (const Case& c : cases) {
    json w = slurmWorkload();
    w.erase("training");
    for (const auto& [key, value] : c.change.items()) w[key] = value;
    common::Result<Workload> parsed = parseWorkload(w, "spec.workload");
    ASSERT_FALSE(parsed.isOk()) << c.name;
    EXPECT_EQ(fieldsOf(parsed.status()), c.fields) << c.name << ": " << parsed.status().toString();
  }
}

slurm::JobInfo jobIn(slurm::JobState state) {
  slurm::JobInfo job;
  job.id = 42;
  job.state = state;
  return job;
}

// Verifies how each final state of a job ends its unit, and that a job not yet ended does not.
TEST(SlurmJob, AJobsEndIsItsUnitsEnd) {
  struct Case {
    slurm::JobState state;
    std::optional<int> exitCode;
    std::optional<int> signal;
    std::string reason;
    std::optional<UnitPhase> phase;
    std::string unitReason;
    std::string message;
  };
  const std::vector<Case> cases = {
      {slurm::JobState::kRunning, {}, {}, "", std::nullopt, "", ""},
      {slurm::JobState::kCompleting, 0, {}, "", std::nullopt, "", ""},
      {slurm::JobState::kCompleted,
       0,
       {},
       "",
       UnitPhase::kSucceeded,
       "Completed",
       "Slurm job 42 COMPLETED (exit code 0)"},
      {slurm::JobState::kFailed,
       3,
       {},
       "NonZeroExitCode",
       UnitPhase::kFailed,
       "SlurmFailed",
       "Slurm job 42 FAILED (exit code 3, NonZeroExitCode)"},
      {slurm::JobState::kTimeout,
       {},
       15,
       "TimeLimit",
       UnitPhase::kTimedOut,
       "SlurmTimeLimit",
       "Slurm job 42 TIMEOUT (signal 15, TimeLimit)"},
      {slurm::JobState::kCancelled,
       {},
       15,
       "",
       UnitPhase::kCancelled,
       "SlurmCancelled",
       "Slurm job 42 CANCELLED (signal 15)"},
      {slurm::JobState::kNodeFail,
       {},
       {},
       "",
       UnitPhase::kFailed,
       "SlurmNodeFail",
       "Slurm job 42 NODE_FAIL"},
      {slurm::JobState::kOutOfMemory,
       {},
       {},
       "",
       UnitPhase::kFailed,
       "SlurmOutOfMemory",
       "Slurm job 42 OUT_OF_MEMORY"},
  };
  for (const Case& c : cases) {
    slurm::JobInfo job = jobIn(c.state);
    job.exitCode = c.exitCode;
    job.signal = c.signal;
    job.reason = c.reason;
    const std::optional<UnitEnd> end = slurmJobEnd(job);
    ASSERT_EQ(end.has_value(), c.phase.has_value()) << slurm::jobStateName(c.state);
    if (!end) continue;
    EXPECT_EQ(end->phase, *c.phase);
    EXPECT_EQ(end->reason, c.unitReason);
    EXPECT_EQ(end->message, c.message);
  }
}

// Verifies startTimeout on a pending job: a deadline to look again before it, Failed with
// Slurm's pending reason after it, nothing for a job that has started.
TEST(SlurmJob, APendingJobFailsAtStartTimeoutWithItsReason) {
  const common::WallTime submitted(std::chrono::seconds(1000));
  slurm::JobInfo job = jobIn(slurm::JobState::kPending);
  job.reason = "Resources";
  const UnitDecision early = checkSlurmStart(job, submitted, 30s, submitted + 10s);
  EXPECT_FALSE(early.end.has_value());
  EXPECT_EQ(early.recheckAt, submitted + 30s);
  const UnitDecision late = checkSlurmStart(job, submitted, 30s, submitted + 30s);
  ASSERT_TRUE(late.end.has_value());
  EXPECT_EQ(late.end->phase, UnitPhase::kFailed);
  EXPECT_EQ(late.end->reason, "Resources");
  EXPECT_EQ(late.end->message, "Slurm job 42 still pending after startTimeout 30s: Resources");
  EXPECT_EQ(checkSlurmStart(jobIn(slurm::JobState::kRunning), submitted, 30s, submitted + 1h),
            UnitDecision{});
  EXPECT_EQ(slurmTimeLimitMinutes(2h), 120);
  EXPECT_EQ(slurmTimeLimitMinutes(5s), 1);
}

}  // namespace
}  // namespace hetbench::benchmark
