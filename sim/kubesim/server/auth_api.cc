// The authentication and authorization APIs of ApiServer: who a request is, the TokenRequest
// subresource of serviceaccounts, and the review resources (TokenReview, SelfSubjectReview,
// SubjectAccessReview and its self and local forms), which are answered and never stored.
#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "server/http_api.h"
#include "server/object_meta.h"
#include "server/rbac.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr const char* kServiceAccountPrefix = "system:serviceaccount:";

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::optional<std::string> bearerToken(const http::Request& request) {
  const std::string auth = request.header("authorization");
  if (auth.size() < 7) return std::nullopt;
  std::string scheme = auth.substr(0, 7);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer ") return std::nullopt;
  std::string token = auth.substr(7);
  if (token.empty()) return std::nullopt;
  return token;
}

// The user a request acts as through Impersonate-User and Impersonate-Group (repeated headers
// arrive joined by ", "), with the groups the API server's impersonation filter adds. Whether
// the requester may impersonate is not checked: kubesim enforces no authorization.
UserInfo impersonated(const http::Request& request, UserInfo requester) {
  const std::string name = request.header("impersonate-user");
  if (name.empty()) return requester;
  UserInfo user;
  user.name = name;
  user.uid = request.header("impersonate-uid");
  const std::string groups = request.header("impersonate-group");
  for (std::size_t start = 0; start < groups.size();) {
    std::size_t end = groups.find(", ", start);
    if (end == std::string::npos) end = groups.size();
    if (end > start) user.groups.push_back(groups.substr(start, end - start));
    start = end + 2;
  }
  if (user.groups.empty() && name.rfind(kServiceAccountPrefix, 0) == 0) {
    const std::string rest = name.substr(std::string(kServiceAccountPrefix).size());
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos && colon > 0 && colon + 1 < rest.size()) {
      user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + rest.substr(0, colon)};
    }
  }
  if (name == "system:anonymous") {
    if (!contains(user.groups, "system:unauthenticated")) {
      user.groups.push_back("system:unauthenticated");
    }
  } else if (!contains(user.groups, "system:authenticated") &&
             !contains(user.groups, "system:unauthenticated")) {
    user.groups.push_back("system:authenticated");
  }
  return user;
}

// A spec echoed as the API server echoes it after a round trip through its Go types, whose
// fields are all omitempty: nulls, empty strings and empty lists and maps left out.
json withoutEmpty(const json& v) {
  if (!v.is_object() && !v.is_array()) return v;
  json out = v.is_object() ? json::object() : json::array();
  for (auto it = v.begin(); it != v.end(); ++it) {
    json item = withoutEmpty(*it);
    const bool empty = item.is_null() || (item.is_string() && item.get<std::string>().empty()) ||
                       ((item.is_object() || item.is_array()) && item.empty());
    if (v.is_object() && empty) continue;
    if (v.is_object()) {
      out[it.key()] = std::move(item);
    } else {
      out.push_back(std::move(item));
    }
  }
  return out;
}

// fmt's %#v of the fields of a Go struct given as (name, rendered value) pairs.
std::string goStruct(const std::string& type,
                     const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out = type + "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i].first + ":" + fields[i].second;
  }
  return out + "}";
}

std::string goStringMap(const json& v) {
  if (!v.is_object() || v.empty()) return "map[string]string(nil)";
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [key, value] : v.items()) {
    if (!first) out += ", ";
    first = false;
    out += common::goQuote(key) + ":" +
           common::goQuote(value.is_string() ? value.get<std::string>() : "");
  }
  return out + "}";
}

