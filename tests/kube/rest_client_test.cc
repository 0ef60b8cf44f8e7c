#include "hetbench/kube/rest_client.h"

#include <gtest/gtest.h>

#include <thread>

#include "hetbench/common/time.h"
#include "temp_dir.h"
#include "testing/harness.h"

namespace hetbench::kube {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using namespace std::chrono_literals;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps", true};
const GroupVersionResource& kCrds = resources::kCustomResourceDefinitions;

json configMap(const std::string& name, const json& labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"k", "v"}}}};
}

struct Fixture {
  explicit Fixture(Harness::Options options = {}) : harness(std::move(options)) {}

  std::unique_ptr<KubeClient> client(RestConfig config = {}, RestClientOptions options = {}) {
    if (config.server.empty()) {
      config.server = "http://127.0.0.1:" + std::to_string(harness.port());
    }
    options.retryBase = 10ms;
    common::Result<std::unique_ptr<KubeClient>> c = makeRestClient(config, options, clock);
    EXPECT_TRUE(c.isOk()) << c.status().toString();
    return std::move(*c);
  }

  common::SystemClock clock;
  Harness harness;
};

// Verifies create, get, update, conflicting update, patches and delete with their Status codes.
TEST(RestClient, VerbsAndErrorMapping) {
  Fixture f;
  auto c = f.client();
  common::Result<json> created = c->create(kConfigMaps, "default", configMap("a"));
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  EXPECT_TRUE(c->create(kConfigMaps, "default", configMap("a")).status().isAlreadyExists());
  EXPECT_TRUE(c->get(kConfigMaps, "default", "missing").status().isNotFound());

  json obj = *created;
  obj["data"]["k"] = "v2";
  common::Result<json> updated = c->update(kConfigMaps, "default", obj);
  ASSERT_TRUE(updated.isOk()) << updated.status().toString();
  obj["data"]["k"] = "stale";
  common::Status conflict = c->update(kConfigMaps, "default", obj).status();
  EXPECT_TRUE(conflict.isConflict()) << conflict.toString();
  EXPECT_NE(conflict.message().find("the object has been modified"), std::string::npos);

  EXPECT_EQ((*c->patch(kConfigMaps, "default", "a", PatchType::kMerge,
                       {{"data", {{"m", "1"}}}}))["data"]["m"],
            "1");
  EXPECT_EQ(
      (*c->patch(kConfigMaps, "default", "a", PatchType::kJson,
                 json::array({{{"op", "add"}, {"path", "/data/j"}, {"value", "2"}}})))["data"]["j"],
      "2");
  EXPECT_EQ((*c->patch(kConfigMaps, "default", "a", PatchType::kStrategicMerge,
                       {{"data", {{"s", "3"}}}}))["data"]["s"],
            "3");

  DeleteOptions wrongUid;
  wrongUid.preconditionUid = "not-the-uid";
  EXPECT_TRUE(c->remove(kConfigMaps, "default", "a", wrongUid).isConflict());
  EXPECT_TRUE(c->remove(kConfigMaps, "default", "a", {}).isOk());
  EXPECT_TRUE(c->remove(kConfigMaps, "default", "a", {}).isNotFound());
}

// Verifies that a 422 carries the server's causes.
TEST(RestClient, InvalidCarriesCauses) {
  Fixture f;
  auto c = f.client();
  common::Status invalid = c->create(kConfigMaps, "default", configMap("Bad_Name")).status();
  ASSERT_TRUE(invalid.isInvalid()) << invalid.toString();
  ASSERT_FALSE(invalid.causes().empty());
  EXPECT_EQ(invalid.causes()[0].field, "metadata.name");
}

