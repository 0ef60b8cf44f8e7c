#include "hetbench/kube/rest_client.h"

#include <cpprest/http_client.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "hetbench/common/time.h"
#include "hetbench/kube/http_config.h"
#include "rest_watch.h"
#include "url.h"

namespace hetbench::kube {
namespace {

using nlohmann::json;
namespace http = web::http;
namespace client = web::http::client;

// A request body as JSON text. Text a workload controls (a log value, an error body cut at a byte
// limit) can reach an object as invalid UTF-8, which a plain dump() throws on: it is replaced
// with U+FFFD instead, so that the write goes through.
std::string wireText(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A token bucket: `qps` tokens a second, at most `burst` saved.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst, const common::Clock& clock)
      : qps_(qps),
        burst_(std::max(burst, 1)),
        tokens_(burst_),
        last_(clock.monotonic()),
        clock_(clock) {}

  void acquire() {
    if (qps_ <= 0) return;
    std::chrono::nanoseconds wait{0};
    {
      std::lock_guard lock(mu_);
      const common::MonoTime now = clock_.monotonic();
      tokens_ = std::min<double>(
          burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
      last_ = now;
      tokens_ -= 1;
      if (tokens_ < 0)
        wait = std::chrono::nanoseconds(static_cast<std::int64_t>(-tokens_ / qps_ * 1e9));
    }
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
  }

 private:
  std::mutex mu_;
  double qps_;
  int burst_;
  double tokens_;
  common::MonoTime last_;
  const common::Clock& clock_;
};

struct HttpResult {
  int status = 0;
  std::string body;
  std::optional<int> retryAfter;
};

bool isRetryAfterCode(int code) { return code == 429 || code == 503; }

std::string resourcePath(const GroupVersionResource& gvr, const std::string& ns,
                         const std::string& name = "", const std::string& sub = "") {
  std::string path =
      gvr.group.empty() ? "/api/" + gvr.version : "/apis/" + gvr.group + "/" + gvr.version;
  if (gvr.namespaced && !ns.empty()) path += "/namespaces/" + percentEncode(ns);
  path += "/" + gvr.resource;
  if (!name.empty()) path += "/" + percentEncode(name);
  if (!sub.empty()) path += "/" + sub;
  return path;
}

std::string nameOf(const json& object) {
  return object.value("metadata", json::object()).value("name", "");
}

class RestKubeClient final : public KubeClient {
 public:
  RestKubeClient(RestConfig config, RestClientOptions options, const common::Clock& clock,
                 std::unique_ptr<CredentialProvider> credentials, RequestObserver observer)
      : config_(std::move(config)),
        options_(std::move(options)),
        clock_(clock),
        credentials_(std::move(credentials)),
        observer_(std::move(observer)),
        limiter_(options_.qps, options_.burst, clock) {}

  RequestHeaders headersWith(const std::string& token) const {
    const bool https = config_.server.rfind("https://", 0) == 0;
    return {token, options_.userAgent, https ? config_.tlsServerName : std::string()};
  }

  // A client presents the client certificate of the credentials it was made with.
  client::http_client_config clientConfig(std::chrono::milliseconds timeout,
                                          const Credentials& creds) const {
    return httpClientConfig(timeout, config_.caPem, config_.insecureSkipTlsVerify, creds);
  }

  // The client of single requests, made again when the credentials carry another client
  // certificate (an exec plugin's, renewed before it expires), so that new connections present
  // the new one; connections already open keep theirs, as their TLS session was made with it.
  std::shared_ptr<client::http_client> requestClient(const Credentials& creds) {
    std::lock_guard lock(clientMu_);
    if (!client_ || creds.clientCertPem != clientCertPem_ || creds.clientKeyPem != clientKeyPem_) {
      client_ =
          std::make_shared<client::http_client>(utility::conversions::to_string_t(config_.server),
                                                clientConfig(options_.requestTimeout, creds));
      clientCertPem_ = creds.clientCertPem;
      clientKeyPem_ = creds.clientKeyPem;
    }
    return client_;
  }

