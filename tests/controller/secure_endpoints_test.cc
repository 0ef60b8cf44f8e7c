// The operator's log server and /metrics as a cluster administrator would try them (issue 20):
// callers are who the API server says their token is, and may read what RBAC lets them.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "hetbench/controller/endpoint_auth.h"
#include "http/test_client.h"
#include "kubeconfig.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;

const kube::GroupVersionResource kRoles{"rbac.authorization.k8s.io", "v1", "roles", true};
const kube::GroupVersionResource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings",
                                               true};
const kube::GroupVersionResource kClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                      "clusterrolebindings", false};

/// Lets the service account team/reader (and the group `log-readers`) read pods/log in
/// `default`, through a Role and a RoleBinding (those that exist are kept).
void grantLogs(kube::KubeClient& client) {
  const json role = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata", {{"name", "log-reader"}, {"namespace", "default"}}},
      {"rules", {{{"apiGroups", {""}}, {"resources", {"pods/log"}}, {"verbs", {"get"}}}}}};
  const json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "log-reader"}, {"namespace", "default"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "log-reader"}}},
      {"subjects",
       {{{"kind", "ServiceAccount"}, {"name", "reader"}, {"namespace", "team"}},
        {{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", "log-readers"}}}}};
  for (const auto& [gvr, object] : {std::pair{kRoles, role}, std::pair{kRoleBindings, binding}}) {
    const common::Result<json> created = client.create(gvr, "default", object);
    ASSERT_TRUE(created.isOk() || created.status().isAlreadyExists())
        << created.status().toString();
  }
}

http::testing::Response getAs(std::uint16_t port, const std::string& target,
                              const http::ServingCertificate& server, const std::string& token) {
  http::testing::TlsClientOptions tls;
  tls.caPem = server.caCertPem;
  tls.verifyIp = "127.0.0.1";
  const std::string header = token.empty() ? "" : "Authorization: Bearer " + token + "\r\n";
  return http::testing::getTls(port, target, tls, header).value_or(http::testing::Response{});
}

/// `hetbench logs` against the log server as the kubeconfig user with `token`: exit status and
/// everything it printed.
std::pair<int, std::string> hetbenchLogs(const std::filesystem::path& dir, std::uint16_t port,
                                         const http::ServingCertificate& server,
                                         const std::string& user, const std::string& token,
                                         const std::string& run) {
  const std::filesystem::path kubeconfig = dir / ("kubeconfig-" + user);
  kubesim::KubeconfigSpec spec;
  spec.server = "https://kubernetes.invalid";
  spec.token = token;
  std::ofstream(kubeconfig) << kubesim::renderKubeconfig(spec);
  const std::filesystem::path ca = dir / "log-server-ca.crt";
  std::ofstream(ca) << server.caCertPem;
  const std::string command = std::string(HETBENCH_CLI_BINARY) +
                              " logs --server https://127.0.0.1:" + std::to_string(port) +
                              " --certificate-authority " + ca.string() + " --kubeconfig " +
                              kubeconfig.string() + " " + run + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Verifies end to end, with a real operator and tokens that kubesim issues and reviews: the log
// server answers 401 without a token, 403 to an account that may not get pods/log in the run's
// namespace, 200 to one that may; /metrics the same for get /metrics; and `hetbench logs
// --server` sends the kubeconfig user's token, so that it prints the log for an allowed user and
// fails with the server's reason for another.
TEST_F(OperatorTest, SecureEndpointsServeOnlyWhomTheApiServerAllows) {
  OperatorProcess& op = startOperator();
  ASSERT_NE(op.logsPort(), 0);
  grantLogs(*client_);
  const std::string reader =
      testing_support::serviceAccountToken(harness_, *client_, "team", "reader");
  const std::string outsider =
      testing_support::serviceAccountToken(harness_, *client_, "team", "outsider");
  createRun("secret", scriptSpec("echo tenant-a-secret"));
  waitForPhase("secret", "Succeeded");

  const http::testing::Response anonymous =
      getAs(op.logsPort(), "/logs/default/secret/", endpointCertificate_, "");
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_EQ(anonymous.header("www-authenticate"), "Bearer");
  EXPECT_EQ(
      getAs(op.logsPort(), "/logs/default/secret/", endpointCertificate_, "not-a-token").status,
      401);
  const http::testing::Response refused =
      getAs(op.logsPort(), "/logs/default/secret/", endpointCertificate_, outsider);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_NE(refused.body.find("User \"system:serviceaccount:team:outsider\" cannot get resource "
                              "\"pods/log\" in API group \"\" in the namespace \"default\""),
            std::string::npos)
      << refused.body;
  const http::testing::Response listed =
      getAs(op.logsPort(), "/logs/default/secret/", endpointCertificate_, reader);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_NE(listed.body.find(".log\""), std::string::npos) << listed.body;
  EXPECT_EQ(getAs(op.logsPort(), "/logs/kube-system/secret/", endpointCertificate_, reader).status,
            403)
      << "the reader's right stops at its namespace";

  EXPECT_EQ(getAs(op.metricsPort(), "/metrics", endpointCertificate_, "").status, 401);
  EXPECT_EQ(getAs(op.metricsPort(), "/metrics", endpointCertificate_, reader).status, 403);
  const http::testing::Response scraped =
      getAs(op.metricsPort(), "/metrics", endpointCertificate_, metricsToken());
  EXPECT_EQ(scraped.status, 200);
  EXPECT_NE(scraped.body.find("hetbench_runs"), std::string::npos);

  const auto [allowedStatus, printed] =
      hetbenchLogs(dir_.path(), op.logsPort(), endpointCertificate_, "reader", reader, "secret");
  EXPECT_EQ(allowedStatus, 0) << printed;
  EXPECT_NE(printed.find("tenant-a-secret"), std::string::npos) << printed;
  const auto [refusedStatus, message] = hetbenchLogs(
      dir_.path(), op.logsPort(), endpointCertificate_, "outsider", outsider, "secret");
  EXPECT_NE(refusedStatus, 0) << message;
  EXPECT_NE(message.find("HTTP 403"), std::string::npos) << message;
  EXPECT_EQ(message.find("tenant-a-secret"), std::string::npos) << message;
}

/// A request as the endpoints see it: a bearer token, or a verified client certificate.
http::Request requestWith(const std::string& token) {
  http::Request request;
  request.method = "GET";
  if (!token.empty()) request.headers["authorization"] = "Bearer " + token;
  return request;
}

const AccessAttributes kLogsOfDefault{"get", "default", "", "pods", "log", ""};

// Verifies the authorizer's answers and their reuse: an allowed access and a valid token are
// reused until their time is up, so a revoked right or a deleted account stops working then and
// not before; client certificates name the user and groups without a TokenReview.
TEST(DelegatingAuthorizer, AnswersAreReusedForTheirTimeOnly) {
  kubesim::testing::Harness harness;
  common::FakeClock clock;
  common::SystemClock wall;
  auto client = testing_support::kubesimClient(harness, wall);
  ASSERT_TRUE(client);
  grantLogs(*client);
  const std::string reader =
      testing_support::serviceAccountToken(harness, *client, "team", "reader");
  AuthorizerOptions options;
  DelegatingAuthorizer authorizer(*client, clock, options);

  AuthDecision decision = authorizer.check(requestWith(reader), kLogsOfDefault);
  EXPECT_TRUE(decision.allowed()) << decision.message;
  EXPECT_EQ(decision.identity.user, "system:serviceaccount:team:reader");
  EXPECT_EQ(authorizer.check(requestWith(""), kLogsOfDefault).httpStatus, 401);

  ASSERT_TRUE(client->remove(kRoleBindings, "default", "log-reader", {}).isOk());
  EXPECT_TRUE(authorizer.check(requestWith(reader), kLogsOfDefault).allowed())
      << "an allowed access is reused for allowedTtl";
  clock.advance(options.allowedTtl);
  decision = authorizer.check(requestWith(reader), kLogsOfDefault);
  EXPECT_EQ(decision.httpStatus, 403) << decision.message;

  const kube::GroupVersionResource serviceAccounts{"", "v1", "serviceaccounts", true};
  ASSERT_TRUE(client->remove(serviceAccounts, "team", "reader", {}).isOk());
  EXPECT_EQ(authorizer.check(requestWith(reader), kLogsOfDefault).httpStatus, 403)
      << "the token's review is reused for authenticatedTtl";
  clock.advance(options.authenticatedTtl);
  EXPECT_EQ(authorizer.check(requestWith(reader), kLogsOfDefault).httpStatus, 401)
      << "the deleted account's token";

  grantLogs(*client);
  http::Request certified = requestWith("");
  certified.clientCommonName = "alice";
  certified.clientOrganizations = {"log-readers"};
  decision = authorizer.check(certified, kLogsOfDefault);
  EXPECT_TRUE(decision.allowed()) << decision.message;
  EXPECT_EQ(decision.identity.groups,
            (std::vector<std::string>{"log-readers", "system:authenticated"}));
  certified.clientOrganizations = {};
  decision = authorizer.check(certified, kLogsOfDefault);
  EXPECT_EQ(decision.httpStatus, 403) << decision.message;
}

// Verifies that a TokenReview the API server cannot answer is a 500 that is not remembered:
// the next request asks again.
TEST(DelegatingAuthorizer, ApiErrorsAreNotRemembered) {
  kubesim::testing::Harness harness;
  common::FakeClock clock;
  common::SystemClock wall;
  kube::RestClientOptions noRetries = testing_support::testClientOptions();
  noRetries.maxRetries = 0;
  auto client = testing_support::kubesimClient(harness, wall, noRetries);
  ASSERT_TRUE(client);
  grantLogs(*client);
  const std::string reader =
      testing_support::serviceAccountToken(harness, *client, "team", "reader");
  DelegatingAuthorizer authorizer(*client, clock);
  ASSERT_EQ(
      harness.post("/kubesim/faults", {{"failRequests", {{"count", 1}, {"code", 503}}}}).status,
      200);
  const AuthDecision failed = authorizer.check(requestWith(reader), kLogsOfDefault);
  EXPECT_EQ(failed.httpStatus, 500) << failed.message;
  EXPECT_NE(failed.message.find("could not review the token"), std::string::npos) << failed.message;
  EXPECT_TRUE(authorizer.check(requestWith(reader), kLogsOfDefault).allowed());
}

}  // namespace
}  // namespace hetbench::controller::testing
