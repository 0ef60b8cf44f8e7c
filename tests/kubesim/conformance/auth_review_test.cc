#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "conformance/status_util.h"
#include "hetbench/common/base64.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/time.h"
#include "server/authentication.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kTokenReviews = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr const char* kSelfSubjectReviews = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
constexpr const char* kAccessReviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
constexpr const char* kSelfAccessReviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
constexpr const char* kRbac = "/apis/rbac.authorization.k8s.io/v1";

std::string tokenPath(const std::string& ns, const std::string& sa) {
  return "/api/v1/namespaces/" + ns + "/serviceaccounts/" + sa + "/token";
}

json tokenRequest(const json& spec = json::object()) {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
}

void createNamespace(Harness& h, const std::string& name) {
  ASSERT_EQ(h.post("/api/v1/namespaces",
                   {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}})
                .status,
            201);
}

// Creates a ServiceAccount and returns its uid.
std::string createServiceAccount(Harness& h, const std::string& ns, const std::string& name) {
  Response r =
      h.post("/api/v1/namespaces/" + ns + "/serviceaccounts",
             {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}});
  EXPECT_EQ(r.status, 201) << r.body;
  return bodyJson(r)["metadata"].value("uid", "");
}

// The token a TokenRequest with `spec` gets for ns/sa.
std::string issueToken(Harness& h, const std::string& ns, const std::string& sa,
                       const json& spec = json::object()) {
  Response r = h.post(tokenPath(ns, sa), tokenRequest(spec));
  EXPECT_EQ(r.status, 201) << r.body;
  return bodyJson(r)["status"].value("token", "");
}

json review(Harness& h, const std::string& token, const json& audiences = nullptr) {
  json spec = {{"token", token}};
  if (!audiences.is_null()) spec["audiences"] = audiences;
  Response r =
      h.post(kTokenReviews,
             {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", spec}});
  EXPECT_EQ(r.status, 201) << r.body;
  return bodyJson(r);
}

// The JSON of one base64url part of a JWT.
json jwtPart(const std::string& token, int index) {
  std::size_t start = 0;
  for (int i = 0; i < index; ++i) start = token.find('.', start) + 1;
  std::string part = token.substr(start, token.find('.', start) - start);
  std::replace(part.begin(), part.end(), '-', '+');
  std::replace(part.begin(), part.end(), '_', '/');
  while (part.size() % 4 != 0) part += '=';
  std::optional<std::string> raw = common::base64Decode(part);
  return raw ? json::parse(*raw, nullptr, false) : json();
}

std::string bearer(const std::string& token) { return "Authorization: Bearer " + token + "\r\n"; }

void create(Harness& h, const std::string& path, const json& object) {
  Response r = h.post(path, object);
  ASSERT_EQ(r.status, 201) << path << ": " << r.body;
}

json clusterRole(const std::string& name, const json& rules, const json& labels = nullptr) {
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRole"},
               {"metadata", {{"name", name}}},
               {"rules", rules}};
  if (!labels.is_null()) role["metadata"]["labels"] = labels;
  return role;
}

json binding(const std::string& kind, const std::string& name, const json& roleRef,
             const json& subjects) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"roleRef", roleRef},
          {"subjects", subjects}};
}

