#pragma once

#include <cpprest/http_client.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "hetbench/kube/client.h"
#include "hetbench/kube/rest_client.h"

namespace hetbench::kube {

/// What every request to the API server carries besides its own headers.
struct RequestHeaders {
  std::string token;
  std::string userAgent;
  /// The kubeconfig's tls-server-name, for an https server; empty: the URL's host.
  std::string tlsServerName;

  /// Adds Accept (JSON), User-Agent, Authorization when there is a token, and Host set to the
  /// TLS server name when there is one: cpprestsdk takes the name of the Host header for SNI
  /// and for checking the server's certificate, as client-go takes tls-server-name.
  void addTo(web::http::http_request& request) const;
};

/// Opens a watch (GET ...?watch=true) on its own connection and returns the stream of events.
common::Result<std::unique_ptr<WatchStream>> openWatch(
    const std::string& server, const web::http::client::http_client_config& config,
    const std::string& target, const RequestHeaders& headers, const RequestObserver& observer,
    const common::Clock& clock);

/// Streams a response body (a followed pod log) to `onData` until it ends, `onData` returns
/// false, `canceller` (optional) is cancelled, or the connection breaks (Unavailable).
common::Status streamBody(const std::string& server,
                          const web::http::client::http_client_config& config,
                          const std::string& target, const RequestHeaders& headers,
                          const std::function<bool(std::string_view)>& onData,
                          StreamCanceller* canceller);

}  // namespace hetbench::kube
