#include "hetbench/kube/informer.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "hetbench/kube/rest_client.h"
#include "support/kubesim_client.h"
#include "testing/harness.h"

namespace hetbench::kube {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using namespace std::chrono_literals;

const GroupVersionResource kConfigMaps{"", "v1", "configmaps", true};

json configMap(const std::string& name, const std::string& value,
               const json& labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"v", value}}}};
}

// What the handlers saw, applied in order: the informer's view from the outside.
struct Recorder {
  std::mutex mu;
  std::map<std::string, json> state;
  std::set<std::pair<std::string, std::string>> delivered;  // (key, resourceVersion)
  int duplicates = 0;
  int adds = 0, updates = 0, deletes = 0;

  void note(const json& object) {
    const auto id =
        std::make_pair(objectKey(object), object["metadata"].value("resourceVersion", ""));
    if (!delivered.insert(id).second) ++duplicates;
  }
  InformerHandlers handlers() {
    return {[this](const json& o) {
              std::lock_guard lock(mu);
              ++adds;
              note(o);
              state[objectKey(o)] = o;
            },
            [this](const json&, const json& o) {
              std::lock_guard lock(mu);
              ++updates;
              note(o);
              state[objectKey(o)] = o;
            },
            [this](const json& o) {
              std::lock_guard lock(mu);
              ++deletes;
              state.erase(objectKey(o));
            }};
  }
  std::map<std::string, std::string> values() {
    std::lock_guard lock(mu);
    std::map<std::string, std::string> out;
    for (const auto& [k, o] : state) out[k] = o["data"].value("v", "");
    return out;
  }
};

struct Fixture {
  Fixture() {
    RestClientOptions options = testing_support::testClientOptions();
    options.qps = 0;
    client = testing_support::kubesimClient(harness, clock, options);
  }
  InformerOptions fast() {
    InformerOptions o;
    o.ns = "default";
    o.backoffInitial = 5ms;
    o.backoffMax = 100ms;
    o.listPageSize = 50;
    return o;
  }
  std::map<std::string, std::string> serverValues() {
    std::map<std::string, std::string> out;
    const common::Result<ListResult> listed = client->list(kConfigMaps, "default", {});
    if (!listed.isOk()) return out;
    for (const json& o : listed->items) out[objectKey(o)] = o["data"].value("v", "");
    return out;
  }

  common::SystemClock clock;
  common::SeededRandom random{1};
  Harness harness;
  std::unique_ptr<KubeClient> client;
};

// Verifies the initial sync (paged) and that later changes reach handlers once each, in order.
TEST(Informer, SyncsAndFollowsChanges) {
  Fixture f;
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(
        f.client->create(kConfigMaps, "default", configMap("cm" + std::to_string(i), "0")).isOk());
  }
  Informer informer(*f.client, kConfigMaps, f.fast(), f.clock, f.random);
  Recorder r;
  informer.addHandlers(r.handlers());
  informer.addIndex("team", [](const json& o) {
    const json labels = o["metadata"].value("labels", json::object());
    return labels.contains("team") ? std::vector<std::string>{labels["team"]}
                                   : std::vector<std::string>{};
  });
  informer.start();
  ASSERT_TRUE(informer.waitForSync(10s));
  EXPECT_EQ(informer.list().size(), 120u);
  EXPECT_EQ(r.adds, 120);

  ASSERT_TRUE(
      f.client->create(kConfigMaps, "default", configMap("x", "1", {{"team", "red"}})).isOk());
  json x = *f.client->get(kConfigMaps, "default", "x");
  x["data"]["v"] = "2";
  ASSERT_TRUE(f.client->update(kConfigMaps, "default", x).isOk());
  ASSERT_TRUE(f.client->remove(kConfigMaps, "default", "cm0", {}).isOk());
  ASSERT_TRUE(Harness::eventually([&] { return r.values() == f.serverValues(); }));
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_EQ(r.deletes, 1);
  EXPECT_EQ(informer.byIndex("team", "red").size(), 1u);
  EXPECT_EQ(informer.get("default", "x").value()["data"]["v"], "2");
  informer.stop();
}

// Verifies that under closed watches, expired history, 5xx/429 bursts and latency, a few
// thousand changes converge to the server's state with no change delivered twice.
TEST(Informer, ConvergesUnderFaults) {
  Fixture f;
  Informer informer(*f.client, kConfigMaps, f.fast(), f.clock, f.random);
  Recorder r;
  informer.addHandlers(r.handlers());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(10s));

  const json faults[] = {
      {{"closeWatches", true}},
      {{"expireHistory", true}},
      {{"failRequests", {{"count", 5}, {"code", 500}}}},
      {{"failRequests", {{"count", 5}, {"code", 503}, {"retryAfterSeconds", 0}}}},
      {{"failRequests", {{"count", 5}, {"code", 429}, {"retryAfterSeconds", 0}}}},
      {{"latencyMs", 20}},
      {{"latencyMs", 0}},
  };
  const kubesim::ResourceType cm = *f.harness.api().typeOf("", "configmaps");
  common::SeededRandom pick(7);
  int changes = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string name = "o" + std::to_string(pick.next() % 200);
    const std::string value = std::to_string(round);
    // Writes go straight to the API core so that injected HTTP faults hit only the informer.
    kubesim::ApiResult<json> current = f.harness.api().get(cm, "default", name);
    if (!current.isOk()) {
      changes += f.harness.api().create(cm, "default", configMap(name, value), {}).isOk();
    } else if (pick.next() % 4 == 0) {
      changes += f.harness.api().remove(cm, "default", name, {}).isOk();
    } else {
      json next = *current;
      next["data"]["v"] = value;
      changes += f.harness.api().update(cm, "default", name, next, "", {}).isOk();
    }
    if (round % 150 == 0) {
      f.harness.post("/kubesim/faults", faults[(round / 150) % std::size(faults)]);
    }
  }
  f.harness.post("/kubesim/faults", {{"latencyMs", 0}});
  EXPECT_GT(changes, 2900);
  ASSERT_TRUE(Harness::eventually([&] { return r.values() == f.serverValues(); }, 30s))
      << "handlers saw " << r.values().size() << " objects, the server has "
      << f.serverValues().size();
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_GT(informer.watchRestarts(), 3u);
  std::map<std::string, std::string> cached;
  for (const json& o : informer.list()) cached[objectKey(o)] = o["data"].value("v", "");
  EXPECT_EQ(cached, f.serverValues());
  informer.stop();
}

// Verifies that a label-selected informer sees objects enter and leave its selection.
TEST(Informer, LabelSelectorTransitions) {
  Fixture f;
  InformerOptions options = f.fast();
  options.labelSelector = "hetbench.io/run=r1";
  Informer informer(*f.client, kConfigMaps, options, f.clock, f.random);
  Recorder r;
  informer.addHandlers(r.handlers());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(10s));
  ASSERT_TRUE(
      f.client->create(kConfigMaps, "default", configMap("a", "1", {{"hetbench.io/run", "r1"}}))
          .isOk());
  ASSERT_TRUE(Harness::eventually([&] { return r.adds == 1; }));
  ASSERT_TRUE(f.client
                  ->patch(kConfigMaps, "default", "a", PatchType::kMerge,
                          {{"metadata", {{"labels", {{"hetbench.io/run", "r2"}}}}}})
                  .isOk());
  ASSERT_TRUE(Harness::eventually([&] { return r.deletes == 1; }));
  EXPECT_TRUE(informer.list().empty());
  informer.stop();
}

}  // namespace
}  // namespace hetbench::kube
