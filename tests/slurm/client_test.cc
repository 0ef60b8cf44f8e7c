// The slurmrestd client against a real Slurm (Debian's 22.05: slurmctld, slurmd and slurmrestd
// with its v0.0.38 plugin, started by support/slurm_cluster.h on the loopback address).

#include "hetbench/slurm/client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/slurm_cluster.h"

namespace hetbench::slurm {
namespace {

using namespace std::chrono_literals;

class SlurmClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing_support::SlurmCluster::start();
    ASSERT_TRUE(cluster.isOk()) << cluster.status().toString();
    cluster_ = std::move(*cluster);
    auto token = cluster_->token();
    ASSERT_TRUE(token.isOk()) << token.status().toString();
    token_ = *token;
    client_ = clientWith(token_);
  }

  std::unique_ptr<SlurmApi> clientWith(const std::string& token) {
    ClientOptions options;
    options.url = cluster_->restUrl();
    options.version = ApiVersion::kV0_0_38;
    options.credentials = [user = cluster_->user(), token]() -> common::Result<Credentials> {
      return Credentials{user, token};
    };
    options.timeout = 5s;
    auto client = makeSlurmClient(options);
    EXPECT_TRUE(client.isOk()) << client.status().toString();
    return client.isOk() ? std::move(*client) : nullptr;
  }

  JobRequest job(const std::string& name, const std::string& script) const {
    JobRequest r;
    r.name = name;
    r.comment = "hetbench.io/unit=test/" + name;
    r.partition = cluster_->partition();
    r.script = "#!/bin/sh\n" + script;
    r.workingDirectory = cluster_->outputDir();
    r.standardOutput = cluster_->outputDir() + "/" + name + ".log";
    r.environment = {{"PATH", "/usr/bin:/bin"}, {"HETBENCH_UNIT", name}};
    r.timeLimitMinutes = 5;
    return r;
  }

  // Polls the job until `done` holds, at most `limit`.
  JobInfo waitFor(std::int64_t id, const std::function<bool(const JobInfo&)>& done,
                  std::chrono::seconds limit = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    JobInfo last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto info = client_->job(id);
      if (info.isOk()) {
        last = *info;
        if (done(last)) return last;
      }
      std::this_thread::sleep_for(200ms);
    }
    ADD_FAILURE() << "job " << id << " still " << last.stateText << " (" << last.reason << ")";
    return last;
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::unique_ptr<testing_support::SlurmCluster> cluster_;
  std::string token_;
  std::unique_ptr<SlurmApi> client_;
};

bool finished(const JobInfo& job) { return isFinished(job.state); }

TEST_F(SlurmClientTest, SubmitsAJobWithAGpuAndReadsItsEnd) {
  JobRequest request =
      job("gpu-job", "echo unit=$HETBENCH_UNIT gpus=$SLURM_GPUS_ON_NODE tasks=$SLURM_NTASKS\n");
  request.gpusPerNode = 1;
  auto submitted = client_->submit(request);
  ASSERT_TRUE(submitted.isOk()) << submitted.status().toString();
  const JobInfo info = waitFor(submitted->id, finished);
  EXPECT_EQ(info.state, JobState::kCompleted) << info.stateText;
  EXPECT_EQ(info.exitCode, 0);
  EXPECT_EQ(info.signal, std::nullopt);
  EXPECT_EQ(info.name, "gpu-job");
  EXPECT_EQ(info.comment, "hetbench.io/unit=test/gpu-job");
  EXPECT_EQ(info.partition, cluster_->partition());
  EXPECT_EQ(info.user, cluster_->user());
  EXPECT_EQ(info.timeLimitMinutes, 5);
  ASSERT_TRUE(info.submitTime && info.startTime && info.endTime);
  EXPECT_LE(*info.startTime, *info.endTime);
  EXPECT_EQ(read(cluster_->outputDir() + "/gpu-job.log"), "unit=gpu-job gpus=1 tasks=1\n");

  auto all = client_->jobs();
  ASSERT_TRUE(all.isOk()) << all.status().toString();
  ASSERT_EQ(all->size(), 1U);
  EXPECT_EQ((*all)[0].id, submitted->id);
  EXPECT_EQ((*all)[0].comment, "hetbench.io/unit=test/gpu-job");
}

TEST_F(SlurmClientTest, GpusPerNodeAreAllocated) {
  JobRequest request = job("two-gpus", "echo gpus=$SLURM_GPUS_ON_NODE\n");
  request.gpusPerNode = 2;
  auto submitted = client_->submit(request);
  ASSERT_TRUE(submitted.isOk()) << submitted.status().toString();
  const JobInfo info = waitFor(submitted->id, finished);
  EXPECT_EQ(info.state, JobState::kCompleted) << info.stateText;
  EXPECT_EQ(read(cluster_->outputDir() + "/two-gpus.log"), "gpus=2\n");
}

TEST_F(SlurmClientTest, AFailedJobKeepsItsExitCode) {
  auto submitted = client_->submit(job("fails", "echo before; exit 3\n"));
  ASSERT_TRUE(submitted.isOk()) << submitted.status().toString();
  const JobInfo info = waitFor(submitted->id, finished);
  EXPECT_EQ(info.state, JobState::kFailed) << info.stateText;
  EXPECT_EQ(info.exitCode, 3);
  EXPECT_EQ(info.reason, "NonZeroExitCode");
  EXPECT_EQ(read(cluster_->outputDir() + "/fails.log"), "before\n");
}

