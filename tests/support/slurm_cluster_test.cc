// The Slurm harness against Debian's real daemons: REST with and without a valid token, a GPU
// job through the REST API, slurmrestd stopped and started, and nothing left running after it.

#include "support/slurm_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "http/test_client.h"

namespace hetbench::testing_support {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr const char* kApi = "/slurm/v0.0.38";

/// One request to slurmrestd as `user` with `token`; nullopt when nothing answers.
std::optional<http::testing::Response> rest(const SlurmCluster& cluster, const std::string& method,
                                            const std::string& target, const std::string& token,
                                            const std::string& body = "") {
  std::unique_ptr<http::testing::TestConnection> connection =
      http::testing::TestConnection::connect(cluster.restPort());
  if (!connection) return std::nullopt;
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                        "X-SLURM-USER-NAME: " + cluster.user() + "\r\n" +
                        "X-SLURM-USER-TOKEN: " + token + "\r\nConnection: close\r\n";
  if (!body.empty()) {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  if (!connection->sendAll(request)) return std::nullopt;
  return connection->readResponse();
}

std::unique_ptr<SlurmCluster> startCluster() {
  common::Result<std::unique_ptr<SlurmCluster>> cluster = SlurmCluster::start();
  EXPECT_TRUE(cluster.isOk()) << cluster.status().toString();
  return cluster.isOk() ? std::move(cluster).value() : nullptr;
}

std::string tokenOf(const SlurmCluster& cluster) {
  common::Result<std::string> token = cluster.token();
  EXPECT_TRUE(token.isOk()) << token.status().toString();
  return token.valueOr("");
}

/// A batch job of `script` through POST .../job/submit, its output in outputDir()/`name`.out.
nlohmann::json submitBody(const SlurmCluster& cluster, const std::string& name,
                          const std::string& script) {
  return {{"script", "#!/bin/sh\n" + script},
          {"job",
           {{"name", name},
            {"partition", cluster.partition()},
            {"current_working_directory", cluster.outputDir()},
            {"standard_output", cluster.outputDir() + "/" + name + ".out"},
            {"environment", {{"PATH", "/usr/bin:/bin"}}},
            {"time_limit", 5},
            {"gres", "gpu:1"}}}};
}

long milliseconds(Clock::duration duration) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(duration).count());
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Verifies that slurmrestd answers a ping with the cluster's token and refuses a wrong one.
TEST(SlurmClusterTest, RestAcceptsTheTokenAndRefusesAWrongOne) {
  std::unique_ptr<SlurmCluster> cluster = startCluster();
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->restUrl(), "http://127.0.0.1:" + std::to_string(cluster->restPort()));
  const std::string token = tokenOf(*cluster);

  std::optional<http::testing::Response> ping =
      rest(*cluster, "GET", std::string(kApi) + "/ping", token);
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200) << ping->body;
  const nlohmann::json pings = nlohmann::json::parse(ping->body)["pings"];
  ASSERT_EQ(pings.size(), 1u) << ping->body;
  EXPECT_EQ(pings[0]["ping"], "UP");

  std::string wrong = token;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  std::optional<http::testing::Response> refused =
      rest(*cluster, "GET", std::string(kApi) + "/ping", wrong);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->status, 200);
  EXPECT_THAT(refused->body, ::testing::Not(HasSubstr("\"pings\"")));
}

/// Verifies that a job asking for a GPU, submitted through REST, runs as the REST user with the
/// GPU and writes its output where the test reads it; one asking for more GPUs than the node
/// has is refused.
TEST(SlurmClusterTest, RestJobWithAGpuWritesItsOutput) {
  std::unique_ptr<SlurmCluster> cluster = startCluster();
  ASSERT_NE(cluster, nullptr);
  const std::string token = tokenOf(*cluster);

  const nlohmann::json body = submitBody(
      *cluster, "hello", "echo \"user=$(id -un) gpus=$SLURM_GPUS_ON_NODE job=$SLURM_JOB_ID\"");
  std::optional<http::testing::Response> submitted =
      rest(*cluster, "POST", std::string(kApi) + "/job/submit", token, body.dump());
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 200) << submitted->body;
  const nlohmann::json reply = nlohmann::json::parse(submitted->body);
  ASSERT_TRUE(reply.contains("job_id")) << submitted->body;
  const int jobId = reply["job_id"].get<int>();

  common::Status idle = cluster->waitIdle(std::chrono::seconds(60));
  ASSERT_TRUE(idle.isOk()) << idle.toString() << "\n" << cluster->logTails();
  EXPECT_EQ(readFile(cluster->outputDir() + "/hello.out"),
            "user=" + cluster->user() + " gpus=1 job=" + std::to_string(jobId) + "\n");
  common::Result<std::string> shown =
      cluster->command({"scontrol", "show", "job", std::to_string(jobId)});
  ASSERT_TRUE(shown.isOk()) << shown.status().toString();
  EXPECT_THAT(*shown, HasSubstr("JobState=COMPLETED"));

  nlohmann::json tooMany = submitBody(*cluster, "greedy", "true");
  tooMany["job"]["gres"] = "gpu:3";
  std::optional<http::testing::Response> refused =
      rest(*cluster, "POST", std::string(kApi) + "/job/submit", token, tooMany.dump());
  ASSERT_TRUE(refused);
  EXPECT_FALSE(nlohmann::json::parse(refused->body).contains("job_id")) << refused->body;
}

