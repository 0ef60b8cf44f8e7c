#include "hetbench/controller/endpoints.h"

#include <prometheus/collectable.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "hetbench/logs/layout.h"

namespace hetbench::controller {

common::Result<std::optional<BindAddress>> parseBindAddress(std::string_view text,
                                                            std::string_view flag) {
  if (text == "0") return std::optional<BindAddress>();
  const std::size_t colon = text.rfind(':');
  auto invalid = [&] {
    return common::invalidError("--" + std::string(flag) + ": invalid bind address \"" +
                                std::string(text) + "\" (want HOST:PORT, :PORT or 0)");
  };
  if (colon == std::string_view::npos) return invalid();
  const std::string_view portText = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
  if (portText.empty() || ec != std::errc() || end != portText.data() + portText.size() ||
      port > 65535) {
    return invalid();
  }
  std::string host(text.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.find(':') != std::string::npos && text.front() != '[') return invalid();
  if (host.empty()) host = "0.0.0.0";
  return std::optional<BindAddress>(BindAddress{host, static_cast<std::uint16_t>(port)});
}

common::Result<std::unique_ptr<http::Server>> serveProbes(const BindAddress& address,
                                                          std::function<bool()> healthy,
                                                          std::function<bool()> ready) {
  http::ServerOptions options;
  options.host = address.host;
  options.port = address.port;
  options.maxConnections = 64;
  // Probes and scrapes need a connection or two each; a client that opens more only pushes
  // out its own older ones (http::ServerOptions).
  options.maxConnectionsPerClient = 8;
  options.maxBodyBytes = 4096;
  auto handler = [healthy = std::move(healthy), ready = std::move(ready)](
                     const http::Request& request, http::ResponseWriter& out) {
    const http::Headers text = {{"Content-Type", "text/plain; charset=utf-8"}};
    if (request.method != "GET" && request.method != "HEAD") {
      out.send(405, text, "method not allowed\n");
    } else if (request.path == "/healthz") {
      if (healthy()) {
        out.send(200, text, "ok\n");
      } else {
        out.send(500, text, "lost the leader lease\n");
      }
    } else if (request.path == "/readyz") {
      if (ready()) {
        out.send(200, text, "ok\n");
      } else {
        out.send(500, text, "informer caches have not synced\n");
      }
    } else {
      out.send(404, text, "not found\n");
    }
  };
  return http::Server::start(options, std::move(handler));
}

namespace {

bool plainName(std::string_view segment) {
  if (segment.empty() || segment.front() == '.' || segment.size() > 253) return false;
  return std::all_of(segment.begin(), segment.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
  });
}

/// The segments of `path` after `prefix`, or nullopt when one is not a plain name.
std::optional<std::vector<std::string>> segments(std::string_view path) {
  std::vector<std::string> out;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view segment = path.substr(0, slash);
    if (!segment.empty()) {
      if (!plainName(segment)) return std::nullopt;
      out.emplace_back(segment);
    }
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

const http::Headers kText = {{"Content-Type", "text/plain; charset=utf-8"}};

/// Answers a refused request (401 with the scheme it wants, 403, or 500).
void sendRefusal(http::ResponseWriter& out, const AuthDecision& decision) {
  http::Headers headers = kText;
  if (decision.httpStatus == 401) headers.emplace_back("WWW-Authenticate", "Bearer");
  out.send(decision.httpStatus, headers, decision.message + "\n");
}

/// Who sent `request` when the endpoint checks callers: nullopt once a refusal was sent.
std::optional<Identity> caller(const EndpointSecurity& security, const http::Request& request,
                               http::ResponseWriter& out) {
  if (security.authorizer == nullptr) return Identity{};
  AuthDecision who = security.authorizer->authenticate(request);
  if (!who.allowed()) {
    sendRefusal(out, who);
    return std::nullopt;
  }
  return std::move(who.identity);
}

/// Whether `identity` may do `attributes`; sends the refusal when not.
bool mayDo(const EndpointSecurity& security, const Identity& identity,
           const AccessAttributes& attributes, http::ResponseWriter& out) {
  if (security.authorizer == nullptr) return true;
  const AuthDecision may = security.authorizer->authorize(identity, attributes);
  if (!may.allowed()) sendRefusal(out, may);
  return may.allowed();
}

http::ServerOptions endpointOptions(const BindAddress& address, const EndpointSecurity& security) {
  http::ServerOptions options;
  options.host = address.host;
  options.port = address.port;
  options.tls = security.tls;
  options.clientCaPem = security.clientCaPem;
  options.maxConnections = 64;
  options.maxBodyBytes = 4096;
  return options;
}

void serveLogRequest(const std::filesystem::path& dir, const EndpointSecurity& security,
                     const http::Request& request, http::ResponseWriter& out) {
  const http::Headers& text = kText;
  constexpr std::string_view kPrefix = "/logs/";
  const std::optional<Identity> identity = caller(security, request, out);
  if (!identity) return;
  if (request.method != "GET") {
    out.send(405, text, "method not allowed\n");
    return;
  }
  if (request.path.rfind(kPrefix, 0) != 0) {
    out.send(404, text, "not found\n");
    return;
  }
  std::optional<std::vector<std::string>> parts =
      segments(std::string_view(request.path).substr(kPrefix.size()));
  if (!parts || parts->size() < 2) {
    out.send(400, text, "want /logs/NAMESPACE/RUN/[PATH] with plain names\n");
    return;
  }
  if (!mayDo(security, *identity, {"get", (*parts)[0], "", "pods", "log", ""}, out)) return;
  std::filesystem::path target = dir / logs::LogLayout::runDir((*parts)[0], (*parts)[1]);
  for (std::size_t i = 2; i < parts->size(); ++i) target /= (*parts)[i];
  std::error_code ec;
  if (parts->size() == 2) {
    if (!std::filesystem::is_directory(target, ec)) {
      out.send(404, text, "no logs for this run\n");
      return;
    }
    std::vector<std::string> files;
    for (auto it = std::filesystem::recursive_directory_iterator(target, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !it->is_symlink(ec))
        files.push_back(std::filesystem::relative(it->path(), target, ec).generic_string());
    }
    std::sort(files.begin(), files.end());
    out.send(200, {{"Content-Type", "application/json"}}, nlohmann::json(files).dump() + "\n");
    return;
  }
  if (std::filesystem::is_symlink(target, ec) || !std::filesystem::is_regular_file(target, ec)) {
    out.send(404, text, "no such log\n");
    return;
  }
  std::ifstream in(target, std::ios::binary);
  if (!in || !out.startStream(200, text)) return;
  std::string chunk(64 * 1024, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    if (!out.write(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())))) return;
  }
}

