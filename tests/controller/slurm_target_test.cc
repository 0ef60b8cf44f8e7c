// Runs on Slurm end to end: the built hetbench-operator against an in-process kubesim and a real
// two-node Slurm (Debian 12's 22.05, slurmrestd v0.0.38) that the test starts and stops
// (support/slurm_cluster.h), with a BenchmarkSystem on the SlurmCluster's partition. The jobs
// are shell scripts that print hetbench's metrics lines.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "hetbench/common/base64.h"
#include "hetbench/controller/schedule_reconciler.h"
#include "hetbench/controller/slurm_connector.h"
#include "hetbench/slurm/client.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"
#include "support/slurm_cluster.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const kube::GroupVersionResource kSystems{"hetbench.io", "v1alpha1", "benchmarksystems", false};

class SlurmTargetTest : public OperatorTest {
 protected:
  void SetUp() override {
    OperatorTest::SetUp();
    testing_support::SlurmClusterOptions options;
    options.nodes = 2;
    auto slurm = testing_support::SlurmCluster::start(options);
    ASSERT_TRUE(slurm.isOk()) << slurm.status().toString();
    slurm_ = std::move(*slurm);
    auto token = slurm_->token(std::chrono::hours(1));
    ASSERT_TRUE(token.isOk()) << token.status().toString();
    token_ = *token;
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/slurmcluster.yaml", kSlurmClusters));
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarksystem.yaml", kSystems));
    storeToken(token_);
    defineCluster(slurm_->restUrl());
    const json system = {{"apiVersion", "hetbench.io/v1alpha1"},
                         {"kind", "BenchmarkSystem"},
                         {"metadata", {{"name", "slurm-gpu"}}},
                         {"spec",
                          {{"slurm",
                            {{"cluster", "local"},
                             {"partition", slurm_->partition()},
                             {"accelerator", {{"resource", "nvidia.com/gpu"}}}}}}}};
    ASSERT_TRUE(client_->create(kSystems, "", system).isOk());
    ClientOptionsForTest();
  }

  // The test's own client of slurmrestd, to see what Slurm has.
  void ClientOptionsForTest() {
    slurm::ClientOptions options;
    options.url = slurm_->restUrl();
    options.version = slurm::ApiVersion::kV0_0_38;
    options.credentials = [user = slurm_->user(),
                           token = token_]() -> common::Result<slurm::Credentials> {
      return slurm::Credentials{user, token};
    };
    auto api = slurm::makeSlurmClient(options);
    ASSERT_TRUE(api.isOk());
    api_ = std::move(*api);
  }

