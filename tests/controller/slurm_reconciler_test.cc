// Units on Slurm in the run reconciler, in process: the fake client's store, a fake slurmrestd
// and a FakeClock, for the paths a real Slurm cannot be made to take on demand (an answer lost
// after the job was made, a job slurmctld forgot).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hetbench/common/base64.h"
#include "hetbench/controller/slurm_connector.h"
#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;

/// slurmctld's jobs, and how the next submission goes.
struct FakeSlurmctld {
  std::vector<slurm::JobInfo> jobs;
  std::vector<slurm::JobRequest> submitted;
  /// The next submission makes its job and then answers this error (a lost answer).
  std::optional<common::Status> loseAnswer;
  int cancels = 0;
};

class FakeRest final : public slurm::SlurmApi {
 public:
  explicit FakeRest(FakeSlurmctld& ctld) : ctld_(ctld) {}
  common::Result<slurm::Submitted> submit(const slurm::JobRequest& request) override {
    ctld_.submitted.push_back(request);
    slurm::JobInfo job;
    job.id = 100 + static_cast<std::int64_t>(ctld_.jobs.size());
    job.name = request.name;
    job.comment = request.comment;
    job.state = slurm::JobState::kPending;
    job.reason = "Priority";
    job.submitTime = common::WallTime(std::chrono::seconds(1));
    ctld_.jobs.push_back(job);
    if (ctld_.loseAnswer) {
      common::Status lost = *ctld_.loseAnswer;
      ctld_.loseAnswer.reset();
      return lost;
    }
    return slurm::Submitted{job.id, {}};
  }
  common::Result<slurm::JobInfo> job(std::int64_t id) override {
    for (const slurm::JobInfo& job : ctld_.jobs)
      if (job.id == id) return job;
    return common::notFoundError("Invalid job id specified");
  }
  common::Result<std::vector<slurm::JobInfo>> jobs(std::optional<common::WallTime>) override {
    return ctld_.jobs;
  }
  common::Status cancel(std::int64_t id) override {
    ++ctld_.cancels;
    for (slurm::JobInfo& job : ctld_.jobs)
      if (job.id == id) job.state = slurm::JobState::kCancelled;
    return common::okStatus();
  }
  common::Result<std::vector<slurm::NodeInfo>> nodes() override {
    return std::vector<slurm::NodeInfo>{};
  }
  common::Result<std::vector<slurm::PartitionInfo>> partitions() override {
    return std::vector<slurm::PartitionInfo>{};
  }
  common::Status ping() override { return common::okStatus(); }

 private:
  FakeSlurmctld& ctld_;
};

class StoreClusters final : public SlurmClusterCache {
 public:
  explicit StoreClusters(kube::testing::FakeKubeClient& client) : client_(client) {}
  std::optional<json> slurmCluster(const std::string& name) const override {
    common::Result<json> got = client_.get(kSlurmClusters, "", name);
    return got.isOk() ? std::optional<json>(*got) : std::nullopt;
  }

 private:
  kube::testing::FakeKubeClient& client_;
};

class SlurmReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hetbench-slurm-reconciler-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "shared");
    const json cluster = {
        {"apiVersion", "hetbench.io/v1alpha1"},
        {"kind", "SlurmCluster"},
        {"metadata", {{"name", "hpc"}}},
        {"spec",
         {{"url", "http://slurm.example:6820"},
          {"openapiVersion", "v0.0.42"},
          {"user", "bench"},
          {"tokenSecretRef", {{"name", "jwt"}}},
          {"defaults", {{"partition", "gpu"}}},
          {"output",
           {{"sharedFilesystem",
             {{"slurmPath", "/work/hb"}, {"operatorPath", (dir_ / "shared").string()}}}}}}}};
    ASSERT_TRUE(client_.create(kSlurmClusters, "", cluster).isOk());
    const json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "jwt"}, {"namespace", "hetbench-system"}}},
                         {"data", {{"token", common::base64Encode("t")}}}};
    ASSERT_TRUE(client_.create(kube::resources::kSecrets, "hetbench-system", secret).isOk());
    SlurmConnectorOptions connect;
    connect.secretNamespace = "hetbench-system";
    connect.clients =
        [this](slurm::ClientOptions) -> common::Result<std::unique_ptr<slurm::SlurmApi>> {
      return std::unique_ptr<slurm::SlurmApi>(std::make_unique<FakeRest>(ctld_));
    };
    connector_ = std::make_unique<SlurmConnector>(client_, clusters_, connect);
    options_.logDir = dir_ / "logs";
    options_.slurm = connector_.get();
    options_.slurmPollInterval = 1s;
    reconciler_ = std::make_unique<Reconciler>(client_, cache_, clock_, events_, options_, &logs_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  json slurmRun(const std::string& name) {
    RunBuilder run(name);
    run.set(
        "workload",
        {{"image", "none"}, {"command", {"sh", "-c", "echo hi"}}, {"slurm", {{"cluster", "hpc"}}}});
    return run.obj();
  }
  void apply(const json& run) { ASSERT_TRUE(client_.create(kBenchmarkRuns, "lab", run).isOk()); }
  ReconcileResult reconcile(const std::string& name) {
    common::Result<ReconcileResult> r = reconciler_->reconcile("lab", name);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? *r : ReconcileResult{};
  }
  json run(const std::string& name) { return client_.get(kBenchmarkRuns, "lab", name).value(); }
  json unit(const std::string& name) { return run(name)["status"]["trials"][0]; }

  std::filesystem::path dir_;
  kube::testing::FakeKubeClient client_;
  StoreCache cache_{client_};
  StoreClusters clusters_{client_};
  common::FakeClock clock_;
  RecordingEvents events_;
  FakeLogTracker logs_;
  FakeSlurmctld ctld_;
  std::unique_ptr<SlurmConnector> connector_;
  ReconcilerOptions options_;
  std::unique_ptr<Reconciler> reconciler_;
};

