#include "hetbench/controller/endpoint_auth.h"

#include <nlohmann/json.hpp>

#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/http/openssl_util.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

const kube::GroupVersionResource kTokenReviews{"authentication.k8s.io", "v1", "tokenreviews",
                                               false};
const kube::GroupVersionResource kSubjectAccessReviews{"authorization.k8s.io", "v1",
                                                       "subjectaccessreviews", false};

/// The group every authenticated user is in, which kube-apiserver adds to a certificate's.
constexpr const char* kAuthenticatedGroup = "system:authenticated";

std::string bearerToken(const http::Request& request) {
  const std::string header = request.header("authorization");
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return {};
  }
  const std::size_t start = header.find_first_not_of(' ', kScheme.size());
  return start == std::string::npos ? std::string() : header.substr(start);
}

Identity identityOf(const json& user) {
  Identity out;
  out.user = common::stringMember(user, "username");
  out.uid = common::stringMember(user, "uid");
  out.groups = common::stringList(common::member(user, "groups"));
  const json& extra = common::member(user, "extra");
  if (extra.is_object()) {
    for (const auto& [key, values] : extra.items()) out.extra[key] = common::stringList(values);
  }
  return out;
}

AuthDecision refused(int status, std::string message) {
  AuthDecision out;
  out.httpStatus = status;
  out.message = std::move(message);
  return out;
}

}  // namespace

std::string AccessAttributes::describe() const {
  if (resource.empty()) return verb + " path " + common::goQuote(path);
  std::string out = verb + " resource " +
                    common::goQuote(subresource.empty() ? resource : resource + "/" + subresource);
  out += " in API group " + common::goQuote(group);
  if (!ns.empty()) out += " in the namespace " + common::goQuote(ns);
  return out;
}

DelegatingAuthorizer::DelegatingAuthorizer(kube::KubeClient& client, const common::Clock& clock,
                                           AuthorizerOptions options)
    : client_(client), clock_(clock), options_(std::move(options)) {}

AuthDecision DelegatingAuthorizer::authenticate(const http::Request& request) {
  if (request.clientCommonName) {
    AuthDecision out;
    out.identity.user = *request.clientCommonName;
    out.identity.groups = request.clientOrganizations;
    out.identity.groups.push_back(kAuthenticatedGroup);
    return out;
  }
  const std::string token = bearerToken(request);
  if (token.empty()) return refused(401, "Unauthorized: no bearer token or client certificate");
  return reviewToken(token);
}

AuthDecision DelegatingAuthorizer::authorize(const Identity& identity,
                                             const AccessAttributes& attributes) {
  return reviewAccess(identity, attributes);
}

AuthDecision DelegatingAuthorizer::check(const http::Request& request,
                                         const AccessAttributes& attributes) {
  AuthDecision who = authenticate(request);
  if (!who.allowed()) return who;
  return authorize(who.identity, attributes);
}

std::optional<AuthDecision> DelegatingAuthorizer::recall(const Cache& cache,
                                                         const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = cache.find(key);
  if (it == cache.end() || it->second.expires <= clock_.monotonic()) return std::nullopt;
  return it->second.decision;
}

void DelegatingAuthorizer::remember(Cache& cache, const std::string& key, AuthDecision decision,
                                    std::chrono::seconds ttl) {
  std::lock_guard lock(mu_);
  const common::MonoTime now = clock_.monotonic();
  if (cache.size() >= options_.maxEntries) {
    std::erase_if(cache, [&](const auto& entry) { return entry.second.expires <= now; });
    if (cache.size() >= options_.maxEntries) cache.clear();
  }
  cache[key] = Entry{std::move(decision), now + ttl};
}

common::Result<json> DelegatingAuthorizer::review(const kube::GroupVersionResource& gvr,
                                                  std::string_view kind, const json& spec) {
  HETBENCH_ASSIGN_OR_RETURN(json answer, client_.create(gvr, "",
                                                        {{"apiVersion", gvr.apiVersion()},
                                                         {"kind", std::string(kind)},
                                                         {"spec", spec}}));
  return common::member(answer, "status");
}

AuthDecision DelegatingAuthorizer::reviewToken(const std::string& token) {
  // Keyed by the token's hash, so that the cache holds no tokens.
  const std::string key = http::ossl::sha256Hex(token);
  if (std::optional<AuthDecision> known = recall(tokens_, key)) return *known;
  json spec = {{"token", token}};
  if (!options_.audiences.empty()) spec["audiences"] = options_.audiences;
  common::Result<json> status = review(kTokenReviews, "TokenReview", spec);
  if (!status.isOk()) {
    return refused(
        500, "Internal Server Error: could not review the token: " + status.status().message());
  }
  AuthDecision out;
  std::chrono::seconds ttl = options_.authenticatedTtl;
  if (common::boolMember(status.value(), "authenticated")) {
    out.identity = identityOf(common::member(status.value(), "user"));
  } else {
    out = refused(401, "Unauthorized: the token is not valid");
    ttl = options_.unauthenticatedTtl;
  }
  remember(tokens_, key, out, ttl);
  return out;
}

AuthDecision DelegatingAuthorizer::reviewAccess(const Identity& identity,
                                                const AccessAttributes& attributes) {
  json spec = {{"user", identity.user}, {"groups", identity.groups}};
  if (!identity.uid.empty()) spec["uid"] = identity.uid;
  if (!identity.extra.empty()) spec["extra"] = identity.extra;
  if (attributes.resource.empty()) {
    spec["nonResourceAttributes"] = {{"path", attributes.path}, {"verb", attributes.verb}};
  } else {
    json resource = {
        {"verb", attributes.verb}, {"group", attributes.group}, {"resource", attributes.resource}};
    if (!attributes.ns.empty()) resource["namespace"] = attributes.ns;
    if (!attributes.subresource.empty()) resource["subresource"] = attributes.subresource;
    spec["resourceAttributes"] = resource;
  }
  const std::string key =
      http::ossl::sha256Hex(spec.dump(-1, ' ', false, json::error_handler_t::replace));
  std::optional<AuthDecision> out = recall(access_, key);
  if (!out) {
    common::Result<json> status = review(kSubjectAccessReviews, "SubjectAccessReview", spec);
    if (!status.isOk()) {
      return refused(
          500, "Internal Server Error: could not review the access: " + status.status().message());
    }
    out = AuthDecision{};
    std::chrono::seconds ttl = options_.allowedTtl;
    if (!common::boolMember(status.value(), "allowed")) {
      std::string message =
          "Forbidden: User " + common::goQuote(identity.user) + " cannot " + attributes.describe();
      const std::string reason = common::stringMember(status.value(), "reason");
      if (!reason.empty()) message += ": " + reason;
      out = refused(403, std::move(message));
      ttl = options_.deniedTtl;
    }
    remember(access_, key, *out, ttl);
  }
  out->identity = identity;
  return *out;
}

}  // namespace hetbench::controller
