#include "hetbench/kube/credentials.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "hetbench/common/time.h"
#include "temp_dir.h"

namespace hetbench::kube {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using testing_support::kFixtures;
using testing_support::TempDir;

const std::string kPlugin = std::string(kFixtures) + "/fake_exec_plugin.sh";

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int lines(const std::string& path) {
  const std::string content = readAll(path);
  return static_cast<int>(std::count(content.begin(), content.end(), '\n'));
}

// A fake plugin in `mode` that counts its runs in `dir`/runs.
ExecConfig plugin(const TempDir& dir, const std::string& mode,
                  std::vector<std::pair<std::string, std::string>> extra = {}) {
  ExecConfig exec{"client.authentication.k8s.io/v1", kPlugin, {}, {}, "Never"};
  exec.env = {{"FAKE_MODE", mode}, {"FAKE_COUNT_FILE", dir.path() + "/runs"}};
  exec.env.insert(exec.env.end(), extra.begin(), extra.end());
  return exec;
}

// Verifies that a static token and a client certificate are handed out unchanged.
TEST(CredentialProviderTest, StaticTokenAndCertificate) {
  common::FakeClock clock;
  RestConfig config;
  config.token = "abc";
  config.clientCertPem = "CERT";
  config.clientKeyPem = "KEY";
  auto provider = makeCredentialProvider(config, clock);
  auto credentials = provider->get();
  ASSERT_TRUE(credentials.isOk());
  EXPECT_EQ(credentials->token, "abc");
  EXPECT_EQ(credentials->clientCertPem, "CERT");
  EXPECT_EQ(credentials->clientKeyPem, "KEY");
}

// Verifies that a rotated token file is picked up only after the refresh period, or at once
// after invalidate().
TEST(CredentialProviderTest, TokenFileRotatesAfterRefresh) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig config;
  config.tokenFile = dir.write("token", "one\n");
  auto provider = makeCredentialProvider(config, clock, seconds(60));
  EXPECT_EQ(provider->get()->token, "one");
  dir.write("token", "two");
  clock.advance(seconds(59));
  EXPECT_EQ(provider->get()->token, "one");
  clock.advance(seconds(1));
  EXPECT_EQ(provider->get()->token, "two");
  dir.write("token", "three");
  provider->invalidate();
  EXPECT_EQ(provider->get()->token, "three");
}

// Verifies that a token file that disappears keeps the last good token, and that a file that
// was never readable is an error.
TEST(CredentialProviderTest, TokenFileKeepsLastGoodToken) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig config;
  config.tokenFile = dir.write("token", "good");
  auto provider = makeCredentialProvider(config, clock, seconds(1));
  EXPECT_EQ(provider->get()->token, "good");
  std::filesystem::remove(config.tokenFile);
  clock.advance(seconds(5));
  EXPECT_EQ(provider->get()->token, "good");
  dir.write("token", "new");
  EXPECT_EQ(provider->get()->token, "new");

  RestConfig missing;
  missing.tokenFile = dir.path() + "/none";
  auto failing = makeCredentialProvider(missing, clock);
  auto credentials = failing->get();
  ASSERT_FALSE(credentials.isOk());
  EXPECT_EQ(credentials.status().message(), "token file \"" + dir.path() + "/none\": not found");
}

// Verifies the ExecCredential request on KUBERNETES_EXEC_INFO, the extra environment and the
// parsed token.
TEST(ExecPluginTest, RunsPluginWithRequest) {
  TempDir dir;
  auto result =
      runExecPlugin(plugin(dir, "token", {{"FAKE_INFO_FILE", dir.path() + "/info"}}), "https://a");
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->credentials.token, "token-1");
  EXPECT_FALSE(result->expiry.has_value());
  EXPECT_EQ(nlohmann::json::parse(readAll(dir.path() + "/info")),
            nlohmann::json::parse(R"({"apiVersion":"client.authentication.k8s.io/v1",
                                      "kind":"ExecCredential","spec":{"interactive":false}})"));
}

// Verifies that a bare command is looked up in $PATH and a certificate response is parsed.
TEST(ExecPluginTest, LooksUpCommandInPath) {
  TempDir dir;
  ExecConfig exec = plugin(dir, "cert");
  exec.command = "sh";
  exec.args = {kPlugin};
  auto result = runExecPlugin(exec, "https://a");
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->credentials.clientCertPem, "CERT");
  EXPECT_EQ(result->credentials.clientKeyPem, "KEY");
}