// Verifies label-selected lists and paging with continue tokens, and 410 for an expired token.
TEST(RestClient, ListsPagesAndGone) {
  Fixture f;
  auto c = f.client();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c->create(kConfigMaps, "default",
                          configMap("cm" + std::to_string(i), {{"team", i % 2 ? "a" : "b"}}))
                    .isOk());
  }
  ListOptions selected;
  selected.labelSelector = "team=a";
  EXPECT_EQ(c->list(kConfigMaps, "default", selected)->items.size(), 2u);
  ListOptions page;
  page.limit = 2;
  std::vector<std::string> names;
  while (true) {
    common::Result<ListResult> r = c->list(kConfigMaps, "default", page);
    ASSERT_TRUE(r.isOk());
    for (const json& item : r->items) {
      EXPECT_EQ(item["kind"], "ConfigMap");
      names.push_back(item["metadata"]["name"]);
    }
    if (r->continueToken.empty()) break;
    page.continueToken = r->continueToken;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cm0", "cm1", "cm2", "cm3", "cm4"}));
  page.continueToken.clear();
  std::string token = c->list(kConfigMaps, "default", page)->continueToken;
  ASSERT_TRUE(c->create(kConfigMaps, "default", configMap("later")).isOk());
  f.harness.post("/kubesim/faults", {{"expireHistory", true}});
  page.continueToken = token;
  EXPECT_TRUE(c->list(kConfigMaps, "default", page).status().isGone());
}

