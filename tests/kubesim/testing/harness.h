#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/cluster.h"
#include "hetbench/http/server.h"
#include "http/test_client.h"
#include "server/http_api.h"

namespace hetbench::kubesim::testing {

using http::testing::Response;
using http::testing::TestConnection;

/// A whole kubesim in the test process, served over real HTTP(S) on 127.0.0.1 with a port the
/// kernel picks, and stopped (every container process with it) when the harness goes.
class Harness {
 public:
  struct Options {
    ClusterConfig config = defaultClusterConfig();
    std::string token;
    /// As ApiServerOptions::issuedTokenLimit.
    std::size_t issuedTokenLimit = 10000;
    bool tls = false;
    /// The serving certificate's subjectAltNames, with tls.
    std::vector<std::string> tlsDnsNames = {"localhost"};
    std::vector<std::string> tlsIpAddresses = {"127.0.0.1"};
    /// As http::ServerOptions::idleTimeout: how long the server keeps an idle connection.
    std::chrono::milliseconds idleTimeout{std::chrono::seconds(120)};
    std::chrono::milliseconds bookmarkInterval{std::chrono::seconds(60)};
    std::size_t watchHistory = 10000;
    std::chrono::milliseconds restartBackoff{100};
    std::chrono::milliseconds jobBackoff{100};
    /// As ClusterOptions::clock.
    const common::Clock* clock = nullptr;
  };

  Harness();
  explicit Harness(Options options);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  std::uint16_t port() const { return server_->port(); }
  Api& api() { return cluster_->api(); }
  ApiServer& apiServer() { return *apiServer_; }
  const http::ServingCertificate& certificate() const { return certificate_; }
  const std::string& workDir() const { return workDir_; }

  /// One request on a fresh connection; `body` is sent with `contentType`. Authorization is
  /// added when the harness has a token and `headers` names none, "Accept: application/json"
  /// when `headers` names no Accept.
  Response request(const std::string& method, const std::string& target,
                   const std::string& body = "",
                   const std::string& contentType = "application/json",
                   const std::string& headers = "");
  Response get(const std::string& target) { return request("GET", target); }
  Response post(const std::string& target, const nlohmann::json& body) {
    return request("POST", target, body.dump());
  }
  Response put(const std::string& target, const nlohmann::json& body) {
    return request("PUT", target, body.dump());
  }
  Response patch(const std::string& target, const std::string& type, const nlohmann::json& body) {
    return request("PATCH", target, body.dump(), type);
  }
  Response del(const std::string& target, const nlohmann::json& body = nullptr) {
    return request("DELETE", target, body.is_null() ? "" : body.dump());
  }

  /// Starts a streaming GET (a watch or a followed log): the response head has been read, the
  /// body is left to readChunk(). nullptr when the connection fails.
  std::unique_ptr<TestConnection> stream(const std::string& target, Response* head,
                                         const std::string& headers = "");

  /// Polls `condition` until it holds or `timeout` passes; the result of the last poll.
  static bool eventually(const std::function<bool()>& condition,
                         std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  std::unique_ptr<TestConnection> connect();

  Options options_;
  std::string workDir_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<ApiServer> apiServer_;
  std::unique_ptr<http::Server> server_;
  http::ServingCertificate certificate_;
  http::ClientCertificate clientCertificate_;
};

/// The body of a response as JSON (null when it is not JSON).
nlohmann::json bodyJson(const Response& response);

/// Reads watch events from a stream until `count` arrived or `timeout` passed.
std::vector<nlohmann::json> readEvents(
    TestConnection& connection, std::size_t count,
    std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// A namespaced object with name and labels, e.g. pod("p1", {{"app","x"}}, spec).
nlohmann::json configMap(const std::string& name, const nlohmann::json& data = nullptr,
                         const nlohmann::json& labels = nullptr);
nlohmann::json commandPod(const std::string& name, const std::string& script,
                          const std::string& restartPolicy = "Never");

/// A YAML (or JSON) manifest file as kubectl sends it: plain scalars that read as booleans, null
/// or integers keep that type, quoted ones stay strings. Null when it cannot be read or parsed.
nlohmann::json readManifest(const std::string& path);

}  // namespace hetbench::kubesim::testing