// Verifies a unit's job from submission to success: submitted once with the cluster's partition,
// the output directory and the unit's comment, its state followed by polling, its output
// followed into the log directory, and the unit measured and Succeeded.
TEST_F(SlurmReconcilerTest, AUnitRunsAsOneJob) {
  apply(slurmRun("one"));
  reconcile("one");
  ASSERT_EQ(ctld_.submitted.size(), 1u);
  const slurm::JobRequest& request = ctld_.submitted[0];
  EXPECT_EQ(request.partition, "gpu");
  EXPECT_EQ(request.workingDirectory, "/work/hb");
  const std::string uid = run("one")["metadata"]["uid"];
  EXPECT_EQ(request.standardOutput, "/work/hb/hetbench-" + uid + "-0-0.out");
  EXPECT_EQ(request.comment, "hetbench.io/unit=lab/one/" + uid + "/0-0");
  EXPECT_EQ(unit("one")["workload"]["jobId"], 100);
  EXPECT_EQ(unit("one")["phase"], "Running");
  EXPECT_EQ(events_.count("Submitted"), 1);

  std::ofstream(dir_ / "shared" / ("hetbench-" + uid + "-0-0.out")) << "hi\n";
  ctld_.jobs[0].state = slurm::JobState::kCompleted;
  ctld_.jobs[0].exitCode = 0;
  reconcile("one");
  EXPECT_EQ(unit("one")["phase"], "Succeeded");
  reconcile("one");
  EXPECT_EQ(run("one")["status"]["phase"], "Succeeded");
  EXPECT_EQ(ctld_.submitted.size(), 1u);
  const std::string kept = (dir_ / "logs" / unit("one")["logDir"].get<std::string>() /
                            unit("one")["workload"]["name"].get<std::string>() / "batch.log")
                               .string();
  std::ifstream in(kept);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hi");
}

// Verifies that a submission whose answer was lost (the job made, slurmrestd gone before it
// answered) is not submitted again: the next pass finds the job by its comment and adopts it.
TEST_F(SlurmReconcilerTest, ALostAnswerIsNotSubmittedAgain) {
  ctld_.loseAnswer = common::unavailableError("cannot reach slurmrestd");
  apply(slurmRun("lost"));
  const ReconcileResult first = reconcile("lost");
  EXPECT_EQ(unit("lost")["phase"], "Pending");
  EXPECT_EQ(first.requeueAfter, std::chrono::nanoseconds(1s));
  bool unreachable = false;
  const json status = run("lost")["status"];
  for (const json& c : status["conditions"])
    unreachable = unreachable || (c["type"] == "SlurmReachable" && c["reason"] == "Unreachable");
  EXPECT_TRUE(unreachable) << status.dump(2);
  reconcile("lost");
  EXPECT_EQ(ctld_.submitted.size(), 1u);
  EXPECT_EQ(unit("lost")["workload"]["jobId"], 100);
  EXPECT_EQ(unit("lost")["phase"], "Running");
}

// Verifies a job slurmctld no longer knows: failed JobLost, its output still followed, and a
// unit whose output exists without a job is never submitted.
TEST_F(SlurmReconcilerTest, AForgottenJobIsLostNotRun) {
  apply(slurmRun("forgotten"));
  reconcile("forgotten");
  ctld_.jobs.clear();
  reconcile("forgotten");
  EXPECT_EQ(unit("forgotten")["phase"], "Failed");
  EXPECT_EQ(unit("forgotten")["reason"], "JobLost");
  EXPECT_EQ(ctld_.submitted.size(), 1u);

  apply(slurmRun("written"));
  const std::string uid = client_.get(kBenchmarkRuns, "lab", "written").value()["metadata"]["uid"];
  std::ofstream(dir_ / "shared" / ("hetbench-" + uid + "-0-0.out")) << "partial\n";
  reconcile("written");
  EXPECT_EQ(unit("written")["reason"], "JobLost");
  EXPECT_EQ(ctld_.submitted.size(), 1u) << "a unit whose job wrote output was submitted again";
}

// Verifies suspend and deletion: the job of a running unit is cancelled, once.
TEST_F(SlurmReconcilerTest, SuspendAndDeletionCancelTheJob) {
  apply(slurmRun("stopped"));
  reconcile("stopped");
  json suspended = run("stopped");
  suspended["spec"]["suspend"] = true;
  ASSERT_TRUE(client_.update(kBenchmarkRuns, "lab", suspended).isOk());
  reconcile("stopped");
  EXPECT_EQ(ctld_.cancels, 1);
  EXPECT_EQ(unit("stopped")["phase"], "Cancelled");

  apply(slurmRun("deleted"));
  reconcile("deleted");
  json deleting = run("deleted");
  deleting["metadata"]["deletionTimestamp"] = "2026-11-27T00:00:00Z";
  ASSERT_TRUE(client_.update(kBenchmarkRuns, "lab", deleting).isOk());
  reconcile("deleted");
  EXPECT_EQ(ctld_.cancels, 2);
  EXPECT_EQ(run("deleted")["metadata"]["finalizers"], json::array());
}

}  // namespace
}  // namespace hetbench::controller::testing
