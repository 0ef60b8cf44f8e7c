#pragma once

// Private to the server: the byte stream of one connection, plain TCP or TLS.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"
#include "hetbench/http/tls.h"

namespace hetbench::http::detail {

/// A connected stream used by exactly one connection thread. The socket itself stays owned by
/// the server, which may shut it down from another thread to interrupt blocked calls.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Reads at most `size` bytes; 0 at the end of the stream or on any error.
  virtual std::size_t read(char* data, std::size_t size) = 0;
  virtual bool writeAll(std::string_view data) = 0;
  /// Ends the stream politely (a TLS close_notify); the socket stays open.
  virtual void finish() {}
};

std::unique_ptr<Transport> makePlainTransport(int fd);

/// Who the peer proved to be with a client certificate.
struct PeerIdentity {
  std::optional<std::string> commonName;
  std::vector<std::string> organizations;
};

/// The server side TLS configuration, shared read-only by every connection.
class TlsContext {
 public:
  virtual ~TlsContext() = default;
  /// Builds the context; with `clientCaPem` non-empty client certificates are requested.
  static common::Result<std::unique_ptr<TlsContext>> create(const ServingCertificate& cert,
                                                            const std::string& clientCaPem);
  /// Runs the handshake on `fd`; nullptr when it fails. `identity` is filled only for a client
  /// certificate that verified.
  virtual std::unique_ptr<Transport> accept(int fd, PeerIdentity& identity) = 0;
};

}  // namespace hetbench::http::detail
