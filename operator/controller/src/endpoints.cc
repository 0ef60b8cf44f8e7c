#include "hetbench/controller/endpoints.h"

#include <charconv>

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

}  // namespace hetbench::controller
