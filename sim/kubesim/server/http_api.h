#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/http/server.h"
#include "server/api.h"
#include "server/authentication.h"
#include "server/faults.h"
#include "server/openapi.h"
#include "server/pod_logs.h"

namespace hetbench::kubesim {

struct ApiServerOptions {
  /// When set, requests need "Authorization: Bearer TOKEN", a service-account token kubesim
  /// issued, or a verified client certificate.
  std::string token;
  /// Service-account tokens kept (and so trusted) at once; past it the oldest is forgotten.
  std::size_t issuedTokenLimit = 10000;
  /// How often a watch with allowWatchBookmarks sends a BOOKMARK.
  std::chrono::milliseconds bookmarkInterval{std::chrono::seconds(60)};
  /// The address clients should use, reported by /api.
  std::string advertiseAddress = "127.0.0.1:6443";
};

/// A request path resolved to a resource.
struct ResourcePath {
  ResourceType type;
  std::string ns;
  std::string name;
  std::string subresource;
  bool legacyWatch = false;  // /api/v1/watch/...
};

/// The Kubernetes REST API over http::Server: routing, content negotiation (JSON and
/// server-side Tables), watches, discovery, pod logs, authentication (with the TokenRequest and
/// review APIs, auth_api.cc) and fault injection.
class ApiServer {
 public:
  ApiServer(Api& api, ApiServerOptions options, PodLogSource* logs);

  void handle(const http::Request& request, http::ResponseWriter& out);
  Faults& faults() { return faults_; }
  /// The address /api reports, known once the listener is bound.
  void setAdvertiseAddress(std::string address);
  /// Ends every watch and log stream promptly (before the HTTP server stops).
  void stop();

 private:
  /// The requester: a verified client certificate, the static token or an issued token, else
  /// (without --token) the admin, then whoever Impersonate-User names; 401 with --token.
  ApiResult<UserInfo> authenticate(const http::Request& request) const;
  void handleTokenRequest(const http::Request& request, const ResourcePath& path,
                          http::ResponseWriter& out);
  void handleReview(const http::Request& request, const ResourcePath& path,
                    const UserInfo& requester, http::ResponseWriter& out);
  ApiResult<nlohmann::json> tokenReview(const nlohmann::json& body) const;
  ApiResult<nlohmann::json> accessReview(const ResourcePath& path, const nlohmann::json& body,
                                         const UserInfo& requester) const;
  void handleResource(const http::Request& request, const ResourcePath& path,
                      http::ResponseWriter& out);
  void handleWatch(const http::Request& request, const ResourcePath& path,
                   http::ResponseWriter& out);
  /// pods/exec, pods/attach and pods/portforward: 405 with why kubesim cannot serve them.
  void refuseStream(const http::Request& request, const ResourcePath& path,
                    http::ResponseWriter& out);
  /// GET, PUT and PATCH of the scale subresource (server/scale.h).
  void handleScale(const http::Request& request, const ResourcePath& path,
                   http::ResponseWriter& out);
  void handleLog(const http::Request& request, const ResourcePath& path, http::ResponseWriter& out);
  bool handleDiscovery(const http::Request& request, http::ResponseWriter& out);
  /// GET /openapi/v2, /openapi/v3 and /openapi/v3/GROUP-VERSION (openapi.cc): false for another
  /// request.
  bool handleOpenApi(const http::Request& request, http::ResponseWriter& out);
  void handleFaults(const http::Request& request, http::ResponseWriter& out);

  Api& api_;
  ApiServerOptions options_;
  PodLogSource* logs_;
  Faults faults_;
  TokenAuthority tokens_;
  OpenApiDocuments openApi_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;  // guards options_.advertiseAddress
};

/// The encoding of a response body.
enum class BodyFormat { kJson, kProtobuf };

/// One entry of an Accept header: its media type without parameters, whether it asks for a
/// Table (as=...), and its quality.
struct AcceptRange {
  std::string type = {};
  bool table = false;
  double quality = 1;
};

/// The entries of the request's Accept header by falling quality, in the header's order among
/// equals, as the API server's negotiation ranks them.
std::vector<AcceptRange> acceptRanges(const http::Request& request);

/// The encoding the request's Accept header prefers: Kubernetes' protobuf when it comes first
/// (client-go sends "application/vnd.kubernetes.protobuf,application/json") and `builtin` (custom
/// resources, like the rest of what kubesim serves, speak JSON only); JSON otherwise, Tables
/// included.
BodyFormat responseFormat(const http::Request& request, bool builtin);

/// Sends a JSON body with the given code.
void sendJson(http::ResponseWriter& out, int code, const nlohmann::json& body,
              const http::Headers& extra = {});
/// Sends an object (with kind and apiVersion) in `format`; in JSON where its kind has no protobuf
/// schema or does not fit it, which a client that accepts protobuf accepts too.
void sendObject(http::ResponseWriter& out, BodyFormat format, int code, const nlohmann::json& body,
                const http::Headers& extra = {});
/// Sends an ApiError as a Status body (with Retry-After where set).
void sendError(http::ResponseWriter& out, const ApiError& error,
               BodyFormat format = BodyFormat::kJson);

/// The body of a write to a resource of `type` as JSON: JSON, or Kubernetes' protobuf for a
/// built-in kind; 415 for another media type (and for protobuf of a custom resource or a kind
/// kubesim has no schema for), 400 when it does not decode.
ApiResult<nlohmann::json> parseBody(const http::Request& request, const ResourceType& type);

/// A boolean query parameter (watch, allowWatchBookmarks, follow, ...) as the API server's
/// parameter codec reads it: absent, "0" or "false" in any case is false, any other value (even
/// empty, or Python's "True") is true.
bool queryFlag(const http::Request& request, std::string_view name);

/// The dryRun and fieldValidation query parameters of a write; `kind` names the verb's options
/// in errors (CreateOptions, UpdateOptions or PatchOptions).
std::optional<ApiError> parseWriteOptions(const http::Request& request, const std::string& kind,
                                          WriteOptions* options);

/// Resolves /api/v1/... and /apis/GROUP/VERSION/... to a served resource; nullopt when the path
/// names none.
std::optional<ResourcePath> parseResourcePath(const std::string& path,
                                              const ResourceRegistry& registry);

/// Whether the resource serves DELETE on its collection.
bool hasDeleteCollection(const ResourceType& type);

/// Whether the Accept header asks for a meta.k8s.io Table.
bool wantsTable(const std::string& accept);

/// Tables as the API server prints them: built-in printers or the CRD's columns.
ApiResult<nlohmann::json> buildTable(const ResourceType& type,
                                     const std::vector<nlohmann::json>& objects,
                                     const nlohmann::json& listMeta,
                                     const std::string& includeObject, common::WallTime now);

/// Discovery documents: /api, /apis, /apis/GROUP, /api/v1, /apis/GROUP/VERSION, /version.
std::optional<nlohmann::json> discoveryDocument(const std::string& path,
                                                const ResourceRegistry& registry,
                                                const std::string& advertiseAddress);

/// Kubernetes' HumanDuration ("5s", "3m20s", "4h", "2d3h").
std::string humanDuration(std::chrono::seconds d);

}  // namespace hetbench::kubesim