  void storeToken(const std::string& token) {
    const json data = {{"token", common::base64Encode(token)}};
    auto existing = client_->get(kube::resources::kSecrets, "default", "local-jwt");
    if (existing.isOk()) {
      json updated = *existing;
      updated["data"] = data;
      ASSERT_TRUE(client_->update(kube::resources::kSecrets, "default", updated).isOk());
      return;
    }
    const json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "local-jwt"}, {"namespace", "default"}}},
                         {"data", data}};
    ASSERT_TRUE(client_->create(kube::resources::kSecrets, "default", secret).isOk());
  }

  void defineCluster(const std::string& url) {
    const json spec = {
        {"url", url},
        {"openapiVersion", "v0.0.38"},
        {"user", slurm_->user()},
        {"tokenSecretRef", {{"name", "local-jwt"}}},
        {"output",
         {{"sharedFilesystem",
           {{"slurmPath", slurm_->outputDir()}, {"operatorPath", slurm_->outputDir()}}}}}};
    auto existing = client_->get(kSlurmClusters, "", "local");
    if (existing.isOk()) {
      json updated = *existing;
      updated["spec"] = spec;
      ASSERT_TRUE(client_->update(kSlurmClusters, "", updated).isOk());
      return;
    }
    const json cluster = {{"apiVersion", "hetbench.io/v1alpha1"},
                          {"kind", "SlurmCluster"},
                          {"metadata", {{"name", "local"}}},
                          {"spec", spec}};
    ASSERT_TRUE(client_->create(kSlurmClusters, "", cluster).isOk());
  }

  OperatorProcess& startSlurmOperator() {
    return startOperator({"--cluster-resource-namespace", "default", "--slurm-poll-interval",
                          "500ms", "--slurm-probe-interval", "2s"});
  }

  /// A run on slurm-gpu whose jobs print `epochs` epochs of `samples` samples each, `pause`
  /// seconds apart.
  static json slurmRun(int gpus, const std::string& samples, double pause = 0) {
    std::string script = trainingScript(2, samples, 2.0);
    if (pause > 0) script = "sleep " + std::to_string(pause) + "; " + script;
    return {{"benchmark", "resnet50"},
            {"system", "slurm-gpu"},
            {"workload",
             {{"image", "none"},
              {"command", {"sh", "-c", script}},
              {"accelerator", {{"count", gpus}}}}}};
  }

  /// The jobs Slurm has for a run (by the units' comments).
  std::vector<slurm::JobInfo> jobsOf(const std::string& uid) {
    auto all = api_->jobs();
    EXPECT_TRUE(all.isOk()) << all.status().toString();
    std::vector<slurm::JobInfo> out;
    if (!all.isOk()) return out;
    for (const slurm::JobInfo& job : *all)
      if (job.comment.find("/" + uid + "/") != std::string::npos) out.push_back(job);
    return out;
  }

  std::unique_ptr<testing_support::SlurmCluster> slurm_;
  std::string token_;
  std::unique_ptr<slurm::SlurmApi> api_;
};

// Verifies a matrix sweep on Slurm across a SIGKILL of the operator: each of the four units runs
// as one Slurm job, submitted once even though the operator is killed while jobs run, and the run
// succeeds with its units measured from the jobs' output and its trials judged.
TEST_F(SlurmTargetTest, AMatrixSweepRunsEachUnitOnceAcrossASigkill) {
  OperatorProcess& first = startSlurmOperator();
  json spec = referenced(slurmRun(1, "$(params.samples)", 3), 10.0);
  spec["matrix"] = {{"samples", {"100", "200"}}};
  spec["repetitions"] = 2;
  spec["parallelism"] = 2;
  createRun("sweep", spec);
  ASSERT_TRUE(eventually([&] {
    const json run = getRun("sweep");
    int submitted = 0;
    for (const json& t : run.value("/status/trials"_json_pointer, json::array()))
      submitted += t.value("/workload/jobId"_json_pointer, 0) > 0;
    return submitted >= 1;
  })) << getRun("sweep").dump(2);
  first.kill();
  startSlurmOperator();
  const json run = waitForPhase("sweep", "Succeeded");
  std::set<std::int64_t> ids;
  for (const json& t : run["status"]["trials"]) {
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(t["workload"]["kind"], "SlurmJob");
    EXPECT_EQ(t["workload"]["cluster"], "local");
    ids.insert(t["workload"]["jobId"].get<std::int64_t>());
    EXPECT_TRUE(t.contains("metrics")) << t.dump();
  }
  EXPECT_EQ(ids.size(), 4u);
  const std::vector<slurm::JobInfo> jobs = jobsOf(run["metadata"]["uid"]);
  EXPECT_EQ(jobs.size(), 4u) << "a unit was submitted twice";
  ASSERT_EQ(run["status"]["results"].size(), 2u);
  for (const json& result : run["status"]["results"])
    EXPECT_EQ(result["verdict"], "Pass") << result.dump();
  EXPECT_EQ(condition(run, "SlurmReachable")["status"], "True");
}