common::Result<std::string> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return common::invalidError("cannot read " + path.string());
  if (text.empty()) return common::invalidError(path.string() + " is missing or empty");
  return text;
}

common::Result<http::ServingCertificate> readCertificateDir(const std::filesystem::path& dir) {
  http::ServingCertificate out;
  HETBENCH_ASSIGN_OR_RETURN(out.certPem, readFile(dir / "tls.crt"));
  HETBENCH_ASSIGN_OR_RETURN(out.keyPem, readFile(dir / "tls.key"));
  return out;
}

}  // namespace

common::Result<http::ServingCertificate> endpointCertificate(
    const std::filesystem::path& certDir, const std::vector<std::string>& hostNames) {
  if (!certDir.empty()) return readCertificateDir(certDir);
  return http::generateServingCertificate(hostNames, {"127.0.0.1", "::1"});
}

CertificateReloader::CertificateReloader(std::filesystem::path certDir,
                                         http::ServingCertificate current)
    : certDir_(std::move(certDir)), current_(std::move(current)) {}

common::Status CertificateReloader::reload(const std::vector<http::Server*>& servers) {
  HETBENCH_ASSIGN_OR_RETURN(http::ServingCertificate read, readCertificateDir(certDir_));
  if (read.certPem == current_.certPem && read.keyPem == current_.keyPem) return common::okStatus();
  for (http::Server* server : servers) {
    if (server == nullptr) continue;
    const common::Status taken = server->setCertificate(read);
    if (!taken.isOk()) {
      return common::invalidError(certDir_.string() +
                                  ": the renewed certificate does not load: " + taken.message());
    }
  }
  current_ = std::move(read);
  return common::okStatus();
}

common::Result<std::unique_ptr<http::Server>> serveLogs(const BindAddress& address,
                                                        const std::filesystem::path& dir,
                                                        const EndpointSecurity& security) {
  http::ServerOptions options = endpointOptions(address, security);
  options.maxConnectionsPerClient = 16;
  return http::Server::start(
      options, [dir, security](const http::Request& request, http::ResponseWriter& out) {
        serveLogRequest(dir, security, request, out);
      });
}

common::Result<std::unique_ptr<http::Server>> serveMetrics(
    const BindAddress& address, std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
    const EndpointSecurity& security) {
  http::ServerOptions options = endpointOptions(address, security);
  // Prometheus keeps one connection per target; a few more let people look.
  options.maxConnectionsPerClient = 8;
  auto handler = [collectables = std::move(collectables), security](const http::Request& request,
                                                                    http::ResponseWriter& out) {
    const std::optional<Identity> identity = caller(security, request, out);
    if (!identity) return;
    if (request.method != "GET" && request.method != "HEAD") {
      out.send(405, kText, "method not allowed\n");
      return;
    }
    if (request.path != "/metrics") {
      out.send(404, kText, "not found\n");
      return;
    }
    if (!mayDo(security, *identity, {"get", "", "", "", "", "/metrics"}, out)) return;
    std::vector<prometheus::MetricFamily> families;
    for (const auto& collectable : collectables) {
      std::vector<prometheus::MetricFamily> more = collectable->Collect();
      families.insert(families.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
    }
    out.send(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
             prometheus::TextSerializer().Serialize(families));
  };
  return http::Server::start(options, std::move(handler));
}

}  // namespace hetbench::controller