// Verifies discovery of built-in kinds, of a kind added by a CRD, and NotFound for others.
TEST(RestClient, ResourceForUsesDiscovery) {
  Fixture f;
  auto c = f.client();
  EXPECT_EQ(*c->resourceFor("v1", "Pod"), (GroupVersionResource{"", "v1", "pods", true}));
  EXPECT_EQ(*c->resourceFor("batch/v1", "Job"),
            (GroupVersionResource{"batch", "v1", "jobs", true}));
  EXPECT_EQ(*c->resourceFor("v1", "Node"), (GroupVersionResource{"", "v1", "nodes", false}));
  EXPECT_TRUE(c->resourceFor("example.com/v1", "Widget").status().isNotFound());
  json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "widgets.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"scope", "Namespaced"},
                {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
                {"versions",
                 {{{"name", "v1"},
                   {"served", true},
                   {"storage", true},
                   {"subresources", {{"status", json::object()}}},
                   {"schema",
                    {{"openAPIV3Schema",
                      {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
  ASSERT_TRUE(c->create(kCrds, "", crd).isOk());
  ASSERT_TRUE(
      Harness::eventually([&] { return c->resourceFor("example.com/v1", "Widget").isOk(); }));
  const GroupVersionResource widgets = *c->resourceFor("example.com/v1", "Widget");
  json w = {{"apiVersion", "example.com/v1"},
            {"kind", "Widget"},
            {"metadata", {{"name", "w"}}},
            {"spec", {{"size", 1}}}};
  common::Result<json> created = c->create(widgets, "default", w);
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  json withStatus = *created;
  withStatus["status"] = {{"phase", "Done"}};
  withStatus["spec"]["size"] = 2;
  common::Result<json> updated = c->updateStatus(widgets, "default", withStatus);
  ASSERT_TRUE(updated.isOk()) << updated.status().toString();
  EXPECT_EQ((*updated)["status"]["phase"], "Done");
  EXPECT_EQ((*updated)["spec"]["size"], 1);
}

// Verifies watch events from a resourceVersion, bookmarks, and Gone for an expired history.
TEST(RestClient, WatchStreamsEventsBookmarksAndGone) {
  Harness::Options options;
  options.bookmarkInterval = 100ms;
  Fixture f(options);
  auto c = f.client();
  const std::string rv = c->list(kConfigMaps, "default", {})->resourceVersion;
  WatchOptions w;
  w.resourceVersion = rv;
  common::Result<std::unique_ptr<WatchStream>> stream = c->watch(kConfigMaps, "default", w);
  ASSERT_TRUE(stream.isOk()) << stream.status().toString();
  ASSERT_TRUE(c->create(kConfigMaps, "default", configMap("watched")).isOk());
  bool added = false, bookmark = false;
  for (int i = 0; i < 20 && !(added && bookmark); ++i) {
    common::Result<std::optional<WatchEvent>> e = (*stream)->next();
    ASSERT_TRUE(e.isOk() && e->has_value()) << e.status().toString();
    if ((*e)->type == WatchEvent::Type::kAdded) {
      added = true;
      EXPECT_EQ((*e)->object["metadata"]["name"], "watched");
    }
    if ((*e)->type == WatchEvent::Type::kBookmark) bookmark = true;
  }
  EXPECT_TRUE(added);
  EXPECT_TRUE(bookmark);
  (*stream)->cancel();
  EXPECT_TRUE((*stream)->next().isOk());

  f.harness.post("/kubesim/faults", {{"expireHistory", true}});
  common::Result<std::unique_ptr<WatchStream>> old = c->watch(kConfigMaps, "default", w);
  ASSERT_TRUE(old.isOk());
  EXPECT_TRUE((*old)->next().status().isGone());
}

// Verifies that a follow of a pod's log delivers every line and ends with the container.
TEST(RestClient, StreamsPodLogs) {
  Fixture f;
  auto c = f.client();
  ASSERT_TRUE(c->create(resources::kPods, "default",
                        kubesim::testing::commandPod(
                            "printer", "for i in 1 2 3; do echo line $i; sleep 0.1; done"))
                  .isOk());
  ASSERT_TRUE(Harness::eventually([&] {
    common::Result<json> pod = c->get(resources::kPods, "default", "printer");
    return pod.isOk() && (*pod)["status"].value("phase", "") != "Pending";
  }));
  std::string text;
  LogOptions options;
  options.follow = true;
  common::Status s = c->streamLogs("default", "printer", options, [&](std::string_view chunk) {
    text += chunk;
    return true;
  });
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(text, "line 1\nline 2\nline 3\n");
}

// Verifies bearer tokens: accepted when right, 401 reported when wrong.
TEST(RestClient, TokenAuthentication) {
  Harness::Options options;
  options.token = "t0ken";
  Fixture f(options);
  RestConfig good;
  good.token = "t0ken";
  EXPECT_TRUE(f.client(good)->list(kConfigMaps, "default", {}).isOk());
  RestConfig bad;
  bad.token = "wrong";
  common::Status denied = f.client(bad)->list(kConfigMaps, "default", {}).status();
  EXPECT_FALSE(denied.isOk());
  EXPECT_NE(denied.message().find("Unauthorized"), std::string::npos) << denied.toString();
}

// Verifies HTTPS with the server's CA and a client certificate instead of a token.
TEST(RestClient, TlsWithClientCertificate) {
  Harness::Options options;
  options.tls = true;
  options.token = "required";
  Fixture f(options);
  common::Result<http::ClientCertificate> cert =
      http::generateClientCertificate(f.harness.certificate(), "operator", {"hetbench"});
  ASSERT_TRUE(cert.isOk());
  RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(f.harness.port());
  config.caPem = f.harness.certificate().caCertPem;
  config.clientCertPem = cert->certPem;
  config.clientKeyPem = cert->keyPem;
  common::Result<ListResult> listed = f.client(config)->list(kConfigMaps, "default", {});
  EXPECT_TRUE(listed.isOk()) << listed.status().toString();

  RestConfig untrusted = config;
  untrusted.caPem = cert->certPem;  // not the CA that signed the server
  EXPECT_TRUE(f.client(untrusted)->list(kConfigMaps, "default", {}).status().isUnavailable());
}

// Verifies the kubeconfig's tls-server-name: a server whose certificate names only
// kubesim.test, reached at 127.0.0.1, is trusted for requests, watches and log streams when
// tls-server-name is kubesim.test, and refused without it or with another name.
TEST(RestClient, TlsServerNameChecksTheCertificateAgainstThatName) {
  Harness::Options options;
  options.tls = true;
  options.token = "required";
  options.tlsDnsNames = {"kubesim.test"};
  options.tlsIpAddresses = {};
  Fixture f(options);
  RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(f.harness.port());
  config.caPem = f.harness.certificate().caCertPem;
  config.token = "required";
  config.tlsServerName = "kubesim.test";
  const std::unique_ptr<KubeClient> client = f.client(config);
  ASSERT_TRUE(client->create(kConfigMaps, "default", configMap("named")).isOk());
  common::Result<ListResult> listed = client->list(kConfigMaps, "default", {});
  ASSERT_TRUE(listed.isOk()) << listed.status().toString();
  WatchOptions watch;
  watch.resourceVersion = listed->resourceVersion;
  watch.timeout = 1s;
  common::Result<std::unique_ptr<WatchStream>> stream =
      client->watch(kConfigMaps, "default", watch);
  EXPECT_TRUE(stream.isOk()) << stream.status().toString();
  // A log stream reaches the server, which has no such pod.
  const auto ignore = [](std::string_view) { return true; };
  EXPECT_TRUE(client->streamLogs("default", "missing", {}, ignore).isNotFound());

  for (const std::string& name : {std::string(), std::string("other.test")}) {
    RestConfig wrong = config;
    wrong.tlsServerName = name;
    const std::unique_ptr<KubeClient> refused = f.client(wrong);
    EXPECT_TRUE(refused->list(kConfigMaps, "default", {}).status().isUnavailable()) << name;
    EXPECT_TRUE(refused->watch(kConfigMaps, "default", watch).status().isUnavailable()) << name;
    EXPECT_TRUE(refused->streamLogs("default", "missing", {}, ignore).isUnavailable()) << name;
  }
}

// Verifies that a client certificate from an exec plugin is renewed: the plugin's first
// certificate expires 4 s after it is made (and says so in expirationTimestamp); once it has,
// the server refuses it, and requests go on only because the client asks the plugin again and
// opens its connections with the second certificate. The server closes idle connections after
// 1 s, so no connection made with the first certificate is reused.
TEST(RestClient, ExecPluginCertificatesAreRenewed) {
  Harness::Options options;
  options.tls = true;
  options.token = "required";
  options.idleTimeout = 1s;
  Fixture f(options);
  const testing_support::TempDir dir("exec_rotation");
  const common::Result<http::ClientCertificate> first =
      http::generateClientCertificate(f.harness.certificate(), "first", {}, 4s);
  const common::Result<http::ClientCertificate> second =
      http::generateClientCertificate(f.harness.certificate(), "second", {});
  ASSERT_TRUE(first.isOk() && second.isOk());
  dir.write("cert-1.pem", first->certPem);
  dir.write("key-1.pem", first->keyPem);
  dir.write("cert-2.pem", second->certPem);
  dir.write("key-2.pem", second->keyPem);
  // Renewed 10 s before it expires, so 3 s from now.
  const std::string expiry = common::formatRfc3339(common::SystemClock().now() + 13s);

  RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(f.harness.port());
  config.caPem = f.harness.certificate().caCertPem;
  config.exec = ExecConfig{"client.authentication.k8s.io/v1",
                           "sh",
                           {std::string(testing_support::kFixtures) + "/fake_exec_plugin.sh"},
                           {{"FAKE_MODE", "rotating"},
                            {"FAKE_COUNT_FILE", dir.file("runs")},
                            {"FAKE_CERT_DIR", dir.path()},
                            {"FAKE_EXPIRY", expiry}},
                           "Never"};
  RestClientOptions clientOptions;
  clientOptions.maxRetries = 1;
  const std::unique_ptr<KubeClient> client = f.client(config, clientOptions);
  common::Result<ListResult> before = client->list(kConfigMaps, "default", {});
  ASSERT_TRUE(before.isOk()) << before.status().toString();

  std::this_thread::sleep_for(5s);  // the first certificate has expired
  common::Result<ListResult> after = client->list(kConfigMaps, "default", {});
  EXPECT_TRUE(after.isOk()) << after.status().toString();
  WatchOptions watch;
  watch.resourceVersion = before->resourceVersion;
  watch.timeout = 1s;
  EXPECT_TRUE(client->watch(kConfigMaps, "default", watch).isOk());
}

// Verifies retries: bursts of 503/429 with Retry-After and of 500 on reads are absorbed.
TEST(RestClient, RetriesTransientFailures) {
  Fixture f;
  auto c = f.client();
  for (int code : {503, 429, 500}) {
    f.harness.post("/kubesim/faults",
                   {{"failRequests", {{"count", 3}, {"code", code}, {"retryAfterSeconds", 0}}}});
    common::Result<ListResult> listed = c->list(kConfigMaps, "default", {});
    EXPECT_TRUE(listed.isOk()) << code << ": " << listed.status().toString();
  }
  f.harness.post("/kubesim/faults", {{"failRequests", {{"count", 1}, {"code", 500}}}});
  EXPECT_TRUE(c->create(kConfigMaps, "default", configMap("once")).status().isUnavailable());
}

}  // namespace
}  // namespace hetbench::kube
