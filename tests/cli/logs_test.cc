#include "hetbench/cli/logs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "hetbench/controller/endpoints.h"
#include "hetbench/http/tls.h"

namespace hetbench::cli {
namespace {

TEST(CliLogs, SelectsContainerLogsInUnitOrder) {
  const std::vector<std::string> files = {"10-0/p/main.log",
                                          "2-1/p/main.log",
                                          "2-0/p/setup.log",
                                          "2-0/p/main.log",
                                          "2-0/manifest.json",
                                          "x-0/p/main.log",
                                          "2-0",
                                          "notes.log"};
  struct Row {
    const char* name;
    LogSelection selection;
    std::vector<std::string> want;
  };
  const Row rows[] = {
      {"all", {}, {"2-0/p/main.log", "2-0/p/setup.log", "2-1/p/main.log", "10-0/p/main.log"}},
      {"trial 2",
       {2, std::nullopt, false, ""},
       {"2-0/p/main.log", "2-0/p/setup.log", "2-1/p/main.log"}},
      {"trial 2 repetition 1", {2, 1, false, ""}, {"2-1/p/main.log"}},
      {"repetition 0",
       {std::nullopt, 0, false, ""},
       {"2-0/p/main.log", "2-0/p/setup.log", "10-0/p/main.log"}},
      {"no such trial", {7, std::nullopt, false, ""}, {}},
  };
  for (const Row& row : rows) EXPECT_EQ(selectLogFiles(files, row.selection), row.want) << row.name;
}

constexpr const char* kOld = "00000000-0000-4000-8000-00000000000a";
constexpr const char* kNew = "00000000-0000-4000-8000-00000000000b";

// Verifies which run of a name is shown: the one asked for, else the one not seen deleted,
// else the only one; anything else is NotFound naming the uids.
TEST(CliLogs, ChoosesTheRunOfTheName) {
  const std::string old = kOld;
  const std::string now = kNew;
  const std::vector<std::string> both = {old + "/0-0/p/c.log", old + "/deleted",
                                         now + "/0-0/p/c.log", "0-0/p/c.log"};
  EXPECT_EQ(chooseRun(both, "").value(), now);
  EXPECT_EQ(chooseRun(both, old).value(), old);
  const common::Result<std::string> unknown = chooseRun(both, "0a1b");
  EXPECT_TRUE(unknown.status().isNotFound());
  EXPECT_NE(unknown.status().message().find(old + " (deleted), " + now), std::string::npos)
      << unknown.status().message();
  EXPECT_EQ(chooseRun({old + "/0-0/p/c.log", old + "/deleted"}, "").value(), old);
  const common::Result<std::string> twoGone = chooseRun({old + "/deleted", now + "/deleted"}, "");
  EXPECT_TRUE(twoGone.status().isNotFound());
  EXPECT_NE(twoGone.status().message().find("--uid"), std::string::npos);
  EXPECT_TRUE(chooseRun({old + "/0-0/p/c.log", now + "/0-0/p/c.log"}, "").status().isNotFound());
  EXPECT_TRUE(chooseRun({"0-0/p/c.log"}, "").status().isNotFound());
}

class CliLogsSources : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hetbench-cli-logs-" + std::to_string(::getpid()));
    const std::filesystem::path run = dir_ / "ns/run" / kNew;
    std::filesystem::create_directories(run / "0-0/pod-a");
    std::filesystem::create_directories(run / "1-0/pod-b");
    std::ofstream(run / "0-0/pod-a/main.log")
        << "2026-11-22T10:00:00.000000001Z first line\n2026-11-22T10:00:01Z second line\n";
    std::ofstream(run / "1-0/pod-b/main.log") << "2026-11-22T10:00:02Z other trial";
    std::ofstream(run / "0-0/manifest.json") << "[]\n";
    // The logs of an earlier run of the same name, deleted.
    const std::filesystem::path old = dir_ / "ns/run" / kOld;
    std::filesystem::create_directories(old / "0-0/pod-z");
    std::ofstream(old / "0-0/pod-z/main.log") << "2026-11-21T10:00:00Z the deleted run\n";
    std::ofstream(old / "deleted") << "2026-11-22T09:00:00Z\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

/// Where the log server is, its certificate checked against `caPem` (or not at all).
ServerAccess accessTo(std::string url, std::string caPem = "", bool insecure = false) {
  ServerAccess access;
  access.url = std::move(url);
  access.caPem = std::move(caPem);
  access.insecureSkipTlsVerify = insecure;
  return access;
}

constexpr const char* kAll =
    "==> 0-0/pod-a/main.log <==\nfirst line\nsecond line\n"
    "==> 1-0/pod-b/main.log <==\nother trial\n";

// Verifies the directory and the operator's log server give the same output.
TEST_F(CliLogsSources, DirectoryAndServerAgree) {
  auto server = controller::serveLogs({"127.0.0.1", 0}, dir_);
  ASSERT_TRUE(server.isOk()) << server.status().toString();
  auto remote =
      serverSource(accessTo("http://127.0.0.1:" + std::to_string(server.value()->port())));
  ASSERT_TRUE(remote.isOk());
  std::vector<std::unique_ptr<LogSource>> sources;
  sources.push_back(directorySource(dir_));
  sources.push_back(std::move(remote).value());
  for (const auto& source : sources) {
    std::ostringstream out;
    ASSERT_TRUE(printLogs(*source, "ns", "run", {}, out).isOk());
    EXPECT_EQ(out.str(), kAll);

    std::ostringstream stamped;
    ASSERT_TRUE(printLogs(*source, "ns", "run", {0, 0, true, ""}, stamped).isOk());
    EXPECT_EQ(stamped.str(),
              "==> 0-0/pod-a/main.log <==\n2026-11-22T10:00:00.000000001Z first line\n"
              "2026-11-22T10:00:01Z second line\n");

    std::ostringstream earlier;
    LogSelection deleted;
    deleted.uid = kOld;
    ASSERT_TRUE(printLogs(*source, "ns", "run", deleted, earlier).isOk());
    EXPECT_EQ(earlier.str(), "==> 0-0/pod-z/main.log <==\nthe deleted run\n");

    std::ostringstream none;
    EXPECT_TRUE(printLogs(*source, "ns", "absent", {}, none).isNotFound());
    EXPECT_TRUE(printLogs(*source, "ns", "run", {5, std::nullopt, false, ""}, none).isNotFound());
  }
  server.value()->stop();
}

// Verifies an unreachable server is an error, not an empty answer.
TEST(CliLogs, UnreachableServerIsAnError) {
  auto remote = serverSource(accessTo("http://127.0.0.1:1"));
  ASSERT_TRUE(remote.isOk());
  std::ostringstream out;
  EXPECT_TRUE(printLogs(*remote.value(), "ns", "run", {}, out).isUnavailable());
}

/// Credentials that never change, as a kubeconfig's static token.
class StaticToken final : public kube::CredentialProvider {
 public:
  common::Result<kube::Credentials> get() override { return kube::Credentials{"s3cret", "", ""}; }
  void invalidate() override {}
};

// Verifies that the kubeconfig user's token goes to an HTTPS log server whose certificate the
// given CA signed, never over plain HTTP, and that a server signed by another CA is refused.
TEST(CliLogs, CredentialsGoOverCheckedHttpsOnly) {
  auto certificate = http::generateServingCertificate({"localhost"}, {"127.0.0.1"});
  auto stranger = http::generateServingCertificate({"localhost"}, {"127.0.0.1"});
  ASSERT_TRUE(certificate.isOk() && stranger.isOk());
  std::mutex mu;
  std::vector<std::string> seen;  // the Authorization header of each request
  auto handler = [&](const http::Request& request, http::ResponseWriter& out) {
    {
      std::lock_guard lock(mu);
      seen.push_back(request.header("authorization"));
    }
    out.send(200, {{"Content-Type", "application/json"}}, "[]");
  };
  http::ServerOptions plainOptions;
  auto plain = http::Server::start(plainOptions, handler);
  http::ServerOptions tlsOptions;
  tlsOptions.tls = certificate.value();
  auto secure = http::Server::start(tlsOptions, handler);
  ASSERT_TRUE(plain.isOk() && secure.isOk());
  auto token = std::make_shared<StaticToken>();
  auto listAt = [&](ServerAccess access) {
    access.credentials = token;
    auto source = serverSource(std::move(access));
    EXPECT_TRUE(source.isOk()) << source.status().toString();
    return source.isOk() ? source.value()->list("ns", "run").status() : source.status();
  };
  const std::string port = std::to_string(secure.value()->port());
  EXPECT_TRUE(listAt(accessTo("http://127.0.0.1:" + std::to_string(plain.value()->port()))).isOk());
  EXPECT_TRUE(listAt(accessTo("https://127.0.0.1:" + port, certificate.value().caCertPem)).isOk());
  EXPECT_TRUE(
      listAt(accessTo("https://127.0.0.1:" + port, stranger.value().caCertPem)).isUnavailable());
  EXPECT_TRUE(listAt(accessTo("https://127.0.0.1:" + port, "", true)).isOk());
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(seen, (std::vector<std::string>{"", "Bearer s3cret", "Bearer s3cret"}));
  }
  plain.value()->stop();
  secure.value()->stop();
}

}  // namespace
}  // namespace hetbench::cli
