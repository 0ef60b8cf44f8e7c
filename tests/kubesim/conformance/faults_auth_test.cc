#include <gtest/gtest.h>

#include <chrono>

#include "conformance/status_util.h"
#include "hetbench/http/tls.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

// Verifies that injected failures answer the Status the real server sends for each code, then
// requests succeed again.
TEST(Faults, FailRequests) {
  Harness h;
  ASSERT_EQ(h.post("/kubesim/faults", {{"failRequests", {{"count", 1}, {"code", 500}}}}).status,
            200);
  expectStatus(h.get(kConfigMaps), 500, "InternalError", "Internal error occurred: injected fault",
               {{"causes", {{{"message", "injected fault"}}}}});
  EXPECT_EQ(h.get(kConfigMaps).status, 200);

  ASSERT_EQ(h.post("/kubesim/faults",
                   {{"failRequests", {{"count", 1}, {"code", 503}, {"retryAfterSeconds", 2}}}})
                .status,
            200);
  Response unavailable = h.get(kConfigMaps);
  expectStatus(unavailable, 503, "ServiceUnavailable",
               "the server is currently unable to handle the request", {{"retryAfterSeconds", 2}});
  EXPECT_EQ(unavailable.header("retry-after"), "2");
  EXPECT_EQ(h.get(kConfigMaps).status, 200);
}

// Verifies a 429 with Retry-After and details.retryAfterSeconds, for as many requests as asked.
TEST(Faults, TooManyRequests) {
  Harness h;
  ASSERT_EQ(h.post("/kubesim/faults",
                   {{"failRequests", {{"count", 2}, {"code", 429}, {"retryAfterSeconds", 3}}}})
                .status,
            200);
  for (int i = 0; i < 2; ++i) {
    Response r = h.get(kConfigMaps);
    expectStatus(r, 429, "TooManyRequests", "Too many requests, please try again later.",
                 {{"retryAfterSeconds", 3}});
    EXPECT_EQ(r.header("retry-after"), "3");
  }
  EXPECT_EQ(h.get(kConfigMaps).status, 200);
}

// Verifies that latencyMs delays answers.
TEST(Faults, Latency) {
  Harness h;
  ASSERT_EQ(h.post("/kubesim/faults", {{"latencyMs", 200}}).status, 200);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(h.get(kConfigMaps).status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
  ASSERT_EQ(h.post("/kubesim/faults", {{"latencyMs", 0}}).status, 200);
}

// Verifies that malformed fault requests are 400 and change nothing.
TEST(Faults, BadRequests) {
  struct Case {
    json body;
    std::string message;
  };
  const std::vector<Case> cases = {
      {json::array(), "a fault request must be a JSON object"},
      {{{"failRequests", {{"count", 1}, {"code", 404}}}},
       "failRequests.code must be 429, 500, 503 or 504"},
      {{{"failRequests", {{"count", "one"}, {"code", 500}}}},
       "failRequests needs integer count and code"},
      {{{"latencyMs", -1}}, "latencyMs must be an integer between 0 and 60000"},
      {{{"explode", true}}, "unknown fault \"explode\""},
  };
  Harness h;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.dump());
    expectStatus(h.post("/kubesim/faults", c.body), 400, "BadRequest", c.message);
  }
  EXPECT_EQ(h.get(kConfigMaps).status, 200);
  expectStatus(h.get("/kubesim/faults"), 405, "MethodNotAllowed",
               "the server does not allow this method on the requested resource", json::object());
}

// Verifies bearer token authentication: none or a wrong one is 401, the right one passes, and
// /readyz needs no credentials.
TEST(Auth, BearerToken) {
  Harness::Options options;
  options.token = "s3cret";
  Harness h(options);
  EXPECT_EQ(h.get(kConfigMaps).status, 200);
  std::unique_ptr<TestConnection> anonymous = TestConnection::connect(h.port());
  ASSERT_NE(anonymous, nullptr);
  ASSERT_TRUE(anonymous->sendAll(http::testing::getRequest(kConfigMaps, "Connection: close\r\n")));
  std::optional<Response> refused = anonymous->readResponse();
  ASSERT_TRUE(refused.has_value());
  expectStatus(*refused, 401, "Unauthorized", "Unauthorized");
  for (const char* header : {"Authorization: Bearer wrong\r\n", "Authorization: \r\n"}) {
    SCOPED_TRACE(header);
    expectStatus(h.request("GET", kConfigMaps, "", "application/json", header), 401, "Unauthorized",
                 "Unauthorized");
  }
  Response ready = h.request("GET", "/readyz", "", "application/json", "Authorization: \r\n");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "ok");
}

// Verifies that over TLS a client certificate signed by the cluster CA authenticates without a
// token, and that without one the request is anonymous and refused.
TEST(Auth, ClientCertificate) {
  Harness::Options options;
  options.token = "s3cret";
  options.tls = true;
  Harness h(options);
  common::Result<http::ClientCertificate> cert =
      http::generateClientCertificate(h.certificate(), "alice", {"devs"});
  ASSERT_TRUE(cert.isOk());
  auto send = [&](const std::string& certPem, const std::string& keyPem) {
    http::testing::TlsClientOptions tls;
    tls.caPem = h.certificate().caCertPem;
    tls.verifyIp = "127.0.0.1";
    tls.certPem = certPem;
    tls.keyPem = keyPem;
    std::string error;
    std::unique_ptr<TestConnection> c = TestConnection::connectTls(h.port(), tls, &error);
    EXPECT_NE(c, nullptr) << error;
    if (!c) return Response{};
    EXPECT_TRUE(c->sendAll(http::testing::getRequest(kConfigMaps, "Connection: close\r\n")));
    return c->readResponse().value_or(Response{});
  };
  EXPECT_EQ(send(cert->certPem, cert->keyPem).status, 200);
  expectStatus(send("", ""), 401, "Unauthorized", "Unauthorized");
  EXPECT_EQ(h.get(kConfigMaps).status, 200) << "the token still works over TLS";
}

}  // namespace
}  // namespace hetbench::kubesim::testing