  // One logical request with rate limiting, credentials and retries.
  common::Result<HttpResult> send(const std::string& verb, const http::method& method,
                                  const std::string& target, const std::string& body,
                                  const std::string& contentType, bool idempotent) {
    bool reauthenticated = false;
    std::chrono::milliseconds backoff = options_.retryBase;
    for (int attempt = 0;; ++attempt) {
      limiter_.acquire();
      common::Result<Credentials> creds = credentials_->get();
      if (!creds.isOk()) return creds.status().withContext("credentials");
      http::http_request request(method);
      request.set_request_uri(utility::conversions::to_string_t(target));
      headersWith(creds->token).addTo(request);
      if (!body.empty() || method == http::methods::POST || method == http::methods::PUT ||
          method == http::methods::PATCH) {
        request.set_body(body, contentType);
      }
      const common::MonoTime start = clock_.monotonic();
      HttpResult result;
      std::string transportError;
      try {
        http::http_response response = requestClient(*creds)->request(request).get();
        result.status = response.status_code();
        result.body = response.extract_utf8string(true).get();
        auto it = response.headers().find("Retry-After");
        if (it != response.headers().end()) {
          try {
            result.retryAfter = std::stoi(it->second);
          } catch (...) {
          }
        }
      } catch (const std::exception& e) {
        transportError = e.what();
      }
      if (observer_) observer_(verb, result.status, clock_.monotonic() - start);
      const bool lastAttempt = attempt >= options_.maxRetries;
      if (!transportError.empty()) {
        if (!idempotent || lastAttempt) {
          return common::unavailableError(verb + " " + target + ": " + transportError);
        }
      } else if (result.status == 401 && !reauthenticated) {
        credentials_->invalidate();
        reauthenticated = true;
        continue;
      } else if (isRetryAfterCode(result.status) && result.retryAfter && !lastAttempt) {
        // The server did not process the request: safe to retry for every verb.
        std::this_thread::sleep_for(std::chrono::seconds(std::clamp(*result.retryAfter, 0, 30)));
        continue;
      } else if (result.status >= 500 && idempotent && !lastAttempt) {
        // Retried below with backoff.
      } else {
        return result;
      }
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }

  common::Result<json> decode(const common::Result<HttpResult>& result) {
    if (!result.isOk()) return result.status();
    common::Status status = statusFromResponse(result->status, result->body);
    if (!status.isOk()) return status;
    json j = json::parse(result->body, nullptr, false);
    if (j.is_discarded()) return common::internalError("response is not JSON");
    return j;
  }

  common::Result<json> get(const GroupVersionResource& gvr, const std::string& ns,
                           const std::string& name) override {
    return decode(send("GET", http::methods::GET, resourcePath(gvr, ns, name), "", "", true));
  }

  common::Result<ListResult> list(const GroupVersionResource& gvr, const std::string& ns,
                                  const ListOptions& options) override {
    Query q;
    q.add("labelSelector", options.labelSelector);
    q.add("fieldSelector", options.fieldSelector);
    if (options.limit > 0) q.add("limit", std::to_string(options.limit));
    q.add("continue", options.continueToken);
    q.add("resourceVersion", options.resourceVersion);
    common::Result<json> body =
        decode(send("LIST", http::methods::GET, resourcePath(gvr, ns) + q.str(), "", "", true));
    if (!body.isOk()) return body.status();
    ListResult out;
    const json meta = body->value("metadata", json::object());
    out.resourceVersion = meta.value("resourceVersion", "");
    out.continueToken = meta.value("continue", "");
    std::string kind = body->value("kind", "");
    if (kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0)
      kind.resize(kind.size() - 4);
    for (json& item : (*body)["items"]) {
      if (!item.contains("kind")) item["kind"] = kind;
      if (!item.contains("apiVersion")) item["apiVersion"] = gvr.apiVersion();
      out.items.push_back(std::move(item));
    }
    return out;
  }

  common::Result<json> create(const GroupVersionResource& gvr, const std::string& ns,
                              const json& object) override {
    return decode(send("POST", http::methods::POST, resourcePath(gvr, ns), wireText(object),
                       "application/json", false));
  }

  common::Result<json> update(const GroupVersionResource& gvr, const std::string& ns,
                              const json& object) override {
    return decode(send("PUT", http::methods::PUT, resourcePath(gvr, ns, nameOf(object)),
                       wireText(object), "application/json", false));
  }

  common::Result<json> updateStatus(const GroupVersionResource& gvr, const std::string& ns,
                                    const json& object) override {
    return decode(send("PUT", http::methods::PUT, resourcePath(gvr, ns, nameOf(object), "status"),
                       wireText(object), "application/json", false));
  }

  common::Result<json> patch(const GroupVersionResource& gvr, const std::string& ns,
                             const std::string& name, PatchType type, const json& patch,
                             bool statusSubresource) override {
    const char* contentType = type == PatchType::kMerge  ? "application/merge-patch+json"
                              : type == PatchType::kJson ? "application/json-patch+json"
                                                         : "application/strategic-merge-patch+json";
    return decode(send("PATCH", http::methods::PATCH,
                       resourcePath(gvr, ns, name, statusSubresource ? "status" : ""),
                       wireText(patch), contentType, false));
  }

  common::Status remove(const GroupVersionResource& gvr, const std::string& ns,
                        const std::string& name, const DeleteOptions& options) override {
    json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (options.propagationPolicy) body["propagationPolicy"] = *options.propagationPolicy;
    if (options.gracePeriodSeconds) body["gracePeriodSeconds"] = *options.gracePeriodSeconds;
    if (options.preconditionUid) body["preconditions"]["uid"] = *options.preconditionUid;
    if (options.preconditionResourceVersion) {
      body["preconditions"]["resourceVersion"] = *options.preconditionResourceVersion;
    }
    // A delete names its target exactly (and may carry preconditions): retrying it is safe.
    return decode(send("DELETE", http::methods::DEL, resourcePath(gvr, ns, name), wireText(body),
                       "application/json", true))
        .status();
  }

  common::Result<std::unique_ptr<WatchStream>> watch(const GroupVersionResource& gvr,
                                                     const std::string& ns,
                                                     const WatchOptions& options) override {
    Query q;
    q.add("watch", "true");
    q.add("resourceVersion", options.resourceVersion);
    q.add("labelSelector", options.labelSelector);
    q.add("fieldSelector", options.fieldSelector);
    if (options.allowBookmarks) q.add("allowWatchBookmarks", "true");
    q.add("timeoutSeconds", std::to_string(options.timeout.count()));
    common::Result<Credentials> creds = credentials_->get();
    if (!creds.isOk()) return creds.status().withContext("credentials");
    limiter_.acquire();
    // The stream may stay quiet for a while between events: its own client allows that.
    return openWatch(config_.server,
                     clientConfig(options.timeout + std::chrono::seconds(60), *creds),
                     resourcePath(gvr, ns) + q.str(), headersWith(creds->token), observer_, clock_);
  }

  common::Status streamLogs(const std::string& ns, const std::string& pod,
                            const LogOptions& options,
                            const std::function<bool(std::string_view)>& onData) override {
    Query q;
    q.add("container", options.container);
    if (options.follow) q.add("follow", "true");
    if (options.timestamps) q.add("timestamps", "true");
    if (options.previous) q.add("previous", "true");
    if (options.sinceTime) {
      q.add("sinceTime", common::formatRfc3339(*options.sinceTime, common::TimePrecision::kNanos));
    }
    if (options.tailLines) q.add("tailLines", std::to_string(*options.tailLines));
    if (options.limitBytes) q.add("limitBytes", std::to_string(*options.limitBytes));
    common::Result<Credentials> creds = credentials_->get();
    if (!creds.isOk()) return creds.status().withContext("credentials");
    limiter_.acquire();
    const std::string path = resourcePath(resources::kPods, ns, pod, "log") + q.str();
    return streamBody(config_.server, clientConfig(std::chrono::hours(24), *creds), path,
                      headersWith(creds->token), onData, options.canceller.get());
  }

  common::Result<GroupVersionResource> resourceFor(const std::string& apiVersion,
                                                   const std::string& kind) override {
    {
      std::lock_guard lock(discoveryMu_);
      auto it = discovery_.find(apiVersion + "/" + kind);
      if (it != discovery_.end()) return it->second;
    }
    // A miss refreshes the group-version once: the kind may come from a CRD added since.
    const std::string path =
        apiVersion.find('/') == std::string::npos ? "/api/" + apiVersion : "/apis/" + apiVersion;
    common::Result<json> doc = decode(send("GET", http::methods::GET, path, "", "", true));
    if (!doc.isOk()) {
      if (doc.status().isNotFound()) {
        return common::notFoundError("no API group-version " + apiVersion + " on the server");
      }
      return doc.status();
    }
    std::lock_guard lock(discoveryMu_);
    const std::size_t slash = apiVersion.find('/');
    for (const json& r : doc->value("resources", json::array())) {
      const std::string name = r.value("name", "");
      if (name.find('/') != std::string::npos) continue;
      GroupVersionResource gvr;
      gvr.group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
      gvr.version = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
      gvr.resource = name;
      gvr.namespaced = r.value("namespaced", false);
      discovery_[apiVersion + "/" + r.value("kind", "")] = gvr;
    }
    auto it = discovery_.find(apiVersion + "/" + kind);
    if (it != discovery_.end()) return it->second;
    return common::notFoundError("no resource of kind " + kind + " in " + apiVersion);
  }

 private:
  RestConfig config_;
  RestClientOptions options_;
  const common::Clock& clock_;
  std::unique_ptr<CredentialProvider> credentials_;
  RequestObserver observer_;
  RateLimiter limiter_;
  std::mutex clientMu_;
  std::shared_ptr<client::http_client> client_;  // guarded by clientMu_
  std::string clientCertPem_;
  std::string clientKeyPem_;
  std::mutex discoveryMu_;
  std::map<std::string, GroupVersionResource> discovery_;
};

}  // namespace

common::Result<std::unique_ptr<KubeClient>> makeRestClient(const RestConfig& config,
                                                           const RestClientOptions& options,
                                                           const common::Clock& clock,
                                                           RequestObserver observer) {
  if (config.server.rfind("http://", 0) != 0 && config.server.rfind("https://", 0) != 0) {
    return common::invalidError("server \"" + config.server +
                                "\" must start with https:// or http://");
  }
  std::unique_ptr<CredentialProvider> credentials = makeCredentialProvider(config, clock);
  try {
    return std::unique_ptr<KubeClient>(std::make_unique<RestKubeClient>(
        config, options, clock, std::move(credentials), std::move(observer)));
  } catch (const std::exception& e) {
    return common::invalidError("server \"" + config.server + "\": " + e.what());
  }
}

web::http::client::http_client_config httpClientConfig(std::chrono::milliseconds timeout,
                                                       const std::string& caPem,
                                                       bool insecureSkipTlsVerify,
                                                       const Credentials& creds) {
  web::http::client::http_client_config c;
  c.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
  c.set_validate_certificates(!insecureSkipTlsVerify);
  const std::string cert = creds.clientCertPem;
  const std::string key = creds.clientKeyPem;
  c.set_ssl_context_callback([ca = caPem, cert, key](boost::asio::ssl::context& ctx) {
    boost::system::error_code ec;
    if (!ca.empty()) {
      ctx.add_certificate_authority(boost::asio::buffer(ca.data(), ca.size()), ec);
    } else {
      ctx.set_default_verify_paths(ec);
    }
    if (!cert.empty() && !key.empty()) {
      ctx.use_certificate_chain(boost::asio::buffer(cert.data(), cert.size()), ec);
      ctx.use_private_key(boost::asio::buffer(key.data(), key.size()),
                          boost::asio::ssl::context::pem, ec);
    }
  });
  return c;
}

}  // namespace hetbench::kube
