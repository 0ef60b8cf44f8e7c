#include "server/authentication.h"

#include <algorithm>

#include "hetbench/common/base64.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "server/object_meta.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kAuthenticated = "system:authenticated";
// go-jose's default leeway, which kube-apiserver's service-account authenticator allows on exp.
constexpr auto kLeeway = 60s;
constexpr std::int64_t kDefaultExpirationSeconds = 3600;
constexpr std::int64_t kMinExpirationSeconds = 600;
constexpr std::int64_t kMaxExpirationSeconds = std::int64_t{1} << 32;

ResourceType tokenRequestType() {
  ResourceType t;
  t.group = "authentication.k8s.io";
  t.version = "v1";
  t.resource = "tokenrequests";
  t.kind = "TokenRequest";
  return t;
}

std::string base64Url(std::string_view bytes) {
  std::string text = common::base64Encode(bytes);
  while (!text.empty() && text.back() == '=') text.pop_back();
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  return text;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Audiences.Intersect as the authenticators call it: the requested audiences, in their order,
// that the token also names.
std::vector<std::string> intersect(const std::vector<std::string>& requested,
                                   const std::vector<std::string>& token) {
  std::vector<std::string> out;
  for (const std::string& a : requested) {
    if (contains(token, a)) out.push_back(a);
  }
  return out;
}

// Go's %q of a []string, as the authenticator's errors print audiences: ["a" "b"].
std::string goStringList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += " ";
    out += common::goQuote(values[i]);
  }
  return out + "]";
}

// The bearer-token authenticator turns "not authenticated" into "invalid bearer token"; the
// union of authenticators then lists it with the token authenticator's own error.
TokenReviewResult rejected(const std::string& error = "") {
  TokenReviewResult r;
  r.error = error.empty() ? "invalid bearer token" : "[invalid bearer token, " + error + "]";
  return r;
}

// What Go's decoder says of a JSON value it cannot put in a Go field.
std::string goDecodedKind(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "number " + v.dump();
}

// Fills the UUID a service-account token carries as jti from the OS's entropy source.
class EntropySource final : public common::RandomSource {
 public:
  explicit EntropySource(std::random_device& device) : device_(device) {}
  std::uint64_t next() override {
    return (static_cast<std::uint64_t>(device_()) << 32) | static_cast<std::uint64_t>(device_());
  }

 private:
  std::random_device& device_;
};

}  // namespace

json UserInfo::toJson() const {
  json out = json::object();
  if (!name.empty()) out["username"] = name;
  if (!uid.empty()) out["uid"] = uid;
  if (!groups.empty()) out["groups"] = groups;
  if (!extra.empty()) out["extra"] = extra;
  return out;
}

UserInfo adminUser() { return {"kubesim-admin", "", {"system:masters", kAuthenticated}, {}}; }

UserInfo certificateUser(const std::string& commonName,
                         const std::vector<std::string>& organizations) {
  UserInfo user{commonName, "", organizations, {}};
  if (!contains(user.groups, kAuthenticated)) user.groups.push_back(kAuthenticated);
  return user;
}

TokenAuthority::TokenAuthority(Api& api, std::string staticToken, std::size_t limit)
    : api_(api), staticToken_(std::move(staticToken)), limit_(std::max<std::size_t>(limit, 1)) {}

