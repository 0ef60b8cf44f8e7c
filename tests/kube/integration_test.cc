// The kube module end to end against kubesim over real HTTP(S): kubeconfig files (CA data,
// client certificates, an exec plugin) loaded into a working client, leader election between
// two replicas, and Events written and aggregated.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hetbench/common/base64.h"
#include "hetbench/kube/config.h"
#include "hetbench/kube/events.h"
#include "hetbench/kube/leader_election.h"
#include "hetbench/kube/rest_client.h"
#include "temp_dir.h"
#include "testing/harness.h"

namespace hetbench::kube {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using testing_support::TempDir;
using namespace std::chrono_literals;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps", true};

std::unique_ptr<KubeClient> clientFor(const RestConfig& config, const common::Clock& clock) {
  RestClientOptions options;
  options.retryBase = 5ms;
  common::Result<std::unique_ptr<KubeClient>> client = makeRestClient(config, options, clock);
  EXPECT_TRUE(client.isOk()) << client.status().toString();
  return client.isOk() ? std::move(client).value() : nullptr;
}

Harness::Options tlsWithToken(const std::string& token) {
  Harness::Options options;
  options.tls = true;
  options.token = token;
  return options;
}

// Verifies a kubeconfig with CA data and an exec plugin: the plugin's token opens a
// token-protected HTTPS server.
TEST(KubeconfigEndToEnd, ExecPluginTokenOverHttps) {
  Harness h(tlsWithToken("token-1"));
  TempDir dir;
  const std::string count = dir.path() + "/runs";
  const std::string path = dir.write(
      "config",
      "apiVersion: v1\nkind: Config\ncurrent-context: sim\nclusters:\n- name: sim\n"
      "  cluster:\n    server: https://127.0.0.1:" +
          std::to_string(h.port()) +
          "\n    certificate-authority-data: " + common::base64Encode(h.certificate().caCertPem) +
          "\nusers:\n- name: dev\n  user:\n    exec:\n"
          "      apiVersion: client.authentication.k8s.io/v1\n"
          "      interactiveMode: Never\n      command: " +
          std::string(testing_support::kFixtures) +
          "/fake_exec_plugin.sh\n"
          "      env:\n      - {name: FAKE_COUNT_FILE, value: " +
          count +
          "}\n"
          "contexts:\n- name: sim\n  context: {cluster: sim, user: dev, namespace: lab}\n");
  common::Result<RestConfig> config = loadKubeconfig(KubeconfigSource{path, "", "", ""});
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  EXPECT_EQ(config->namespace_, "lab");
  common::SystemClock clock;
  std::unique_ptr<KubeClient> client = clientFor(*config, clock);
  ASSERT_TRUE(client);
  common::Result<ListResult> listed = client->list(kConfigMaps, "default", {});
  EXPECT_TRUE(listed.isOk()) << listed.status().toString();
}

// Verifies a kubeconfig with a client certificate and key as data, with no token at all.
TEST(KubeconfigEndToEnd, ClientCertificateOverHttps) {
  Harness h(tlsWithToken("unused-token"));
  common::Result<http::ClientCertificate> cert =
      http::generateClientCertificate(h.certificate(), "operator", {"hetbench"});
  ASSERT_TRUE(cert.isOk());
  TempDir dir;
  const std::string path = dir.write(
      "config",
      "apiVersion: v1\nkind: Config\ncurrent-context: sim\nclusters:\n- name: sim\n"
      "  cluster:\n    server: https://127.0.0.1:" +
          std::to_string(h.port()) +
          "\n    certificate-authority-data: " + common::base64Encode(h.certificate().caCertPem) +
          "\nusers:\n- name: op\n  user:\n    client-certificate-data: " +
          common::base64Encode(cert->certPem) +
          "\n    client-key-data: " + common::base64Encode(cert->keyPem) +
          "\ncontexts:\n- name: sim\n  context: {cluster: sim, user: op}\n");
  common::Result<RestConfig> config = loadKubeconfig(KubeconfigSource{path, "", "", ""});
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  common::SystemClock clock;
  std::unique_ptr<KubeClient> client = clientFor(*config, clock);
  ASSERT_TRUE(client);
  EXPECT_TRUE(
      client
          ->create(
              kConfigMaps, "default",
              {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "from-cert"}}}})
          .isOk());
}