// Verifies the errors of runExecPlugin: they name the command and quote stderr.
TEST(ExecPluginTest, Errors) {
  TempDir dir;
  const std::string name = "exec plugin \"" + kPlugin + "\": ";
  auto failed = runExecPlugin(plugin(dir, "fail"), "https://a");
  EXPECT_TRUE(failed.status().isUnavailable());
  EXPECT_EQ(failed.status().message(), name + "exit status 1: no credentials for profile dev");

  auto timedOut = runExecPlugin(plugin(dir, "hang"), "https://a", seconds(1));
  EXPECT_TRUE(timedOut.status().isTimeout());
  EXPECT_EQ(timedOut.status().message(), name + "timed out after 1s");

  auto empty = runExecPlugin(plugin(dir, "empty"), "https://a");
  EXPECT_EQ(empty.status().message(),
            name + "invalid ExecCredential: status has neither a token nor a client certificate");

  auto version = runExecPlugin(
      plugin(dir, "token", {{"FAKE_API_VERSION", "client.authentication.k8s.io/v1beta1"}}),
      "https://a");
  EXPECT_EQ(version.status().message(),
            name +
                "invalid ExecCredential: apiVersion \"client.authentication.k8s.io/v1beta1\" "
                "does not match the request's \"client.authentication.k8s.io/v1\"");

  ExecConfig missing = plugin(dir, "token");
  missing.command = "hetbench-no-such-plugin";
  EXPECT_EQ(runExecPlugin(missing, "https://a").status().message(),
            "exec plugin \"hetbench-no-such-plugin\": No such file or directory");
}

// Verifies that an exec credential without expiry is cached until invalidate().
TEST(ExecCredentialProviderTest, CachesUntilInvalidated) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig config;
  config.exec = plugin(dir, "token");
  auto provider = makeCredentialProvider(config, clock);
  EXPECT_EQ(provider->get()->token, "token-1");
  clock.advance(hours(24));
  EXPECT_EQ(provider->get()->token, "token-1");
  EXPECT_EQ(lines(dir.path() + "/runs"), 1);
  provider->invalidate();
  EXPECT_EQ(provider->get()->token, "token-2");
  EXPECT_EQ(lines(dir.path() + "/runs"), 2);
}

// Verifies that a credential expiring in the future is cached until shortly before its expiry,
// and one already expired is fetched again on every get().
TEST(ExecCredentialProviderTest, RenewsAtExpiry) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig future;
  future.exec =
      plugin(dir, "expiring", {{"FAKE_EXPIRY", common::formatRfc3339(clock.now() + hours(1))}});
  auto provider = makeCredentialProvider(future, clock);
  EXPECT_EQ(provider->get()->token, "token-1");
  clock.advance(std::chrono::minutes(50));
  EXPECT_EQ(provider->get()->token, "token-1");
  clock.advance(std::chrono::minutes(10));
  EXPECT_EQ(provider->get()->token, "token-2");

  TempDir pastDir;
  RestConfig past;
  past.exec =
      plugin(pastDir, "expiring", {{"FAKE_EXPIRY", common::formatRfc3339(clock.now() - hours(1))}});
  auto expired = makeCredentialProvider(past, clock);
  EXPECT_EQ(expired->get()->token, "token-1");
  EXPECT_EQ(expired->get()->token, "token-2");
  EXPECT_EQ(lines(pastDir.path() + "/runs"), 2);
}

// Verifies that concurrent callers share one plugin run.
TEST(ExecCredentialProviderTest, ConcurrentGetsRunPluginOnce) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig config;
  config.exec = plugin(dir, "token");
  auto provider = makeCredentialProvider(config, clock);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] { EXPECT_EQ(provider->get()->token, "token-1"); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(lines(dir.path() + "/runs"), 1);
}

// Verifies that a static token wins over an exec plugin, as in client-go.
TEST(ExecCredentialProviderTest, StaticTokenWinsOverExec) {
  TempDir dir;
  common::FakeClock clock;
  RestConfig config;
  config.token = "static";
  config.exec = plugin(dir, "token");
  EXPECT_EQ(makeCredentialProvider(config, clock)->get()->token, "static");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/runs"));
}

}  // namespace
}  // namespace hetbench::kube