ApiResult<json> TokenAuthority::createToken(const std::string& ns, const std::string& name,
                                            json body) {
  const ResourceType type = tokenRequestType();
  ApiResult<std::vector<std::string>> typeMeta = checkTypeMeta(type, body);
  if (!typeMeta.isOk()) return typeMeta.error();
  json meta = common::member(body, "metadata");
  if (!meta.is_object()) meta = json::object();
  // The body may name the ServiceAccount only as the path does.
  for (const auto& [field, want] : {std::pair<std::string, std::string>{"name", name},
                                    std::pair<std::string, std::string>{"namespace", ns}}) {
    const std::string given = common::stringMember(meta, field);
    if (!given.empty() && given != want) {
      return errors::invalid(
          type, name,
          {common::invalidCause("metadata." + field, given,
                                "must match the service account " + field + " if specified")});
    }
  }
  std::optional<ResourceType> saType = api_.typeOf("", "serviceaccounts");
  ApiResult<json> sa = api_.get(*saType, ns, name);
  if (!sa.isOk()) return sa.error();

  json spec = common::member(body, "spec");
  if (!spec.is_object()) spec = json::object();
  std::vector<std::string> audiences = common::stringList(common::member(spec, "audiences"));
  if (audiences.empty()) audiences = {kApiAudience};
  std::int64_t expirationSeconds = kDefaultExpirationSeconds;
  if (const json* given = common::presentMember(spec, "expirationSeconds")) {
    std::optional<std::int64_t> seconds =
        given->is_number() ? common::integralValue(*given) : std::nullopt;
    if (!seconds) {
      return errors::badRequest(
          "TokenRequest in version \"v1\" cannot be handled as a TokenRequest: json: cannot "
          "unmarshal " +
          goDecodedKind(*given) +
          " into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64");
    }
    expirationSeconds = *seconds;
  }
  std::vector<common::StatusCause> causes;
  if (expirationSeconds < kMinExpirationSeconds) {
    causes.push_back(common::invalidCause("spec.expirationSeconds", expirationSeconds,
                                          "may not specify a duration less than 10 minutes"));
  }
  if (expirationSeconds > kMaxExpirationSeconds) {
    causes.push_back(common::invalidCause("spec.expirationSeconds", expirationSeconds,
                                          "may not specify a duration larger than 2^32 seconds"));
  }
  if (!causes.empty()) return errors::invalid(type, "", causes);

  // Whole seconds, as metav1.Time and the JWT's NumericDate carry them.
  const common::WallTime now =
      std::chrono::time_point_cast<std::chrono::seconds>(api_.clock().now());
  const common::WallTime expiry = now + std::chrono::seconds(expirationSeconds);
  const std::int64_t nowUnix =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const std::string saUid = (*sa)["metadata"].value("uid", "");
  std::string jti;
  std::string signature;
  {
    std::lock_guard lock(mu_);
    EntropySource source(entropy_);
    jti = newUid(source);
    // Random bytes the size of an RS256 signature: kubesim trusts a token because it issued it,
    // so nothing here can be verified with a key.
    for (int i = 0; i < 32; ++i) {
      const std::uint64_t word = source.next();
      for (int b = 0; b < 8; ++b) signature.push_back(static_cast<char>(word >> (8 * b)));
    }
  }
  const json header = {{"alg", "RS256"}, {"kid", "kubesim"}};
  const json claims = {
      {"aud", audiences},
      {"exp", nowUnix + expirationSeconds},
      {"iat", nowUnix},
      {"iss", kApiAudience},
      {"jti", jti},
      {"kubernetes.io", {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", saUid}}}}},
      {"nbf", nowUnix},
      {"sub", "system:serviceaccount:" + ns + ":" + name}};
  const std::string token =
      base64Url(header.dump()) + "." + base64Url(claims.dump()) + "." + base64Url(signature);
  keep(token, Issued{ns, name, saUid, jti, audiences, expiry});

  meta["name"] = name;
  meta["namespace"] = ns;
  meta["creationTimestamp"] = common::formatRfc3339(now);
  json outSpec = {{"audiences", audiences}, {"expirationSeconds", expirationSeconds}};
  if (const json* ref = common::presentMember(spec, "boundObjectRef")) {
    outSpec["boundObjectRef"] = *ref;
  }
  return json{
      {"kind", type.kind},
      {"apiVersion", type.apiVersion()},
      {"metadata", meta},
      {"spec", outSpec},
      {"status", {{"token", token}, {"expirationTimestamp", common::formatRfc3339(expiry)}}}};
}

void TokenAuthority::keep(const std::string& token, Issued issued) {
  const common::WallTime now = api_.clock().now();
  std::lock_guard lock(mu_);
  if (issued_.size() >= limit_) {
    for (auto it = issued_.begin(); it != issued_.end();) {
      it = it->second.expiry + kLeeway < now ? issued_.erase(it) : std::next(it);
    }
    std::erase_if(order_, [this](const std::string& t) { return !issued_.count(t); });
  }
  while (issued_.size() >= limit_ && !order_.empty()) {
    issued_.erase(order_.front());
    order_.pop_front();
  }
  issued_.emplace(token, std::move(issued));
  order_.push_back(token);
}

TokenReviewResult TokenAuthority::review(const std::string& token,
                                         const std::vector<std::string>& audiences) const {
  const std::vector<std::string> requested =
      audiences.empty() ? std::vector<std::string>{kApiAudience} : audiences;
  if (!staticToken_.empty() && token == staticToken_) {
    // A static token knows no audience: it is good for the API server's own audiences only.
    std::vector<std::string> shared = intersect(requested, {kApiAudience});
    if (shared.empty()) return rejected();
    return {true, adminUser(), shared, ""};
  }
  Issued issued;
  {
    std::lock_guard lock(mu_);
    auto it = issued_.find(token);
    if (it == issued_.end()) return rejected();
    issued = it->second;
  }
  // The order of the service-account authenticator's checks: audiences, expiry, then the
  // ServiceAccount the token names.
  std::vector<std::string> shared = intersect(requested, issued.audiences);
  if (shared.empty()) {
    return rejected("token audiences " + goStringList(issued.audiences) +
                    " is invalid for the target audiences " + goStringList(requested));
  }
  const common::WallTime now = api_.clock().now();
  if (issued.expiry + kLeeway < now) return rejected("service account token has expired");
  std::optional<json> sa = api_.store().get("/serviceaccounts", issued.ns, issued.name);
  if (!sa) return rejected("serviceaccounts " + common::goQuote(issued.name) + " not found");
  const std::string uid = (*sa)["metadata"].value("uid", "");
  if (uid != issued.uid) {
    return rejected("service account UID (" + uid + ") does not match claim (" + issued.uid + ")");
  }
  if (std::optional<common::WallTime> deleted =
          common::timeMember((*sa)["metadata"], "deletionTimestamp");
      deleted && *deleted < now - kLeeway) {
    return rejected("service account " + issued.ns + "/" + issued.name + " has been deleted");
  }
  TokenReviewResult result;
  result.authenticated = true;
  result.user.name = "system:serviceaccount:" + issued.ns + ":" + issued.name;
  result.user.uid = issued.uid;
  result.user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + issued.ns,
                        kAuthenticated};
  result.user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + issued.jti};
  result.audiences = shared;
  return result;
}

}  // namespace hetbench::kubesim
