#pragma once

#include <cpprest/http_client.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "hetbench/kube/client.h"
#include "hetbench/kube/rest_client.h"

namespace hetbench::kube {

/// Opens a watch (GET ...?watch=true) on its own connection and returns the stream of events.
common::Result<std::unique_ptr<WatchStream>> openWatch(
    const std::string& server, const web::http::client::http_client_config& config,
    const std::string& target, const std::string& token, const std::string& userAgent,
    const RequestObserver& observer, const common::Clock& clock);

/// Streams a response body (a followed pod log) to `onData` until it ends, `onData` returns
/// false, `canceller` (optional) is cancelled, or the connection breaks (Unavailable).
common::Status streamBody(const std::string& server,
                          const web::http::client::http_client_config& config,
                          const std::string& target, const std::string& token,
                          const std::string& userAgent,
                          const std::function<bool(std::string_view)>& onData,
                          StreamCanceller* canceller);

}  // namespace hetbench::kube