json roleRef(const std::string& kind, const std::string& name) {
  return {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", name}};
}

json accessReview(const json& spec, const std::string& kind = "SubjectAccessReview") {
  return {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", kind}, {"spec", spec}};
}

json resourceAttributes(const std::string& verb, const std::string& resource,
                        const std::string& ns = "", const std::string& name = "",
                        const std::string& subresource = "", const std::string& group = "") {
  json a = {{"verb", verb}, {"resource", resource}};
  if (!ns.empty()) a["namespace"] = ns;
  if (!name.empty()) a["name"] = name;
  if (!subresource.empty()) a["subresource"] = subresource;
  if (!group.empty()) a["group"] = group;
  return a;
}

// The status of a SubjectAccessReview asking about `subject` (user, groups).
json accessStatus(Harness& h, const json& subject, const json& attributes) {
  json spec = subject;
  spec[attributes.contains("path") ? "nonResourceAttributes" : "resourceAttributes"] = attributes;
  Response r = h.post(kAccessReviews, accessReview(spec));
  EXPECT_EQ(r.status, 201) << r.body;
  return bodyJson(r)["status"];
}

// Verifies the TokenRequest answer: 201 with the defaults filled in, and a JWT whose claims
// name the ServiceAccount as bound tokens do.
TEST(TokenRequest, IssuesServiceAccountJwt) {
  common::FakeClock clock;
  Harness::Options options;
  options.clock = &clock;
  Harness h(options);
  const std::string uid = createServiceAccount(h, "default", "robot");
  Response r = h.post(tokenPath("default", "robot"), tokenRequest());
  ASSERT_EQ(r.status, 201) << r.body;
  json body = bodyJson(r);
  const std::string now = common::formatRfc3339(clock.now());
  const std::string expiry = common::formatRfc3339(clock.now() + 3600s);
  EXPECT_EQ(body["kind"], "TokenRequest");
  EXPECT_EQ(body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(body["metadata"],
            (json{{"name", "robot"}, {"namespace", "default"}, {"creationTimestamp", now}}));
  EXPECT_EQ(body["spec"], (json{{"audiences", {kApiAudience}}, {"expirationSeconds", 3600}}));
  EXPECT_EQ(body["status"]["expirationTimestamp"], expiry);
  const std::string token = body["status"].value("token", "");
  ASSERT_EQ(std::count(token.begin(), token.end(), '.'), 2) << token;
  EXPECT_EQ(jwtPart(token, 0)["alg"], "RS256");
  json claims = jwtPart(token, 1);
  const std::int64_t iat =
      std::chrono::duration_cast<std::chrono::seconds>(clock.now().time_since_epoch()).count();
  ASSERT_TRUE(claims.contains("jti")) << claims.dump();
  EXPECT_EQ(claims["jti"].get<std::string>().size(), 36u);
  claims.erase("jti");
  EXPECT_EQ(
      claims,
      (json{{"aud", {kApiAudience}},
            {"exp", iat + 3600},
            {"iat", iat},
            {"iss", kApiAudience},
            {"kubernetes.io",
             {{"namespace", "default"}, {"serviceaccount", {{"name", "robot"}, {"uid", uid}}}}},
            {"nbf", iat},
            {"sub", "system:serviceaccount:default:robot"}}));
  EXPECT_NE(issueToken(h, "default", "robot"), token) << "every request gets its own token";
}

// Verifies the TokenRequest errors: a missing ServiceAccount, the expiration bounds, a body that
// names another ServiceAccount, and verbs other than create.
TEST(TokenRequest, Errors) {
  Harness h;
  createServiceAccount(h, "default", "robot");
  expectStatus(h.post(tokenPath("default", "ghost"), tokenRequest()), 404, "NotFound",
               "serviceaccounts \"ghost\" not found",
               {{"name", "ghost"}, {"kind", "serviceaccounts"}});
  struct Case {
    json body;
    std::string name;  // of the Invalid Status
    json cause;
  };
  const std::vector<Case> cases = {
      {tokenRequest({{"expirationSeconds", 599}}), "",
       cause("FieldValueInvalid",
             "Invalid value: 599: may not specify a duration less than 10 minutes",
             "spec.expirationSeconds")},
      {tokenRequest({{"expirationSeconds", 4294967297}}), "",
       cause("FieldValueInvalid",
             "Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds",
             "spec.expirationSeconds")},
      {json{{"apiVersion", "authentication.k8s.io/v1"},
            {"kind", "TokenRequest"},
            {"metadata", {{"name", "other"}}}},
       "robot",
       cause("FieldValueInvalid",
             "Invalid value: \"other\": must match the service account name if specified",
             "metadata.name")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.dump());
    const std::string field = c.cause["field"];
    const std::string message = c.cause["message"];
    json details = {
        {"kind", "TokenRequest"}, {"group", "authentication.k8s.io"}, {"causes", {c.cause}}};
    if (!c.name.empty()) details["name"] = c.name;
    expectStatus(h.post(tokenPath("default", "robot"), c.body), 422, "Invalid",
                 "TokenRequest.authentication.k8s.io \"" + c.name + "\" is invalid: " + field +
                     ": " + message,
                 details);
  }
  expectStatus(h.get(tokenPath("default", "robot")), 405, "MethodNotAllowed",
               "the server does not allow this method on the requested resource", json::object());
  EXPECT_EQ(
      h.post(tokenPath("default", "robot"), tokenRequest({{"expirationSeconds", 600}})).status,
      201);
}

// Verifies that a TokenReview of an issued token answers the ServiceAccount's user info, as
// kube-apiserver does for a bound token (uid, groups and the token's credential id).
TEST(TokenReview, AuthenticatesIssuedToken) {
  Harness h;
  const std::string uid = createServiceAccount(h, "default", "robot");
  const std::string token = issueToken(h, "default", "robot");
  const std::string jti = jwtPart(token, 1).value("jti", "");
  json body = review(h, token);
  EXPECT_EQ(body["kind"], "TokenReview");
  EXPECT_EQ(body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(body["spec"], (json{{"token", token}}));
  EXPECT_EQ(
      body["status"],
      (json{
          {"authenticated", true},
          {"user",
           {{"username", "system:serviceaccount:default:robot"},
            {"uid", uid},
            {"groups",
             {"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}},
            {"extra", {{"authentication.kubernetes.io/credential-id", {"JTI=" + jti}}}}}},
          {"audiences", {kApiAudience}}}));
}

// Verifies audiences: a review names the audiences it accepts (default: the API server's), the
// token must have one of them, and status.audiences is what both share.
TEST(TokenReview, Audiences) {
  Harness h;
  createServiceAccount(h, "default", "robot");
  const std::string token = issueToken(h, "default", "robot", {{"audiences", {"a", "b"}}});
  struct Case {
    json audiences;
    json status;  // without user
  };
  const std::vector<Case> cases = {
      {json::array({"c", "b"}), {{"authenticated", true}, {"audiences", {"b"}}}},
      {json::array({"b", "a"}), {{"authenticated", true}, {"audiences", {"b", "a"}}}},
      {json::array({"c"}),
       {{"error",
         "[invalid bearer token, token audiences [\"a\" \"b\"] is invalid for the target audiences "
         "[\"c\"]]"}}},
      {nullptr,
       {{"error",
         "[invalid bearer token, token audiences [\"a\" \"b\"] is invalid for the target audiences "
         "[\"" +
             std::string(kApiAudience) + "\"]]"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.audiences.dump());
    json status = review(h, token, c.audiences)["status"];
    EXPECT_EQ(status.contains("user") && status["user"].is_object(), true);
    status.erase("user");
    EXPECT_EQ(status, c.status);
  }
}

// Verifies that unknown tokens are not authenticated (a 201 with the authenticator's error, no
// HTTP error), that an empty token is a 400, and that a review of the static token answers the
// admin only for the API server's audience.
TEST(TokenReview, UnknownEmptyAndStaticTokens) {
  Harness::Options options;
  options.token = "s3cret";
  Harness h(options);
  EXPECT_EQ(review(h, "garbage")["status"],
            (json{{"user", json::object()}, {"error", "invalid bearer token"}}));
  expectStatus(h.post(kTokenReviews, {{"apiVersion", "authentication.k8s.io/v1"},
                                      {"kind", "TokenReview"},
                                      {"spec", json::object()}}),
               400, "BadRequest", "token is required for TokenReview in authentication");
  EXPECT_EQ(review(h, "s3cret")["status"],
            (json{{"authenticated", true},
                  {"user",
                   {{"username", "kubesim-admin"},
                    {"groups", {"system:masters", "system:authenticated"}}}},
                  {"audiences", {kApiAudience}}}));
  EXPECT_EQ(review(h, "s3cret", {"other"})["status"],
            (json{{"user", json::object()}, {"error", "invalid bearer token"}}));
}

// Verifies that an issued token stops authenticating once expired (after the authenticator's
// one-minute leeway), on a clock the test moves.
TEST(TokenReview, Expiry) {
  common::FakeClock clock;
  Harness::Options options;
  options.clock = &clock;
  Harness h(options);
  createServiceAccount(h, "default", "robot");
  const std::string token = issueToken(h, "default", "robot", {{"expirationSeconds", 600}});
  clock.advance(660s);
  EXPECT_EQ(review(h, token)["status"].value("authenticated", false), true);
  clock.advance(1s);
  EXPECT_EQ(review(h, token)["status"],
            (json{{"user", json::object()},
                  {"error", "[invalid bearer token, service account token has expired]"}}));
}

// Verifies that deleting the ServiceAccount invalidates its tokens, and that a ServiceAccount
// recreated under the same name (another uid) does not revive them.
TEST(TokenReview, ServiceAccountDeletedOrRecreated) {
  Harness h;
  const std::string oldUid = createServiceAccount(h, "default", "robot");
  const std::string token = issueToken(h, "default", "robot");
  ASSERT_EQ(h.del("/api/v1/namespaces/default/serviceaccounts/robot").status, 200);
  EXPECT_EQ(review(h, token)["status"]["error"],
            "[invalid bearer token, serviceaccounts \"robot\" not found]");
  const std::string newUid = createServiceAccount(h, "default", "robot");
  EXPECT_EQ(review(h, token)["status"]["error"], "[invalid bearer token, service account UID (" +
                                                     newUid + ") does not match claim (" + oldUid +
                                                     ")]");
  EXPECT_EQ(review(h, issueToken(h, "default", "robot"))["status"].value("authenticated", false),
            true);
}

// Verifies that kubesim keeps a bounded number of issued tokens: past the limit the oldest is
// forgotten and no longer authenticates.
TEST(TokenReview, IssuedTokensAreBounded) {
  Harness::Options options;
  options.issuedTokenLimit = 2;
  Harness h(options);
  createServiceAccount(h, "default", "robot");
  const std::string first = issueToken(h, "default", "robot");
  const std::string second = issueToken(h, "default", "robot");
  const std::string third = issueToken(h, "default", "robot");
  EXPECT_EQ(review(h, first)["status"].value("error", ""), "invalid bearer token");
  EXPECT_EQ(review(h, second)["status"].value("authenticated", false), true);
  EXPECT_EQ(review(h, third)["status"].value("authenticated", false), true);
}

// Verifies that with --token an issued token authenticates requests to kubesim itself (for the
// API server's audience only, and only while its ServiceAccount exists), and that the requester
// is who SelfSubjectReview reports.
TEST(Auth, IssuedTokenAuthenticatesRequests) {
  Harness::Options options;
  options.token = "s3cret";
  Harness h(options);
  const std::string uid = createServiceAccount(h, "default", "robot");
  const std::string token = issueToken(h, "default", "robot");
  const std::string configMaps = "/api/v1/namespaces/default/configmaps";
  EXPECT_EQ(h.request("GET", configMaps, "", "application/json", bearer(token)).status, 200);
  Response who = h.request(
      "POST", kSelfSubjectReviews,
      json{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}}.dump(),
      "application/json", bearer(token));
  ASSERT_EQ(who.status, 201) << who.body;
  EXPECT_EQ(bodyJson(who)["status"]["userInfo"]["username"], "system:serviceaccount:default:robot");
  EXPECT_EQ(bodyJson(who)["status"]["userInfo"]["uid"], uid);
  const std::string other = issueToken(h, "default", "robot", {{"audiences", {"other"}}});
  expectStatus(h.request("GET", configMaps, "", "application/json", bearer(other)), 401,
               "Unauthorized", "Unauthorized");
  ASSERT_EQ(h.del("/api/v1/namespaces/default/serviceaccounts/robot").status, 200);
  expectStatus(h.request("GET", configMaps, "", "application/json", bearer(token)), 401,
               "Unauthorized", "Unauthorized");
}

// Verifies who SelfSubjectReview reports: the admin without --token, and the user and groups
// that Impersonate-User and Impersonate-Group name, with the groups the server adds.
TEST(Auth, SelfSubjectReviewAndImpersonation) {
  Harness h;
  const json body = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
  Response admin = h.post(kSelfSubjectReviews, body);
  ASSERT_EQ(admin.status, 201) << admin.body;
  EXPECT_EQ(bodyJson(admin),
            (json{{"kind", "SelfSubjectReview"},
                  {"apiVersion", "authentication.k8s.io/v1"},
                  {"metadata", {{"creationTimestamp", nullptr}}},
                  {"status",
                   {{"userInfo",
                     {{"username", "kubesim-admin"},
                      {"groups", {"system:masters", "system:authenticated"}}}}}}}));
  struct Case {
    std::string headers;
    json userInfo;
  };
  const std::vector<Case> cases = {
      {"Impersonate-User: alice\r\nImpersonate-Group: devs\r\nImpersonate-Group: ops\r\n",
       {{"username", "alice"}, {"groups", {"devs", "ops", "system:authenticated"}}}},
      {"Impersonate-User: system:serviceaccount:team:bot\r\n",
       {{"username", "system:serviceaccount:team:bot"},
        {"groups",
         {"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}}}},
      {"Impersonate-User: system:anonymous\r\n",
       {{"username", "system:anonymous"}, {"groups", {"system:unauthenticated"}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.headers);
    Response r = h.request("POST", kSelfSubjectReviews, body.dump(), "application/json", c.headers);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(bodyJson(r)["status"]["userInfo"], c.userInfo);
  }
}

// The RBAC objects of the review tests: every binding kind, subresources, resourceNames and
// non-resource URLs.
void createPolicy(Harness& h) {
  createNamespace(h, "team");
  createNamespace(h, "monitoring");
  const std::string roles = std::string(kRbac) + "/clusterroles";
  const std::string bindings = std::string(kRbac) + "/clusterrolebindings";
  create(h, roles,
         clusterRole("pod-reader",
                     {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list"}}}}));
  create(h, roles,
         clusterRole("log-reader",
                     {{{"apiGroups", {""}}, {"resources", {"pods/log"}}, {"verbs", {"get"}}}}));
  create(h, roles,
         clusterRole("metrics-reader", {{{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}}}));
  create(h, roles,
         clusterRole("health-reader", {{{"nonResourceURLs", {"/healthz/*"}}, {"verbs", {"*"}}}}));
  create(h, roles,
         clusterRole("status-reader",
                     {{{"apiGroups", {"*"}}, {"resources", {"*/status"}}, {"verbs", {"get"}}}}));
  create(h, bindings,
         binding("ClusterRoleBinding", "readers", roleRef("ClusterRole", "pod-reader"),
                 {{{"kind", "Group"}, {"name", "readers"}}}));
  create(
      h, bindings,
      binding("ClusterRoleBinding", "metrics", roleRef("ClusterRole", "metrics-reader"),
              {{{"kind", "ServiceAccount"}, {"name", "prometheus"}, {"namespace", "monitoring"}}}));
  create(h, bindings,
         binding("ClusterRoleBinding", "health", roleRef("ClusterRole", "health-reader"),
                 {{{"kind", "User"}, {"name", "prober"}},
                  {{"kind", "ServiceAccount"}, {"name", "unscoped"}}}));
  create(h, bindings,
         binding("ClusterRoleBinding", "status", roleRef("ClusterRole", "status-reader"),
                 {{{"kind", "User"}, {"name", "carol"}}}));
  create(h, std::string(kRbac) + "/namespaces/team/roles",
         {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", {{"name", "settings-one"}}},
          {"rules",
           {{{"apiGroups", {""}},
             {"resources", {"configmaps"}},
             {"resourceNames", {"one"}},
             {"verbs", {"get"}}}}}});
  create(h, std::string(kRbac) + "/namespaces/team/rolebindings",
         binding("RoleBinding", "logs", roleRef("ClusterRole", "log-reader"),
                 {{{"kind", "User"}, {"name", "alice"}}}));
  create(h, std::string(kRbac) + "/namespaces/team/rolebindings",
         binding("RoleBinding", "settings", roleRef("Role", "settings-one"),
                 {{{"kind", "ServiceAccount"}, {"name", "bot"}}}));
}

// Verifies SubjectAccessReview decisions through each binding kind, with the RBAC
// authorizer's reasons: ClusterRoleBindings everywhere, RoleBindings in their namespace only,
// subresources, resourceNames, non-resource URLs and system:masters.
TEST(SubjectAccessReview, Rbac) {
  Harness h;
  createPolicy(h);
  const json readers = {{"user", "someone"}, {"groups", {"readers"}}};
  const json alice = {{"user", "alice"}};
  const json bot = {{"user", "system:serviceaccount:team:bot"}};
  const json prometheus = {{"user", "system:serviceaccount:monitoring:prometheus"}};
  const json unscoped = {{"user", "system:serviceaccount:default:unscoped"}};
  const json prober = {{"user", "prober"}};
  const json carol = {{"user", "carol"}};
  const json master = {{"user", "root"}, {"groups", {"system:masters"}}};
  struct Case {
    std::string name;
    json subject;
    json attributes;
    json status;
  };
  auto allowed = [](const std::string& reason) {
    return json{{"allowed", true}, {"reason", "RBAC: allowed by " + reason}};
  };
  const json denied = {{"allowed", false}};
  const std::vector<Case> cases = {
      {"cluster binding to a group", readers, resourceAttributes("get", "pods", "anywhere"),
       allowed(
           "ClusterRoleBinding \"readers\" of ClusterRole \"pod-reader\" to Group \"readers\"")},
      {"cluster-wide list", readers, resourceAttributes("list", "pods"),
       allowed(
           "ClusterRoleBinding \"readers\" of ClusterRole \"pod-reader\" to Group \"readers\"")},
      {"verb not granted", readers, resourceAttributes("delete", "pods", "team"), denied},
      {"group not granted", readers, resourceAttributes("get", "pods", "team", "", "", "apps"),
       denied},
      {"subresource is its own resource", readers,
       resourceAttributes("get", "pods", "team", "p", "log"), denied},
      {"role binding in its namespace", alice,
       resourceAttributes("get", "pods", "team", "p", "log"),
       allowed("RoleBinding \"logs/team\" of ClusterRole \"log-reader\" to User \"alice\"")},
      {"role binding elsewhere", alice, resourceAttributes("get", "pods", "default", "p", "log"),
       denied},
      {"role binding cluster-wide", alice, resourceAttributes("get", "pods", "", "p", "log"),
       denied},
      {"subresource rule is not the resource", alice, resourceAttributes("get", "pods", "team"),
       denied},
      {"service account defaults to the binding's namespace", bot,
       resourceAttributes("get", "configmaps", "team", "one"),
       allowed("RoleBinding \"settings/team\" of Role \"settings-one\" to ServiceAccount "
               "\"bot/team\"")},
      {"resourceNames restrict the name", bot,
       resourceAttributes("get", "configmaps", "team", "two"), denied},
      {"resourceNames exclude an unnamed request", bot,
       resourceAttributes("get", "configmaps", "team"), denied},
      {"*/subresource", carol,
       resourceAttributes("get", "deployments", "team", "d", "status", "apps"),
       allowed("ClusterRoleBinding \"status\" of ClusterRole \"status-reader\" to User \"carol\"")},
      {"*/subresource is not the resource", carol,
       resourceAttributes("get", "deployments", "team", "d", "", "apps"), denied},
      {"non-resource URL",
       prometheus,
       {{"verb", "get"}, {"path", "/metrics"}},
       allowed("ClusterRoleBinding \"metrics\" of ClusterRole \"metrics-reader\" to "
               "ServiceAccount \"prometheus/monitoring\"")},
      {"non-resource URL is exact",
       prometheus,
       {{"verb", "get"}, {"path", "/metrics/extra"}},
       denied},
      {"non-resource verb", prometheus, {{"verb", "post"}, {"path", "/metrics"}}, denied},
      {"non-resource URL prefix",
       prober,
       {{"verb", "get"}, {"path", "/healthz/ready"}},
       allowed("ClusterRoleBinding \"health\" of ClusterRole \"health-reader\" to User "
               "\"prober\"")},
      {"prefix needs the slash", prober, {{"verb", "get"}, {"path", "/healthz"}}, denied},
      {"cluster binding's service account needs a namespace",
       unscoped,
       {{"verb", "get"}, {"path", "/healthz/ready"}},
       denied},
      {"system:masters may do anything",
       master,
       resourceAttributes("delete", "nodes", "", "n"),
       {{"allowed", true}}},
      {"nobody", {{"user", "mallory"}}, resourceAttributes("get", "pods", "team"), denied},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(accessStatus(h, c.subject, c.attributes), c.status);
  }
}

// Verifies that a binding to a role that does not exist denies with the RBAC authorizer's error
// as reason (several errors bracketed), and allows nothing.
TEST(SubjectAccessReview, MissingRolesGiveReasons) {
  Harness h;
  createNamespace(h, "team");
  create(h, std::string(kRbac) + "/clusterrolebindings",
         binding("ClusterRoleBinding", "ghost", roleRef("ClusterRole", "ghost"),
                 {{{"kind", "User"}, {"name", "bob"}}}));
  EXPECT_EQ(accessStatus(h, {{"user", "bob"}}, resourceAttributes("get", "pods", "team")),
            (json{{"allowed", false},
                  {"reason", "RBAC: clusterrole.rbac.authorization.k8s.io \"ghost\" not found"}}));
  create(h, std::string(kRbac) + "/namespaces/team/rolebindings",
         binding("RoleBinding", "phantom", roleRef("Role", "phantom"),
                 {{{"kind", "User"}, {"name", "bob"}}}));
  EXPECT_EQ(accessStatus(h, {{"user", "bob"}}, resourceAttributes("get", "pods", "team")),
            (json{{"allowed", false},
                  {"reason",
                   "RBAC: [clusterrole.rbac.authorization.k8s.io \"ghost\" not found, "
                   "role.rbac.authorization.k8s.io \"phantom\" not found]"}}));
}

// Verifies the review's answer as a whole: 201, the spec echoed, status.allowed always present
// and status.denied never set by RBAC.
TEST(SubjectAccessReview, AnswerShape) {
  Harness h;
  const json spec = {{"user", "nobody"},
                     {"resourceAttributes", resourceAttributes("get", "pods", "default")}};
  Response r = h.post(kAccessReviews, accessReview(spec));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(bodyJson(r), (json{{"kind", "SubjectAccessReview"},
                               {"apiVersion", "authorization.k8s.io/v1"},
                               {"metadata", {{"creationTimestamp", nullptr}}},
                               {"spec", spec},
                               {"status", {{"allowed", false}}}}));
}

// Verifies the validation of the review kinds, worded as the API server's
// pkg/apis/authorization/validation words it.
TEST(SubjectAccessReview, Validation) {
  Harness h;
  createNamespace(h, "team");
  const std::string local =
      "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews";
  const json exactlyOne =
      cause("FieldValueInvalid",
            "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes "
            "must be specified",
            "spec.resourceAttributes");
  const json nonResource = {{"verb", "get"}, {"path", "/metrics"}};
  const std::string rendered =
      "authorization.NonResourceAttributes{Path:\"/metrics\", Verb:\"get\"}";
  struct Case {
    std::string path;
    json body;
    std::vector<json> causes;
  };
  json named =
      accessReview({{"user", "u"}, {"resourceAttributes", resourceAttributes("get", "pods")}});
  named["metadata"] = {{"name", "x"}};
  const std::vector<Case> cases = {
      {kAccessReviews,
       accessReview(json::object()),
       {exactlyOne, cause("FieldValueInvalid",
                          "Invalid value: \"\": at least one of user or group must be specified",
                          "spec.user")}},
      {kAccessReviews,
       accessReview({{"groups", {"g"}},
                     {"resourceAttributes", resourceAttributes("get", "pods")},
                     {"nonResourceAttributes", nonResource}}),
       {cause("FieldValueInvalid",
              "Invalid value: " + rendered +
                  ": cannot be specified in combination with "
                  "resourceAttributes",
              "spec.nonResourceAttributes")}},
      {kSelfAccessReviews, accessReview(json::object(), "SelfSubjectAccessReview"), {exactlyOne}},
      {kAccessReviews,
       named,
       {cause("FieldValueInvalid",
              "Invalid value: v1.ObjectMeta{Name:\"x\", GenerateName:\"\", Namespace:\"\", "
              "SelfLink:\"\", UID:\"\", ResourceVersion:\"\", Generation:0, "
              "CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), "
              "DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), "
              "Labels:map[string]string(nil), Annotations:map[string]string(nil), "
              "OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), "
              "ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty",
              "metadata")}},
      {local,
       accessReview(
           {{"user", "u"}, {"resourceAttributes", resourceAttributes("get", "pods", "other")}},
           "LocalSubjectAccessReview"),
       {cause("FieldValueInvalid", "Invalid value: \"other\": must match metadata.namespace",
              "spec.resourceAttributes.namespace")}},
      {local,
       accessReview({{"user", "u"}, {"nonResourceAttributes", nonResource}},
                    "LocalSubjectAccessReview"),
       {cause("FieldValueInvalid",
              "Invalid value: " + rendered + ": disallowed on this kind of request",
              "spec.nonResourceAttributes")}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.dump());
    std::string summary;
    for (const json& k : c.causes) {
      summary += (summary.empty() ? "" : ", ") + k["field"].get<std::string>() + ": " +
                 k["message"].get<std::string>();
    }
    if (c.causes.size() > 1) summary = "[" + summary + "]";
    expectStatus(h.post(c.path, c.body), 422, "Invalid",
                 ".authorization.k8s.io \"\" is invalid: " + summary,
                 {{"group", "authorization.k8s.io"}, {"causes", c.causes}});
  }
}

// Verifies SelfSubjectAccessReview (the requester: the admin of a harness without --token, or
// the ServiceAccount of an issued token) and LocalSubjectAccessReview in its namespace.
TEST(SubjectAccessReview, SelfAndLocal) {
  Harness h;
  createPolicy(h);
  const json selfBody = accessReview(
      {{"resourceAttributes", resourceAttributes("delete", "nodes")}}, "SelfSubjectAccessReview");
  Response admin = h.post(kSelfAccessReviews, selfBody);
  ASSERT_EQ(admin.status, 201) << admin.body;
  EXPECT_EQ(bodyJson(admin)["status"], (json{{"allowed", true}}));

  createServiceAccount(h, "team", "bot");
  const std::string token = issueToken(h, "team", "bot");
  auto self = [&](const json& attributes) {
    Response r = h.request(
        "POST", kSelfAccessReviews,
        accessReview({{"resourceAttributes", attributes}}, "SelfSubjectAccessReview").dump(),
        "application/json", bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return bodyJson(r)["status"];
  };
  EXPECT_EQ(self(resourceAttributes("get", "configmaps", "team", "one"))["allowed"], true);
  EXPECT_EQ(self(resourceAttributes("delete", "nodes")), (json{{"allowed", false}}));

  Response r = h.post(
      "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews",
      accessReview({{"user", "alice"},
                    {"resourceAttributes", resourceAttributes("get", "pods", "team", "p", "log")}},
                   "LocalSubjectAccessReview"));
  ASSERT_EQ(r.status, 201) << r.body;
  json body = bodyJson(r);
  EXPECT_EQ(body["metadata"], (json{{"namespace", "team"}, {"creationTimestamp", nullptr}}));
  EXPECT_EQ(body["status"],
            (json{{"allowed", true},
                  {"reason",
                   "RBAC: allowed by RoleBinding \"logs/team\" of ClusterRole \"log-reader\" to "
                   "User \"alice\""}}));
}

// Verifies ClusterRole aggregation as kube-controller-manager does it: the aggregated role's
// rules follow the ClusterRoles its selector matches, and reviews grant what they grant.
TEST(SubjectAccessReview, Aggregation) {
  Harness h;
  const std::string roles = std::string(kRbac) + "/clusterroles";
  json aggregate = clusterRole("monitoring", json::array());
  aggregate["aggregationRule"] = {
      {"clusterRoleSelectors",
       {{{"matchLabels", {{"example.com/aggregate-to-monitoring", "true"}}}}}}};
  create(h, roles, aggregate);
  create(h, std::string(kRbac) + "/clusterrolebindings",
         binding("ClusterRoleBinding", "monitoring", roleRef("ClusterRole", "monitoring"),
                 {{{"kind", "User"}, {"name", "dave"}}}));
  const json secrets = resourceAttributes("get", "secrets", "default");
  EXPECT_EQ(accessStatus(h, {{"user", "dave"}}, secrets), (json{{"allowed", false}}));

  const json labels = {{"example.com/aggregate-to-monitoring", "true"}};
  const json secretRule = {{"apiGroups", {""}}, {"resources", {"secrets"}}, {"verbs", {"get"}}};
  const json metricsRule = {{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}};
  create(h, roles, clusterRole("b-secrets", json::array({secretRule, metricsRule}), labels));
  create(h, roles, clusterRole("a-metrics", json::array({metricsRule}), labels));
  create(
      h, roles,
      clusterRole("unlabelled", {{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}}}));
  EXPECT_TRUE(Harness::eventually([&] {
    return bodyJson(h.get(roles + "/monitoring"))["rules"] ==
           json::array({metricsRule, secretRule});
  })) << h.get(roles + "/monitoring").body;
  EXPECT_EQ(accessStatus(h, {{"user", "dave"}}, secrets),
            (json{{"allowed", true},
                  {"reason",
                   "RBAC: allowed by ClusterRoleBinding \"monitoring\" of ClusterRole "
                   "\"monitoring\" to User \"dave\""}}));
  EXPECT_EQ(accessStatus(h, {{"user", "dave"}}, resourceAttributes("delete", "secrets", "default")),
            (json{{"allowed", false}}));

  ASSERT_EQ(h.patch(roles + "/b-secrets", "application/merge-patch+json",
                    {{"metadata", {{"labels", nullptr}}}})
                .status,
            200);
  EXPECT_TRUE(Harness::eventually([&] {
    return bodyJson(h.get(roles + "/monitoring"))["rules"] == json::array({metricsRule});
  })) << h.get(roles + "/monitoring").body;
  EXPECT_EQ(accessStatus(h, {{"user", "dave"}}, secrets), (json{{"allowed", false}}));
}

// Verifies discovery and routing of the review resources and the token subresource: create is
// their one verb, so other methods are 405 and named paths 404.
TEST(AuthDiscovery, ReviewResources) {
  Harness h;
  auto find = [](const json& list, const std::string& name) {
    for (const json& r : list.value("resources", json::array())) {
      if (r.value("name", "") == name) return r;
    }
    return json();
  };
  json authn = bodyJson(h.get("/apis/authentication.k8s.io/v1"));
  EXPECT_EQ(find(authn, "tokenreviews"), (json{{"name", "tokenreviews"},
                                               {"singularName", "tokenreview"},
                                               {"namespaced", false},
                                               {"kind", "TokenReview"},
                                               {"verbs", {"create"}}}));
  EXPECT_EQ(find(authn, "selfsubjectreviews")["verbs"], json({"create"}));
  json authz = bodyJson(h.get("/apis/authorization.k8s.io/v1"));
  EXPECT_EQ(find(authz, "subjectaccessreviews")["verbs"], json({"create"}));
  EXPECT_EQ(find(authz, "selfsubjectaccessreviews")["namespaced"], false);
  EXPECT_EQ(find(authz, "localsubjectaccessreviews")["namespaced"], true);
  EXPECT_EQ(find(bodyJson(h.get("/api/v1")), "serviceaccounts/token"),
            (json{{"name", "serviceaccounts/token"},
                  {"singularName", ""},
                  {"namespaced", true},
                  {"group", "authentication.k8s.io"},
                  {"version", "v1"},
                  {"kind", "TokenRequest"},
                  {"verbs", {"create"}}}));
  for (const char* path :
       {kTokenReviews, "/apis/authentication.k8s.io/v1/tokenreviews?watch=true", kAccessReviews}) {
    SCOPED_TRACE(path);
    expectStatus(h.get(path), 405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource", json::object());
  }
  expectStatus(h.get(std::string(kTokenReviews) + "/x"), 404, "NotFound",
               "the server could not find the requested resource", json::object());
}

}  // namespace
}  // namespace hetbench::kubesim::testing