std::string goTime(const json& meta) {
  static const char* kMonths[] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
  std::optional<common::WallTime> t = common::timeMember(meta, "creationTimestamp");
  if (!t) return "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)";
  const std::time_t seconds = std::chrono::system_clock::to_time_t(*t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  // The API server decodes metav1.Time into its local zone, UTC where it runs.
  return "time.Date(" + std::to_string(tm.tm_year + 1900) + ", time." + kMonths[tm.tm_mon] + ", " +
         std::to_string(tm.tm_mday) + ", " + std::to_string(tm.tm_hour) + ", " +
         std::to_string(tm.tm_min) + ", " + std::to_string(tm.tm_sec) + ", 0, time.Local)";
}

// %#v of the metav1.ObjectMeta a review must leave empty: its names, generation, creation time,
// labels, annotations and finalizers; the pointer and list fields beyond those show as unset.
std::string goObjectMeta(const json& meta) {
  std::string finalizers = "[]string(nil)";
  if (std::vector<std::string> list = common::stringList(common::member(meta, "finalizers"));
      !list.empty()) {
    finalizers = "[]string{";
    for (std::size_t i = 0; i < list.size(); ++i) {
      finalizers += (i > 0 ? ", " : "") + common::goQuote(list[i]);
    }
    finalizers += "}";
  }
  const auto str = [&](const char* field) {
    return common::goQuote(common::stringMember(meta, field));
  };
  return goStruct("v1.ObjectMeta",
                  {{"Name", str("name")},
                   {"GenerateName", str("generateName")},
                   {"Namespace", str("namespace")},
                   {"SelfLink", str("selfLink")},
                   {"UID", str("uid")},
                   {"ResourceVersion", str("resourceVersion")},
                   {"Generation", std::to_string(common::intMember(meta, "generation"))},
                   {"CreationTimestamp", goTime(meta)},
                   {"DeletionTimestamp", "<nil>"},
                   {"DeletionGracePeriodSeconds", "(*int64)(nil)"},
                   {"Labels", goStringMap(common::member(meta, "labels"))},
                   {"Annotations", goStringMap(common::member(meta, "annotations"))},
                   {"OwnerReferences", "[]v1.OwnerReference(nil)"},
                   {"Finalizers", finalizers},
                   {"ManagedFields", "[]v1.ManagedFieldsEntry(nil)"}});
}

std::string goNonResourceAttributes(const json& attributes) {
  return goStruct("authorization.NonResourceAttributes",
                  {{"Path", common::goQuote(common::stringMember(attributes, "path"))},
                   {"Verb", common::goQuote(common::stringMember(attributes, "verb"))}});
}

common::StatusCause invalidRendered(std::string field, const std::string& rendered,
                                    const std::string& detail) {
  return {std::move(field), "FieldValueInvalid", "Invalid value: " + rendered + ": " + detail};
}

// The 422 of a review: the API server names the kind of the object it decoded, which its
// internal types leave empty (".authorization.k8s.io \"\" is invalid").
ApiError invalidReview(const ResourceType& type, const std::vector<common::StatusCause>& causes) {
  ResourceType unnamed;
  unnamed.group = type.group;
  ApiError e = errors::invalid(unnamed, "", causes);
  e.details.erase("kind");
  return e;
}

// Whether metadata holds anything but zero values (kubectl sends a null creationTimestamp), the
// managedFields the server itself writes, and (for a local review) the namespace.
bool metadataSet(const json& meta, bool allowNamespace) {
  for (const auto& [key, value] : meta.items()) {
    if (key == "managedFields" || (allowNamespace && key == "namespace")) continue;
    if (value.is_number() && value == 0) continue;
    const json kept = withoutEmpty(json::object({{key, value}}));
    if (!kept.empty()) return true;
  }
  return false;
}

}  // namespace

ApiResult<UserInfo> ApiServer::authenticate(const http::Request& request) const {
  std::optional<UserInfo> user;
  if (request.clientCommonName) {
    user = certificateUser(*request.clientCommonName, request.clientOrganizations);
  } else if (std::optional<std::string> token = bearerToken(request)) {
    TokenReviewResult review = tokens_.review(*token, {});
    if (review.authenticated) user = std::move(review.user);
  }
  if (!user) {
    if (!options_.token.empty()) return errors::unauthorized();
    user = adminUser();
  }
  return impersonated(request, std::move(*user));
}

namespace {

/// The body of a POST to a create-only resource of `type` (405 for any other method), its
/// CreateOptions checked.
ApiResult<json> createOnlyBody(const http::Request& request, const ResourceType& type) {
  if (request.method != "POST") return errors::methodNotAllowed();
  WriteOptions options;
  if (std::optional<ApiError> bad = parseWriteOptions(request, "CreateOptions", &options)) {
    return *bad;
  }
  return parseBody(request, type);
}

}  // namespace

void ApiServer::handleTokenRequest(const http::Request& request, const ResourcePath& path,
                                   http::ResponseWriter& out) {
  const BodyFormat format = responseFormat(request, true);
  // The subresource takes and answers a TokenRequest, not a ServiceAccount.
  ResourceType tokenRequest = path.type;
  tokenRequest.group = "authentication.k8s.io";
  tokenRequest.kind = "TokenRequest";
  ApiResult<json> body = createOnlyBody(request, tokenRequest);
  if (!body.isOk()) return sendError(out, body.error(), format);
  ApiResult<json> issued = tokens_.createToken(path.ns, path.name, std::move(*body));
  if (!issued.isOk()) return sendError(out, issued.error(), format);
  sendObject(out, format, 201, *issued);
}

void ApiServer::handleReview(const http::Request& request, const ResourcePath& path,
                             const UserInfo& requester, http::ResponseWriter& out) {
  const BodyFormat format = responseFormat(request, true);
  // Review resources serve POST on their collection and nothing else.
  if (!path.name.empty()) return sendError(out, errors::pathNotFound(), format);
  ApiResult<json> body = createOnlyBody(request, path.type);
  if (!body.isOk()) return sendError(out, body.error(), format);
  ApiResult<std::vector<std::string>> typeMeta = checkTypeMeta(path.type, *body);
  if (!typeMeta.isOk()) return sendError(out, typeMeta.error(), format);
  ApiResult<json> answer = json::object();
  if (path.type.resource == "tokenreviews") {
    answer = tokenReview(*body);
  } else if (path.type.resource == "selfsubjectreviews") {
    answer = json{{"metadata", {{"creationTimestamp", nullptr}}},
                  {"status", {{"userInfo", requester.toJson()}}}};
  } else {
    answer = accessReview(path, *body, requester);
  }
  if (!answer.isOk()) return sendError(out, answer.error(), format);
  (*answer)["kind"] = path.type.kind;
  (*answer)["apiVersion"] = path.type.apiVersion();
  sendObject(out, format, 201, *answer);
}

