#include "testing/harness.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hetbench/common/yaml.h"

namespace hetbench::kubesim::testing {

using nlohmann::json;

Harness::Harness() : Harness(Options{}) {}

Harness::Harness(Options options) : options_(std::move(options)) {
  std::string pattern = (std::filesystem::temp_directory_path() / "kubesim-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  workDir_ = pattern;
  ClusterOptions cluster;
  cluster.config = options_.config;
  cluster.workDir = workDir_;
  cluster.watchHistory = options_.watchHistory;
  cluster.restartBackoff = options_.restartBackoff;
  cluster.jobBackoff = options_.jobBackoff;
  cluster.clock = options_.clock;
  cluster_ = std::make_unique<Cluster>(std::move(cluster));
  if (!cluster_->start().isOk()) std::abort();
  ApiServerOptions api;
  api.token = options_.token;
  api.issuedTokenLimit = options_.issuedTokenLimit;
  api.bookmarkInterval = options_.bookmarkInterval;
  apiServer_ = std::make_unique<ApiServer>(cluster_->api(), api, &cluster_->kubelet());
  http::ServerOptions serverOptions;
  serverOptions.idleTimeout = options_.idleTimeout;
  if (options_.tls) {
    certificate_ = *http::generateServingCertificate(options_.tlsDnsNames, options_.tlsIpAddresses);
    clientCertificate_ = *http::generateClientCertificate(certificate_, "tester", {"testers"});
    serverOptions.tls = certificate_;
    serverOptions.clientCaPem = certificate_.caCertPem;
  }
  common::Result<std::unique_ptr<http::Server>> server = http::Server::start(
      serverOptions, [this](const http::Request& request, http::ResponseWriter& out) {
        apiServer_->handle(request, out);
      });
  if (!server.isOk()) std::abort();
  server_ = std::move(*server);
  apiServer_->setAdvertiseAddress("127.0.0.1:" + std::to_string(server_->port()));
}

Harness::~Harness() {
  apiServer_->stop();
  server_->stop();
  cluster_->stop();
  std::error_code ec;
  std::filesystem::remove_all(workDir_, ec);
}

std::unique_ptr<TestConnection> Harness::connect() {
  if (!options_.tls) return TestConnection::connect(port());
  http::testing::TlsClientOptions tls;
  tls.caPem = certificate_.caCertPem;
  tls.verifyIp = "127.0.0.1";
  return TestConnection::connectTls(port(), tls);
}

Response Harness::request(const std::string& method, const std::string& target,
                          const std::string& body, const std::string& contentType,
                          const std::string& headers) {
  std::unique_ptr<TestConnection> c = connect();
  if (!c) return Response{};
  std::string text = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (headers.find("Accept:") == std::string::npos) text += "Accept: application/json\r\n";
  text += "Connection: close\r\n";
  if (!options_.token.empty() && headers.find("Authorization:") == std::string::npos) {
    text += "Authorization: Bearer " + options_.token + "\r\n";
  }
  text += headers;
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    text += "Content-Type: " + contentType + "\r\nContent-Length: " + std::to_string(body.size()) +
            "\r\n";
  }
  text += "\r\n" + body;
  if (!c->sendAll(text)) return Response{};
  return c->readResponse().value_or(Response{});
}

std::unique_ptr<TestConnection> Harness::stream(const std::string& target, Response* head,
                                                const std::string& headers) {
  std::unique_ptr<TestConnection> c = connect();
  if (!c) return nullptr;
  std::string text = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!options_.token.empty()) text += "Authorization: Bearer " + options_.token + "\r\n";
  text += headers + "\r\n";
  if (!c->sendAll(text)) return nullptr;
  std::optional<Response> response = c->readHead();
  if (!response) return nullptr;
  *head = std::move(*response);
  return c;
}

bool Harness::eventually(const std::function<bool()>& condition,
                         std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

json bodyJson(const Response& response) {
  json j = json::parse(response.body, nullptr, false);
  return j.is_discarded() ? json() : j;
}

std::vector<json> readEvents(TestConnection& connection, std::size_t count,
                             std::chrono::milliseconds timeout) {
  std::vector<json> events;
  std::string pending;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (events.size() < count && std::chrono::steady_clock::now() < deadline) {
    std::optional<std::string> chunk = connection.readChunk();
    if (!chunk || chunk->empty()) break;
    pending += *chunk;
    std::size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      json event = json::parse(pending.substr(0, newline), nullptr, false);
      pending.erase(0, newline + 1);
      if (!event.is_discarded()) events.push_back(std::move(event));
    }
  }
  return events;
}

json configMap(const std::string& name, const json& data, const json& labels) {
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
  if (!data.is_null()) cm["data"] = data;
  if (!labels.is_null()) cm["metadata"]["labels"] = labels;
  return cm;
}

json commandPod(const std::string& name, const std::string& script,
                const std::string& restartPolicy) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"restartPolicy", restartPolicy},
            {"terminationGracePeriodSeconds", 2},
            {"containers",
             {{{"name", "main"}, {"image", "busybox"}, {"command", {"/bin/sh", "-c", script}}}}}}}};
}

json readManifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  common::Result<std::vector<json>> documents = common::yamlDocuments(text.str());
  if (!documents.isOk() || documents.value().empty()) return nullptr;
  return documents.value().front();
}

}  // namespace hetbench::kubesim::testing