// Verifies startTimeout on Slurm: with every GPU held by another job, a unit asking for one pends
// with reason Resources and fails at startTimeout with that reason, its job cancelled.
TEST_F(SlurmTargetTest, AJobThatCannotGetItsGpusFailsAtStartTimeoutWithSlurmsReason) {
  slurm::JobRequest holder;
  holder.name = "holder";
  holder.partition = slurm_->partition();
  holder.script = "#!/bin/sh\nsleep 120\n";
  holder.workingDirectory = slurm_->outputDir();
  holder.standardOutput = slurm_->outputDir() + "/holder.out";
  holder.environment = {{"PATH", "/usr/bin:/bin"}};
  holder.nodes = 2;
  holder.gpusPerNode = 2;
  holder.timeLimitMinutes = 5;
  ASSERT_TRUE(api_->submit(holder).isOk());
  startSlurmOperator();
  json spec = slurmRun(1, "100");
  spec["startTimeout"] = "5s";
  createRun("starved", spec);
  const json run = waitForPhase("starved", "Failed");
  const json unit = run["status"]["trials"][0];
  EXPECT_EQ(unit["reason"], "Resources") << unit.dump();
  EXPECT_NE(unit["message"].get<std::string>().find("still pending after startTimeout 5s"),
            std::string::npos);
  auto job = api_->job(unit["workload"]["jobId"].get<std::int64_t>());
  ASSERT_TRUE(job.isOk()) << job.status().toString();
  EXPECT_TRUE(eventually([&] {
    auto now = api_->job(unit["workload"]["jobId"].get<std::int64_t>());
    return now.isOk() && now->state == slurm::JobState::kCancelled;
  })) << "the pending job was not cancelled";
}

// Verifies that a refused token, an unreachable slurmrestd and a URL that answers errors show in
// the run's SlurmReachable condition, that nothing is submitted meanwhile, and that the unit is
// submitted once when Slurm answers again.
TEST_F(SlurmTargetTest, SlurmTroubleIsAConditionAndNothingIsSubmittedTwice) {
  storeToken(token_.substr(0, token_.size() - 4) + "AAAA");
  startSlurmOperator();
  const json created = createRun("troubled", slurmRun(1, "100"));
  const std::string uid = created["metadata"]["uid"];
  json run;
  ASSERT_TRUE(eventually([&] {
    run = getRun("troubled");
    return condition(run, "SlurmReachable")["reason"] == "Unauthorized";
  })) << run.dump(2);
  EXPECT_TRUE(jobsOf(uid).empty());

  storeToken(token_);
  ASSERT_TRUE(slurm_->stopRest().isOk());
  ASSERT_TRUE(eventually([&] {
    run = getRun("troubled");
    return condition(run, "SlurmReachable")["reason"] == "Unreachable";
  })) << run.dump(2);

  defineCluster("http://127.0.0.1:" + std::to_string(harness_.port()));  // not slurmrestd
  ASSERT_TRUE(eventually([&] {
    run = getRun("troubled");
    return condition(run, "SlurmReachable")["reason"] == "InvalidSlurmCluster";
  })) << run.dump(2);
  EXPECT_NE(condition(run, "SlurmReachable")["message"].get<std::string>().find(
                "slurmrestd does not serve this path"),
            std::string::npos);
  ASSERT_TRUE(slurm_->startRest().isOk());
  EXPECT_TRUE(jobsOf(uid).empty());

  defineCluster(slurm_->restUrl());
  run = waitForPhase("troubled", "Succeeded");
  EXPECT_EQ(condition(run, "SlurmReachable")["status"], "True");
  EXPECT_EQ(jobsOf(uid).size(), 1u);
  EXPECT_TRUE(waitForEvent("troubled", "SlurmUnreachable"));
}