ApiResult<json> ApiServer::tokenReview(const json& body) const {
  const json& spec = common::member(body, "spec");
  const std::string token = common::stringMember(spec, "token");
  if (token.empty())
    return errors::badRequest("token is required for TokenReview in authentication");
  const TokenReviewResult result =
      tokens_.review(token, common::stringList(common::member(spec, "audiences")));
  json status = {{"user", result.authenticated ? result.user.toJson() : json::object()}};
  if (result.authenticated) status["authenticated"] = true;
  if (!result.audiences.empty()) status["audiences"] = result.audiences;
  if (!result.error.empty()) status["error"] = result.error;
  return json{{"metadata", {{"creationTimestamp", nullptr}}},
              {"spec", withoutEmpty(spec.is_object() ? spec : json::object())},
              {"status", status}};
}

ApiResult<json> ApiServer::accessReview(const ResourcePath& path, const json& body,
                                        const UserInfo& requester) const {
  const bool self = path.type.resource == "selfsubjectaccessreviews";
  const bool local = path.type.resource == "localsubjectaccessreviews";
  json meta = common::member(body, "metadata");
  if (!meta.is_object()) meta = json::object();
  // The create handler gives a namespaced object the request's namespace and takes a
  // cluster-scoped one's away.
  if (local) {
    const std::string ns = common::stringMember(meta, "namespace");
    if (!ns.empty() && ns != path.ns) {
      return errors::badRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = path.ns;
  } else {
    meta.erase("namespace");
  }
  const json& spec = common::member(body, "spec");
  const json* resource = common::presentMember(spec, "resourceAttributes");
  const json* nonResource = common::presentMember(spec, "nonResourceAttributes");
  const std::string user = common::stringMember(spec, "user");
  const std::vector<std::string> groups = common::stringList(common::member(spec, "groups"));

  std::vector<common::StatusCause> causes;
  if (resource != nullptr && nonResource != nullptr) {
    causes.push_back(invalidRendered("spec.nonResourceAttributes",
                                     goNonResourceAttributes(*nonResource),
                                     "cannot be specified in combination with resourceAttributes"));
  }
  if (resource == nullptr && nonResource == nullptr) {
    causes.push_back(common::invalidCause(
        "spec.resourceAttributes", nullptr,
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  if (!self && user.empty() && groups.empty()) {
    causes.push_back(
        common::invalidCause("spec.user", user, "at least one of user or group must be specified"));
  }
  if (metadataSet(meta, local)) {
    causes.push_back(
        invalidRendered("metadata", goObjectMeta(meta),
                        local ? "must be empty except for namespace" : "must be empty"));
  }
  if (local && resource != nullptr && common::stringMember(*resource, "namespace") != path.ns) {
    causes.push_back(common::invalidCause("spec.resourceAttributes.namespace",
                                          common::stringMember(*resource, "namespace"),
                                          "must match metadata.namespace"));
  }
  if (local && nonResource != nullptr) {
    causes.push_back(invalidRendered("spec.nonResourceAttributes",
                                     goNonResourceAttributes(*nonResource),
                                     "disallowed on this kind of request"));
  }
  if (!causes.empty()) return invalidReview(path.type, causes);

  AuthorizationAttributes attributes;
  if (self) {
    attributes.user = requester;
  } else {
    attributes.user.name = user;
    attributes.user.uid = common::stringMember(spec, "uid");
    attributes.user.groups = groups;
    const json& extra = common::member(spec, "extra");
    if (extra.is_object()) {
      for (const auto& [key, values] : extra.items())
        attributes.user.extra[key] = common::stringList(values);
    }
  }
  if (resource != nullptr) {
    attributes.verb = common::stringMember(*resource, "verb");
    attributes.ns = common::stringMember(*resource, "namespace");
    attributes.group = common::stringMember(*resource, "group");
    attributes.resource = common::stringMember(*resource, "resource");
    attributes.subresource = common::stringMember(*resource, "subresource");
    attributes.name = common::stringMember(*resource, "name");
  } else {
    attributes.resourceRequest = false;
    attributes.verb = common::stringMember(*nonResource, "verb");
    attributes.path = common::stringMember(*nonResource, "path");
  }
  const AuthorizationDecision decision = authorize(api_.store(), attributes);
  json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  json outMeta = {{"creationTimestamp", nullptr}};
  if (local) outMeta["namespace"] = path.ns;
  return json{{"metadata", outMeta},
              {"spec", withoutEmpty(spec.is_object() ? spec : json::object())},
              {"status", status}};
}

}  // namespace hetbench::kubesim
