#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/http/tls.h"

namespace hetbench::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// One parsed HTTP/1.1 request with its whole body.
struct Request {
  std::string method;                             // "GET", "PATCH", ...
  std::string target;                             // the raw request-target
  std::string path;                               // percent-decoded path, no query
  std::multimap<std::string, std::string> query;  // percent-decoded, '+' is a space
  std::map<std::string, std::string> headers;     // names lower-cased; repeats joined by ", "
  std::string body;
  std::string remoteAddress;  // "127.0.0.1:54321"
  /// Subject of a client certificate that verified against ServerOptions::clientCaPem.
  std::optional<std::string> clientCommonName;
  std::vector<std::string> clientOrganizations;

  /// The header's value, or "" when absent (name in any case).
  std::string header(std::string_view name) const;
  /// The first value of a query parameter.
  std::optional<std::string> queryParam(std::string_view name) const;
};

/// Writes the response of one request: either send() once, or startStream() then write()
/// chunks (Transfer-Encoding: chunked, each write flushed at once). The stream ends when the
/// handler returns. Every call returns false once the client is gone or the server stops.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  virtual bool send(int status, const Headers& headers, std::string_view body) = 0;
  virtual bool startStream(int status, const Headers& headers) = 0;
  virtual bool write(std::string_view chunk) = 0;
  /// True once the peer has closed its side or the server is stopping; never blocks.
  virtual bool closed() = 0;
};

using Handler = std::function<void(const Request&, ResponseWriter&)>;

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free port
  /// Serve HTTPS with this certificate (ALPN offers http/1.1 only).
  std::optional<ServingCertificate> tls;
  /// With TLS: request (not require) client certificates and verify them against this CA.
  std::string clientCaPem;
  std::size_t maxBodyBytes = 3 * 1024 * 1024;  // kube-apiserver's request limit; 413 beyond
  /// Connections served at once, and from one client address (0: no limit of its own). When
  /// either is reached, a new connection takes the place of the connection that has waited
  /// longest between requests (or for its first); when every connection is inside a request,
  /// the new one is answered 503.
  std::size_t maxConnections = 1024;
  std::size_t maxConnectionsPerClient = 0;
  /// A request's head (the TLS handshake included, for the first) must arrive within
  /// headerTimeout of its first byte, or of the accept for a connection's first request; its
  /// body within bodyTimeout of the head.
  std::chrono::milliseconds headerTimeout = std::chrono::seconds(10);
  std::chrono::milliseconds bodyTimeout = std::chrono::seconds(60);
  /// How long a kept-alive connection may wait for its next request.
  std::chrono::milliseconds idleTimeout = std::chrono::seconds(120);
  /// How long one write may wait for a client that takes no bytes (a stream has no overall
  /// limit); the connection is dropped then.
  std::chrono::milliseconds writeTimeout = std::chrono::seconds(60);
};

/// A thread-per-connection HTTP/1.1 server with keep-alive: kubesim's API server and the
/// operator's probe and log endpoints. maxConnections bounds its threads; the timeouts bound
/// how long a client that sends or reads nothing can hold one.
class Server {
 public:
  virtual ~Server() = default;
  /// Binds, listens and starts serving; the handler runs on connection threads.
  static common::Result<std::unique_ptr<Server>> start(ServerOptions options, Handler handler);
  virtual std::uint16_t port() const = 0;
  /// Serves connections accepted from now on with `cert` (a renewed one), those open keep
  /// theirs; Invalid for a server without TLS or a certificate that does not load.
  virtual common::Status setCertificate(const ServingCertificate& cert) = 0;
  /// Stops accepting, makes every writer report closed(), and joins all threads. Idempotent.
  virtual void stop() = 0;
};

/// Percent-decodes a URL component ('+' stays '+' unless plusIsSpace).
std::string percentDecode(std::string_view text, bool plusIsSpace);

}  // namespace hetbench::http
