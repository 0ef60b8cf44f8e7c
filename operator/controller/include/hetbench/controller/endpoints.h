#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/controller/endpoint_auth.h"
#include "hetbench/http/server.h"
#include "hetbench/http/tls.h"

namespace prometheus {
class Collectable;
}

namespace hetbench::controller {

struct BindAddress {
  std::string host;  // "0.0.0.0" for ":8081"
  std::uint16_t port = 0;
};

/// Parses a bind address as controller-runtime's flags take it: "HOST:PORT", ":PORT" (all
/// interfaces), or "0" to serve nothing (nullopt). Anything else is Invalid, naming `flag`.
common::Result<std::optional<BindAddress>> parseBindAddress(std::string_view text,
                                                            std::string_view flag);

/// Serves GET /healthz (200 while `healthy()`) and GET /readyz (200 once `ready()`), each
/// answering "ok" or a one-line reason with 500; anything else is 404.
common::Result<std::unique_ptr<http::Server>> serveProbes(const BindAddress& address,
                                                          std::function<bool()> healthy,
                                                          std::function<bool()> ready);

/// How the log server and /metrics are served: HTTPS when `tls` is set (client certificates
/// verified against `clientCaPem` when that is set too), and every caller checked by
/// `authorizer` when set; without one, anyone who reaches the port is served.
struct EndpointSecurity {
  std::optional<http::ServingCertificate> tls;
  std::string clientCaPem;
  DelegatingAuthorizer* authorizer = nullptr;
};

/// The serving certificate of the log server and /metrics: `tls.crt` (the chain) and `tls.key`
/// of `certDir`, a mounted kubernetes.io/tls Secret; with no directory, a self-signed one made
/// now for `hostNames`, as controller-runtime makes one when given none. Errors name the file.
common::Result<http::ServingCertificate> endpointCertificate(
    const std::filesystem::path& certDir, const std::vector<std::string>& hostNames);

/// Keeps servers on the current certificate of a directory: cert-manager renews a Secret in
/// place and the kubelet updates its mounted files, which a long-running operator must take
/// without a restart (controller-runtime's certwatcher does the same).
class CertificateReloader {
 public:
  CertificateReloader(std::filesystem::path certDir, http::ServingCertificate current);
  /// Reads the files; when they changed, every server serves the new certificate to its next
  /// connections. A certificate that does not load is an error and the servers keep theirs.
  common::Status reload(const std::vector<http::Server*>& servers);

 private:
  std::filesystem::path certDir_;
  http::ServingCertificate current_;
};

/// Serves the kept logs read-only: GET /logs/NAMESPACE/RUN/ lists the run's files (JSON: an
/// array of paths relative to the run), GET /logs/NAMESPACE/RUN/PATH returns one file as
/// text. Every path segment must be a plain name (letters, digits, '.', '-', '_', not starting
/// with '.'), so no request reaches outside `dir`; anything else is 400, a missing file 404.
/// With an authorizer, a caller that is not authenticated gets 401 before anything else, and
/// one that may not `get pods/log` in NAMESPACE (what `kubectl logs` needs there) gets 403.
common::Result<std::unique_ptr<http::Server>> serveLogs(const BindAddress& address,
                                                        const std::filesystem::path& dir,
                                                        const EndpointSecurity& security = {});

/// Serves GET /metrics: the collectables in Prometheus' text format, gathered at each scrape.
/// With an authorizer, the caller needs `get` on the non-resource URL /metrics (401 or 403
/// otherwise), as controller-runtime's secure metrics ask.
common::Result<std::unique_ptr<http::Server>> serveMetrics(
    const BindAddress& address, std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
    const EndpointSecurity& security = {});

}  // namespace hetbench::controller