TEST_F(SlurmClientTest, AJobWaitingForGpusSaysWhyAndIsCancelled) {
  JobRequest holder = job("holder", "sleep 120\n");
  holder.gpusPerNode = 2;
  auto held = client_->submit(holder);
  ASSERT_TRUE(held.isOk()) << held.status().toString();
  waitFor(held->id, [](const JobInfo& j) { return j.state == JobState::kRunning; });

  JobRequest waiter = job("waiter", "true\n");
  waiter.gpusPerNode = 1;
  auto waiting = client_->submit(waiter);
  ASSERT_TRUE(waiting.isOk()) << waiting.status().toString();
  const JobInfo pending =
      waitFor(waiting->id, [](const JobInfo& j) { return j.reason == "Resources"; });
  EXPECT_EQ(pending.state, JobState::kPending);
  EXPECT_EQ(pending.startTime, std::nullopt);

  ASSERT_TRUE(client_->cancel(waiting->id).isOk());
  EXPECT_EQ(waitFor(waiting->id, finished).state, JobState::kCancelled);
  ASSERT_TRUE(client_->cancel(held->id).isOk());
  const JobInfo ended = waitFor(held->id, finished);
  EXPECT_EQ(ended.state, JobState::kCancelled);
  EXPECT_TRUE(client_->cancel(held->id).isOk()) << "cancelling an ended job is no error";
}

TEST_F(SlurmClientTest, MoreGpusThanThePartitionHasIsRefused) {
  JobRequest request = job("too-many", "true\n");
  request.gpusPerNode = 3;
  auto submitted = client_->submit(request);
  ASSERT_FALSE(submitted.isOk());
  EXPECT_TRUE(submitted.status().isInvalid()) << submitted.status().toString();
  EXPECT_NE(submitted.status().message().find("Requested node configuration is not available"),
            std::string::npos)
      << submitted.status().message();
}

TEST_F(SlurmClientTest, UnknownJobsAreNotFound) {
  auto info = client_->job(999999);
  ASSERT_FALSE(info.isOk());
  EXPECT_TRUE(info.status().isNotFound()) << info.status().toString();
}

TEST_F(SlurmClientTest, AWrongTokenIsUnauthorizedAndSubmitsNothing) {
  auto wrong = clientWith(token_.substr(0, token_.size() - 4) + "AAAA");
  auto submitted = wrong->submit(job("intruder", "true\n"));
  ASSERT_FALSE(submitted.isOk());
  EXPECT_TRUE(submitted.status().isUnauthorized()) << submitted.status().toString();
  EXPECT_TRUE(wrong->ping().isUnauthorized()) << wrong->ping().toString();
  EXPECT_TRUE(wrong->jobs().status().isUnauthorized());
  auto all = client_->jobs();
  ASSERT_TRUE(all.isOk()) << all.status().toString();
  EXPECT_TRUE(all->empty());
}

TEST_F(SlurmClientTest, AnUnreachableSlurmrestdIsUnavailable) {
  ASSERT_TRUE(cluster_->stopRest().isOk());
  auto submitted = client_->submit(job("unreachable", "true\n"));
  ASSERT_FALSE(submitted.isOk());
  EXPECT_TRUE(submitted.status().isUnavailable()) << submitted.status().toString();
  EXPECT_NE(submitted.status().message().find("whether the job was submitted is unknown"),
            std::string::npos);
  EXPECT_TRUE(client_->ping().isUnavailable());
  ASSERT_TRUE(cluster_->startRest().isOk());
  EXPECT_TRUE(client_->ping().isOk());
}

TEST_F(SlurmClientTest, NodesAndPartitions) {
  auto nodes = client_->nodes();
  ASSERT_TRUE(nodes.isOk()) << nodes.status().toString();
  ASSERT_EQ(nodes->size(), 1U);
  EXPECT_EQ((*nodes)[0].gres.rfind("gpu:2", 0), 0U) << (*nodes)[0].gres;
  EXPECT_EQ((*nodes)[0].partitions, std::vector<std::string>{cluster_->partition()});
  auto partitions = client_->partitions();
  ASSERT_TRUE(partitions.isOk()) << partitions.status().toString();
  ASSERT_EQ(partitions->size(), 1U);
  EXPECT_EQ((*partitions)[0].name, cluster_->partition());
  EXPECT_EQ((*partitions)[0].states, std::vector<std::string>{"UP"});
  EXPECT_EQ((*partitions)[0].maxTimeMinutes, std::nullopt);
}

TEST_F(SlurmClientTest, JobsChangedSinceAFutureTimeAreNone) {
  auto submitted = client_->submit(job("listed", "true\n"));
  ASSERT_TRUE(submitted.isOk()) << submitted.status().toString();
  waitFor(submitted->id, finished);
  auto none = client_->jobs(std::chrono::system_clock::now() + 1h);
  ASSERT_TRUE(none.isOk()) << none.status().toString();
  EXPECT_TRUE(none->empty());
  auto since = client_->jobs(std::chrono::system_clock::now() - 1h);
  ASSERT_TRUE(since.isOk()) << since.status().toString();
  EXPECT_EQ(since->size(), 1U);
}

}  // namespace
}  // namespace hetbench::slurm