struct Replica {
  Replica(Harness& h, const common::Clock& clock, const std::string& identity) {
    RestConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(h.port());
    client = clientFor(config, clock);
    LeaderElectionConfig election;
    election.leaseNamespace = "default";
    election.leaseName = "hetbench-operator";
    election.identity = identity;
    election.leaseDuration = 1s;
    election.renewDeadline = 600ms;
    election.retryPeriod = 100ms;
    election.releaseOnCancel = false;
    elector = std::make_unique<LeaderElector>(
        *client, clock, election,
        LeaderCallbacks{[this] { ++started; }, [this] { ++stopped; }, nullptr});
    thread = std::thread([this] { elector->run(); });
  }
  ~Replica() { halt(); }
  void halt() {
    if (thread.joinable()) {
      elector->stop();
      thread.join();
    }
  }

  std::unique_ptr<KubeClient> client;
  std::unique_ptr<LeaderElector> elector;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::thread thread;
};

// Verifies two replicas on one Lease over HTTP: exactly one leads; when it stops renewing the
// other takes over within the lease duration; no replica leads while the API is unreachable.
TEST(LeaderElectionEndToEnd, OneLeaderAndTakeOver) {
  Harness h;
  common::SystemClock clock;
  auto a = std::make_unique<Replica>(h, clock, "replica-a");
  auto b = std::make_unique<Replica>(h, clock, "replica-b");
  ASSERT_TRUE(
      Harness::eventually([&] { return a->elector->isLeader() != b->elector->isLeader(); }, 10s));
  for (int i = 0; i < 100; ++i) {
    ASSERT_FALSE(a->elector->isLeader() && b->elector->isLeader()) << "two leaders";
    std::this_thread::sleep_for(10ms);
  }
  Replica* leader = a->elector->isLeader() ? a.get() : b.get();
  Replica* follower = leader == a.get() ? b.get() : a.get();
  const auto stoppedAt = std::chrono::steady_clock::now();
  leader->halt();  // stops renewing without releasing the lease
  ASSERT_TRUE(Harness::eventually([&] { return follower->elector->isLeader(); }, 5s));
  const auto takeover = std::chrono::steady_clock::now() - stoppedAt;
  EXPECT_GE(takeover, 900ms) << "took a lease that had not expired";

  // The API becomes unreachable: the leader gives up within its renew deadline.
  h.post("/kubesim/faults", {{"failRequests", {{"count", 100000}, {"code", 503}}}});
  const auto cutAt = std::chrono::steady_clock::now();
  ASSERT_TRUE(Harness::eventually([&] { return !follower->elector->isLeader(); }, 5s));
  EXPECT_LT(std::chrono::steady_clock::now() - cutAt, 1s);
  h.post("/kubesim/faults", {{"failRequests", {{"count", 0}, {"code", 503}}}});
}

// Verifies Events through the API: repeats aggregate into one Event with a count.
TEST(EventsEndToEnd, RecordedAndAggregated) {
  Harness h;
  common::SystemClock clock;
  common::SeededRandom random(3);
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(h.port());
  std::unique_ptr<KubeClient> client = clientFor(config, clock);
  const json object = *client->create(
      kConfigMaps, "default",
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "subject"}}}});
  KubeEventRecorder recorder(*client, clock, random, "hetbench-operator");
  for (int i = 0; i < 5; ++i) {
    recorder.event(object, EventType::kWarning, "Regressed", "throughput 10% below reference");
  }
  recorder.event(object, EventType::kNormal, "TrialStarted", "trial 0 started");
  recorder.flush();
  const common::Result<ListResult> events = client->list(resources::kEvents, "default", {});
  ASSERT_TRUE(events.isOk());
  ASSERT_EQ(events->items.size(), 2u);
  for (const json& e : events->items) {
    EXPECT_EQ(e["involvedObject"]["name"], "subject");
    EXPECT_EQ(e["involvedObject"]["uid"], object["metadata"]["uid"]);
    EXPECT_EQ(e.value("count", 0), e["reason"] == "Regressed" ? 5 : 1);
    EXPECT_EQ(e["source"]["component"], "hetbench-operator");
  }
}

}  // namespace
}  // namespace hetbench::kube
