#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/http/server.h"
#include "hetbench/kube/client.h"

namespace hetbench::controller {

/// Who sent a request, as a TokenReview or a verified client certificate says.
struct Identity {
  std::string user;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

/// What a request asks to do, as a SubjectAccessReview names it: a resource (`resource` set:
/// "get pods/log in NS") or a non-resource URL (`path` set: "get /metrics").
struct AccessAttributes {
  std::string verb = "get";
  std::string ns;
  std::string group;
  std::string resource;
  std::string subresource;
  std::string path;

  /// "get pods/log in namespace team-a" or "get /metrics", for messages.
  std::string describe() const;
};

/// The answer to a request: kAllowed, or the HTTP status that refuses it (401 when the caller
/// is not authenticated, 403 when it may not, 500 when the API server could not say) with a
/// message for the caller.
struct AuthDecision {
  int httpStatus = 200;
  std::string message;
  Identity identity;

  bool allowed() const { return httpStatus == 200; }
};

struct AuthorizerOptions {
  /// TokenReview audiences (empty: the API server's own).
  std::vector<std::string> audiences;
  /// How long answers are reused, as kube-apiserver's webhook authenticator and authorizer
  /// cache them: a token's review, a refused token, an allowed and a refused access.
  std::chrono::seconds authenticatedTtl{120};
  std::chrono::seconds unauthenticatedTtl{10};
  std::chrono::seconds allowedTtl{300};
  std::chrono::seconds deniedTtl{30};
  /// Entries per cache: when one is full its expired entries go, and all of them when none
  /// has expired, so that callers sending ever new tokens cannot grow the operator.
  std::size_t maxEntries = 4096;
};

/// Authenticates and authorises the callers of the operator's log server and /metrics through
/// the API server, as kube-rbac-proxy and controller-runtime's secure metrics do: a bearer
/// token goes to a TokenReview, a client certificate that verified against the server's client
/// CA names the user itself, and the identity must pass a SubjectAccessReview for the request's
/// attributes. Answers are cached (AuthorizerOptions); API errors are never cached.
/// Thread-safe.
class DelegatingAuthorizer {
 public:
  DelegatingAuthorizer(kube::KubeClient& client, const common::Clock& clock,
                       AuthorizerOptions options = {});

  /// Who sent `request`: httpStatus 401 without a bearer token or a verified certificate, or
  /// when the token is not valid.
  AuthDecision authenticate(const http::Request& request);
  /// Whether `identity` may do `attributes`: 403 when the API server says no.
  AuthDecision authorize(const Identity& identity, const AccessAttributes& attributes);
  /// authenticate, then authorize.
  AuthDecision check(const http::Request& request, const AccessAttributes& attributes);

 private:
  struct Entry {
    AuthDecision decision;
    common::MonoTime expires;
  };
  using Cache = std::map<std::string, Entry>;

  AuthDecision reviewToken(const std::string& token);
  AuthDecision reviewAccess(const Identity& identity, const AccessAttributes& attributes);
  /// The status of a review of `kind` (TokenReview, SubjectAccessReview) that the API server
  /// answered; its error when it did not.
  common::Result<nlohmann::json> review(const kube::GroupVersionResource& gvr,
                                        std::string_view kind, const nlohmann::json& spec);
  /// A cached decision that has not expired.
  std::optional<AuthDecision> recall(const Cache& cache, const std::string& key);
  void remember(Cache& cache, const std::string& key, AuthDecision decision,
                std::chrono::seconds ttl);

  kube::KubeClient& client_;
  const common::Clock& clock_;
  AuthorizerOptions options_;
  std::mutex mu_;
  Cache tokens_;  // by the token's SHA-256
  Cache access_;  // by identity and attributes
};

}  // namespace hetbench::controller
