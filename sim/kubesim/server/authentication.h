#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "server/api.h"
#include "server/api_error.h"

namespace hetbench::kubesim {

/// The API server's audience, and the issuer of the service-account tokens kubesim issues:
/// kubeadm's default --service-account-issuer (and so --api-audiences), as kind clusters have it.
inline constexpr const char* kApiAudience = "https://kubernetes.default.svc.cluster.local";

/// Who a request, or a review, speaks for: the API server's user.Info.
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  /// authentication.k8s.io/v1 UserInfo: username, uid, groups, extra, the empty ones left out.
  nlohmann::json toJson() const;
};

/// The user of kubesim's static --token, and of every request when kubesim runs without one:
/// "kubesim-admin" in system:masters (as the client certificate of --tls), and
/// system:authenticated as the authenticator chain adds it.
UserInfo adminUser();

/// The user of a verified client certificate: its CommonName, its Organizations as groups, and
/// system:authenticated.
UserInfo certificateUser(const std::string& commonName,
                         const std::vector<std::string>& organizations);

/// What authenticating a bearer token found, as a TokenReview status reports it.
struct TokenReviewResult {
  bool authenticated = false;
  UserInfo user;
  std::vector<std::string> audiences;
  /// The authenticator chain's error text, e.g. "invalid bearer token" or
  /// "[invalid bearer token, service account token has expired]"; empty when authenticated.
  std::string error;
};

/// Issues service-account tokens (the TokenRequest API) and authenticates bearer tokens: the
/// static --token and the tokens it issued, which it keeps in memory and alone trusts. An issued
/// token authenticates until it expires, or until its ServiceAccount is deleted or recreated with
/// another uid, as a bound token does. Thread-safe.
class TokenAuthority {
 public:
  /// `staticToken` may be empty (no static token). At most `limit` issued tokens are kept: past
  /// it the expired ones are dropped, then the oldest, which then no longer authenticate.
  TokenAuthority(Api& api, std::string staticToken, std::size_t limit);

  /// POST serviceaccounts/NAME/token in `ns`: `body` is the TokenRequest; the answer is the
  /// TokenRequest with status.token and status.expirationTimestamp.
  ApiResult<nlohmann::json> createToken(const std::string& ns, const std::string& name,
                                        nlohmann::json body);

  /// Authenticates `token` for `audiences` (empty: the API server's own, kApiAudience), as
  /// kube-apiserver's authenticator chain does for a TokenReview and for its own requests.
  TokenReviewResult review(const std::string& token,
                           const std::vector<std::string>& audiences) const;

 private:
  struct Issued {
    std::string ns;
    std::string name;
    std::string uid;
    std::string jti;
    std::vector<std::string> audiences;
    common::WallTime expiry;
  };

  void keep(const std::string& token, Issued issued);

  Api& api_;
  const std::string staticToken_;
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::map<std::string, Issued> issued_;
  std::deque<std::string> order_;  // issued_ keys, oldest first
  std::random_device entropy_;
};

}  // namespace hetbench::kubesim