/// Verifies that stopRest() closes slurmrestd's port and startRest() brings it back on the same
/// port, while slurmctld keeps answering the command-line clients.
TEST(SlurmClusterTest, RestStopsAndStartsAgain) {
  std::unique_ptr<SlurmCluster> cluster = startCluster();
  ASSERT_NE(cluster, nullptr);
  const std::string token = tokenOf(*cluster);

  ASSERT_TRUE(cluster->stopRest().isOk());
  EXPECT_FALSE(portOpen(cluster->restPort()));
  EXPECT_FALSE(rest(*cluster, "GET", std::string(kApi) + "/ping", token));
  common::Result<std::string> ping = cluster->command({"scontrol", "ping"});
  ASSERT_TRUE(ping.isOk()) << ping.status().toString();
  EXPECT_THAT(*ping, HasSubstr("is UP"));

  common::Status started = cluster->startRest();
  ASSERT_TRUE(started.isOk()) << started.toString();
  std::optional<http::testing::Response> again =
      rest(*cluster, "GET", std::string(kApi) + "/ping", token);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;

  common::Result<std::string> failed = cluster->command({"scontrol", "show", "job", "999999"});
  ASSERT_FALSE(failed.isOk());
  EXPECT_THAT(failed.status().message(), HasSubstr("Invalid job id"));
}

/// Verifies that a start that fails says why, with the daemons' logs, and leaves nothing behind.
TEST(SlurmClusterTest, StartFailureSaysWhy) {
  SlurmClusterOptions badPartition;
  badPartition.partition = "no spaces";
  common::Result<std::unique_ptr<SlurmCluster>> refused = SlurmCluster::start(badPartition);
  ASSERT_FALSE(refused.isOk());
  EXPECT_THAT(refused.status().message(), HasSubstr("--partition must be a plain name"));

  SlurmClusterOptions impatient;
  impatient.startTimeout = std::chrono::seconds(0);
  common::Result<std::unique_ptr<SlurmCluster>> late = SlurmCluster::start(impatient);
  ASSERT_FALSE(late.isOk());
  EXPECT_TRUE(late.status().isTimeout()) << late.status().toString();
  EXPECT_THAT(late.status().message(), HasSubstr("waited 0 s for"));
  EXPECT_THAT(late.status().message(), HasSubstr("/log/munged.out (last lines)"));
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    if (!entry.path().filename().string().starts_with("hetbench-slurm-")) continue;
    EXPECT_NE(readFile((entry.path() / "owner").string()), std::to_string(::getpid()) + "\n")
        << entry.path() << " left behind";
  }
}

/// Verifies that destroying the cluster while a job runs leaves no process of it (daemons,
/// slurmstepd, the job's processes) and closes its ports.
TEST(SlurmClusterTest, DestructionLeavesNothingRunning) {
  const auto starting = Clock::now();
  std::unique_ptr<SlurmCluster> cluster = startCluster();
  ASSERT_NE(cluster, nullptr);
  std::cout << "started in " << milliseconds(Clock::now() - starting) << " ms\n";
  const std::string directory = cluster->directory();
  std::map<std::string, int> ports;
  std::ifstream env(directory + "/env");
  for (std::string line; std::getline(env, line);) {
    const auto equals = line.find('=');
    if (line.find("_PORT=") != std::string::npos)
      ports[line.substr(0, equals)] = std::stoi(line.substr(equals + 1));
  }
  ASSERT_EQ(ports.size(), 3u);

  const std::string token = tokenOf(*cluster);
  const nlohmann::json body =
      submitBody(*cluster, "sleeper", "echo started; sleep 300 & sleep 300; wait");
  std::optional<http::testing::Response> submitted =
      rest(*cluster, "POST", std::string(kApi) + "/job/submit", token, body.dump());
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 200) << submitted->body;
  const std::string output = cluster->outputDir() + "/sleeper.out";
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (readFile(output).find("started") == std::string::npos && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_THAT(readFile(output), HasSubstr("started")) << cluster->logTails();
  // The daemons (4), slurmstepd, the job's shell and its two sleeps.
  EXPECT_GE(processesOf(directory).size(), 8u);

  const auto stopping = Clock::now();
  cluster.reset();
  std::cout << "stopped with a job running in " << milliseconds(Clock::now() - stopping) << " ms\n";

  EXPECT_THAT(processesOf(directory), ::testing::IsEmpty());
  for (const auto& [name, port] : ports)
    EXPECT_FALSE(portOpen(static_cast<std::uint16_t>(port))) << name;
  EXPECT_FALSE(std::filesystem::exists(directory));
}

}  // namespace
}  // namespace hetbench::testing_support
