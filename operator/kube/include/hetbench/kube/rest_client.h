#pragma once

#include <chrono>
#include <memory>

#include "hetbench/common/clock.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/credentials.h"

namespace hetbench::kube {

struct RestClientOptions {
  double qps = 20;  // client-side rate limit (token bucket), as --kube-api-qps
  int burst = 30;   // as --kube-api-burst
  std::chrono::milliseconds requestTimeout{std::chrono::seconds(30)};
  int maxRetries = 5;  // for idempotent verbs on 429, 5xx and transport errors
  std::chrono::milliseconds retryBase{std::chrono::milliseconds(200)};
  std::string userAgent = "hetbench";
};

/// Observes every request, for the controller metrics (verb, HTTP code or 0, latency).
using RequestObserver =
    std::function<void(std::string_view verb, int code, std::chrono::nanoseconds latency)>;

/// KubeClient over HTTP/1.1 (cpprestsdk) with TLS (OpenSSL): keep-alive connection reuse, a
/// per-request timeout, retries with backoff honouring Retry-After for idempotent verbs, a
/// token-bucket rate limiter, credentials from a CredentialProvider (re-fetched after a 401).
common::Result<std::unique_ptr<KubeClient>> makeRestClient(const RestConfig& config,
                                                           const RestClientOptions& options,
                                                           const common::Clock& clock,
                                                           RequestObserver observer = nullptr);

}  // namespace hetbench::kube
