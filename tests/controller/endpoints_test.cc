#include "hetbench/controller/endpoints.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "hetbench/http/tls.h"
#include "http/test_client.h"

namespace hetbench::controller {
namespace {

TEST(Endpoints, ParseBindAddress) {
  struct Row {
    const char* text;
    bool ok;
    bool disabled;
    const char* host;
    int port;
  };
  const Row rows[] = {
      {":8081", true, false, "0.0.0.0", 8081},
      {"127.0.0.1:0", true, false, "127.0.0.1", 0},
      {"localhost:9000", true, false, "localhost", 9000},
      {"[::1]:8080", true, false, "::1", 8080},
      {"0", true, true, "", 0},
      {"8080", false, false, "", 0},
      {":", false, false, "", 0},
      {":65536", false, false, "", 0},
      {":80x", false, false, "", 0},
      {"::1:8080", false, false, "", 0},
      {"", false, false, "", 0},
  };
  for (const Row& row : rows) {
    auto parsed = parseBindAddress(row.text, "metrics-bind-address");
    ASSERT_EQ(parsed.isOk(), row.ok) << row.text;
    if (!row.ok) {
      EXPECT_NE(parsed.status().message().find("--metrics-bind-address"), std::string::npos);
      continue;
    }
    ASSERT_EQ(!parsed.value().has_value(), row.disabled) << row.text;
    if (row.disabled) continue;
    EXPECT_EQ(parsed.value()->host, row.host) << row.text;
    EXPECT_EQ(parsed.value()->port, row.port) << row.text;
  }
}

TEST(Endpoints, ProbesFollowTheirPredicates) {
  std::atomic<bool> healthy{true};
  std::atomic<bool> ready{false};
  auto server = serveProbes(
      {"127.0.0.1", 0}, [&] { return healthy.load(); }, [&] { return ready.load(); });
  ASSERT_TRUE(server.isOk()) << server.status().toString();
  auto status = [&](const std::string& method, const std::string& path) {
    auto conn = http::testing::TestConnection::connect(server.value()->port());
    if (conn == nullptr) return -1;
    conn->sendAll(method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    std::optional<http::testing::Response> response = conn->readResponse();
    return response ? response->status : -1;
  };
  EXPECT_EQ(status("GET", "/healthz"), 200);
  EXPECT_EQ(status("GET", "/readyz"), 500);
  ready = true;
  EXPECT_EQ(status("GET", "/readyz"), 200);
  healthy = false;
  EXPECT_EQ(status("GET", "/healthz"), 500);
  EXPECT_EQ(status("GET", "/metrics"), 404);
  EXPECT_EQ(status("POST", "/healthz"), 405);
  server.value()->stop();
}

// Verifies that the probes keep answering while other clients hold the probe and log ports
// with connections that send nothing (issue 20: 64 of them used to fill the probe server and
// fail the liveness probe): every new connection pushes out one that waited longer.
TEST(Endpoints, SilentConnectionsDoNotStarveTheProbes) {
  auto probes = serveProbes(
      {"127.0.0.1", 0}, [] { return true; }, [] { return true; });
  ASSERT_TRUE(probes.isOk()) << probes.status().toString();
  auto logs = serveLogs({"127.0.0.1", 0}, std::filesystem::temp_directory_path());
  ASSERT_TRUE(logs.isOk()) << logs.status().toString();
  EndpointSecurity tls;
  auto certificate = endpointCertificate("", {"localhost"});
  ASSERT_TRUE(certificate.isOk()) << certificate.status().toString();
  tls.tls = certificate.value();
  auto metrics = serveMetrics({"127.0.0.1", 0}, {}, tls);
  ASSERT_TRUE(metrics.isOk()) << metrics.status().toString();
  std::vector<std::unique_ptr<http::testing::TestConnection>> silent;
  for (int i = 0; i < 1000; ++i) {
    for (const auto* server : {probes.value().get(), logs.value().get(), metrics.value().get()}) {
      silent.push_back(http::testing::TestConnection::connect(server->port()));
      ASSERT_NE(silent.back(), nullptr);
    }
  }
  for (const char* path : {"/healthz", "/readyz"}) {
    auto answer = http::testing::get(probes.value()->port(), path);
    ASSERT_TRUE(answer.has_value()) << path;
    EXPECT_EQ(answer->status, 200) << path;
  }
  EXPECT_TRUE(silent.front()->closedByServer());
  http::testing::TlsClientOptions client;
  client.caPem = certificate.value().caCertPem;
  auto scrape = http::testing::TestConnection::connectTls(metrics.value()->port(), client);
  ASSERT_NE(scrape, nullptr);
  ASSERT_TRUE(scrape->sendAll("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto answer = scrape->readResponse();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 200);
  for (http::Server* server : {probes.value().get(), logs.value().get(), metrics.value().get()})
    server->stop();
}

// Verifies that /metrics shows every collectable at each scrape, and nothing else is served.
TEST(Endpoints, MetricsGatherTheCollectablesAtEachScrape) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::Counter& counter = prometheus::BuildCounter()
                                     .Name("hetbench_test_total")
                                     .Help("A counter of the test.")
                                     .Register(*registry)
                                     .Add({});
  auto server = serveMetrics({"127.0.0.1", 0}, {registry});
  ASSERT_TRUE(server.isOk()) << server.status().toString();
  const std::uint16_t port = server.value()->port();
  counter.Increment(3);
  auto scraped = http::testing::get(port, "/metrics");
  ASSERT_TRUE(scraped.has_value());
  EXPECT_EQ(scraped->status, 200);
  EXPECT_EQ(scraped->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(scraped->body.find("hetbench_test_total 3"), std::string::npos) << scraped->body;
  counter.Increment();
  auto get = [&](const std::string& target) {
    return http::testing::get(port, target).value_or(http::testing::Response{});
  };
  EXPECT_NE(get("/metrics").body.find("hetbench_test_total 4"), std::string::npos);
  EXPECT_EQ(get("/other").status, 404);
  server.value()->stop();
}

// Verifies that a renewed certificate in --tls-cert-dir serves the next connections, and that
// a broken one is refused while the server keeps the one it has.
TEST(Endpoints, RenewedCertificatesServeTheNextConnections) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hetbench-certs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const http::ServingCertificate& cert) {
    std::ofstream(dir / "tls.crt") << cert.certPem;
    std::ofstream(dir / "tls.key") << cert.keyPem;
  };
  auto first = http::generateServingCertificate({"localhost"}, {"127.0.0.1"});
  auto second = http::generateServingCertificate({"localhost"}, {"127.0.0.1"});
  ASSERT_TRUE(first.isOk() && second.isOk());
  EXPECT_FALSE(endpointCertificate(dir, {}).isOk()) << "an empty directory has no certificate";
  write(first.value());
  auto loaded = endpointCertificate(dir, {});
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EndpointSecurity security;
  security.tls = loaded.value();
  auto server = serveMetrics({"127.0.0.1", 0}, {}, security);
  ASSERT_TRUE(server.isOk()) << server.status().toString();
  auto trusts = [&](const http::ServingCertificate& ca) {
    http::testing::TlsClientOptions client;
    client.caPem = ca.caCertPem;
    client.verifyIp = "127.0.0.1";
    return http::testing::TestConnection::connectTls(server.value()->port(), client) != nullptr;
  };
  EXPECT_TRUE(trusts(first.value()));
  EXPECT_FALSE(trusts(second.value()));

  CertificateReloader reloader(dir, loaded.value());
  EXPECT_TRUE(reloader.reload({server.value().get()}).isOk()) << "nothing changed";
  write(second.value());
  const common::Status renewed = reloader.reload({server.value().get()});
  EXPECT_TRUE(renewed.isOk()) << renewed.toString();
  EXPECT_TRUE(trusts(second.value()));
  EXPECT_FALSE(trusts(first.value()));

  std::ofstream(dir / "tls.key") << first.value().keyPem;  // not the certificate's key
  EXPECT_FALSE(reloader.reload({server.value().get()}).isOk());
  EXPECT_TRUE(trusts(second.value()));
  server.value()->stop();
  std::filesystem::remove_all(dir);
}

// Verifies the log server serves files under its directory and nothing outside it.
TEST(Endpoints, LogsStayInsideTheirDirectory) {
  const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("hetbench-logsrv-" + std::to_string(::getpid()));
  const std::filesystem::path dir = base / "logs";
  std::filesystem::create_directories(dir / "ns/run/0-0/pod");
  std::ofstream(dir / "ns/run/0-0/pod/main.log") << "2026-11-22T10:00:00Z hello\n";
  std::ofstream(dir / "ns/run/0-0/manifest.json") << "[]\n";
  std::ofstream(base / "secret") << "no\n";
  std::filesystem::create_symlink(base / "secret", dir / "ns/run/0-0/link.log");

  auto server = serveLogs({"127.0.0.1", 0}, dir);
  ASSERT_TRUE(server.isOk()) << server.status().toString();
  auto get = [&](const std::string& target) {
    return http::testing::get(server.value()->port(), target).value_or(http::testing::Response{});
  };
  EXPECT_EQ(get("/logs/ns/run/0-0/pod/main.log").body, "2026-11-22T10:00:00Z hello\n");
  const http::testing::Response listing = get("/logs/ns/run/");
  EXPECT_EQ(listing.status, 200);
  EXPECT_EQ(nlohmann::json::parse(listing.body),
            nlohmann::json({"0-0/manifest.json", "0-0/pod/main.log"}));
  struct Row {
    const char* target;
    int status;
  };
  const Row rows[] = {
      {"/logs/ns/run/0-0/pod/other.log", 404},
      {"/logs/ns/absent/", 404},
      {"/logs/ns/run/0-0/link.log", 404},
      {"/logs/ns/run/../../../secret", 400},
      {"/logs/ns/run/%2e%2e/%2e%2e/%2e%2e/secret", 400},
      {"/logs/ns/run/.hidden", 400},
      {"/logs/ns/", 400},
      {"/logs/ns/run/0-0/pod/main.log%00", 400},
      {"/elsewhere", 404},
  };
  for (const Row& row : rows) EXPECT_EQ(get(row.target).status, row.status) << row.target;
  server.value()->stop();
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace hetbench::controller