// Verifies that timeLimit is the job's own: a job that outlives it while no operator runs is
// ended by Slurm (TIMEOUT), and the operator that comes back finds the unit TimedOut; the job's
// output up to then is kept.
TEST_F(SlurmTargetTest, SlurmEndsAJobPastItsTimeLimitWhileTheOperatorIsStopped) {
  OperatorProcess& first = startSlurmOperator();
  json spec = slurmRun(1, "100");
  spec["benchmark"] = "custom";
  spec["workload"]["command"] = {"sh", "-c", "echo started; sleep 300"};
  spec["timeLimit"] = "5s";
  createRun("overtime", spec);
  std::int64_t id = 0;
  ASSERT_TRUE(eventually([&] {
    const json run = getRun("overtime");
    id = run.value("/status/trials/0/workload/jobId"_json_pointer, std::int64_t{0});
    if (id == 0) return false;
    auto job = api_->job(id);
    return job.isOk() && job->state == slurm::JobState::kRunning;
  }));
  first.terminate(std::chrono::seconds(10));
  EXPECT_TRUE(eventually(
      [&] {
        auto job = api_->job(id);
        return job.isOk() && job->state == slurm::JobState::kTimeout;
      },
      std::chrono::seconds(150)))
      << "Slurm did not end the job at its time limit";
  startSlurmOperator();
  const json run = waitForPhase("overtime", "Failed");
  const json unit = run["status"]["trials"][0];
  EXPECT_EQ(unit["phase"], "TimedOut") << unit.dump();
  EXPECT_EQ(unit["reason"], "SlurmTimeLimit");
  EXPECT_NE(unit["message"].get<std::string>().find("TIMEOUT"), std::string::npos);
  bool kept = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(logDir_)) {
    if (entry.path().filename() != "batch.log") continue;
    std::ifstream in(entry.path());
    std::string line;
    std::getline(in, line);
    kept = kept || line == "started";
  }
  EXPECT_TRUE(kept) << "the job's output was not kept";
}

// Verifies that a BenchmarkSchedule drives a Slurm system as any other: its run at the next slot
// runs its unit as a Slurm job to success.
TEST_F(SlurmTargetTest, AScheduleRunsOnSlurm) {
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkschedule.yaml", kBenchmarkSchedules));
  startSlurmOperator();
  const json schedule = {{"apiVersion", "hetbench.io/v1alpha1"},
                         {"kind", "BenchmarkSchedule"},
                         {"metadata", {{"name", "nightly"}, {"namespace", "default"}}},
                         {"spec",
                          {{"schedule", "* * * * *"},
                           {"runTemplate", {{"spec", referenced(slurmRun(1, "100"), 10.0)}}}}}};
  ASSERT_TRUE(client_->create(kBenchmarkSchedules, "default", schedule).isOk());
  std::string name;
  ASSERT_TRUE(eventually(
      [&] {
        kube::ListOptions options;
        options.labelSelector = "hetbench.io/schedule=nightly";
        auto runs = client_->list(kRuns, "default", options);
        if (!runs.isOk() || runs->items.empty()) return false;
        name = runs->items[0]["metadata"]["name"];
        return true;
      },
      std::chrono::seconds(75)))
      << "no run at the next minute";
  const json run = waitForPhase(name, "Succeeded");
  EXPECT_EQ(run["status"]["trials"][0]["workload"]["kind"], "SlurmJob");
  EXPECT_EQ(run["status"]["results"][0]["verdict"], "Pass");
  EXPECT_EQ(jobsOf(run["metadata"]["uid"]).size(), 1u);
}

// Verifies a unit on two nodes: one job on both, one launcher on each through srun with its rank,
// the world size and the first node as master, both launchers' output in the unit's log.
TEST_F(SlurmTargetTest, AUnitOnTwoNodesRunsALauncherOnEach) {
  startSlurmOperator();
  json spec = slurmRun(1, "100");
  spec["benchmark"] = "custom";
  spec["workload"]["nodes"] = 2;
  spec["workload"]["command"] = {
      "sh", "-c", "echo \"rank $RANK of $WORLD_SIZE on $SLURMD_NODENAME, master $MASTER_ADDR\""};
  createRun("wide", spec);
  const json run = waitForPhase("wide", "Succeeded");
  const json unit = run["status"]["trials"][0];
  EXPECT_EQ(unit["nodes"], json::array({"node[1-2]"}));
  std::set<std::string> lines;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(logDir_)) {
    if (entry.path().filename() != "batch.log") continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) lines.insert(line);
  }
  EXPECT_EQ(lines, (std::set<std::string>{"rank 0 of 2 on node1, master 127.0.0.1",
                                          "rank 1 of 2 on node2, master 127.0.0.1"}));
}

}  // namespace
}  // namespace hetbench::controller::testing
