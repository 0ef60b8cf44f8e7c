#include "hetbench/kube/events.h"

#include <gtest/gtest.h>

#include <future>

#include "fake_client.h"

namespace hetbench::kube {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::FakeKubeClient;

json pod(const std::string& name) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", "bench"}, {"uid", "uid-" + name}, {"resourceVersion", "7"}}}};
}

/// A recorder on a FakeClock at 2023-11-14T22:13:20Z with a fixed seed.
struct Fixture {
  explicit Fixture(std::chrono::nanoseconds window = 10min, std::size_t maxQueued = 1000)
      : recorder(client, clock, random, "hetbench-operator", window, maxQueued) {}

  FakeKubeClient client;
  common::FakeClock clock{common::WallTime(1'700'000'000s)};
  common::SeededRandom random{1};
  KubeEventRecorder recorder;
};

// Verifies that one event creates a core/v1 Event with Kubernetes' name and fields.
TEST(KubeEventRecorder, CreatesEvent) {
  Fixture f;
  f.recorder.event(pod("trial-1"), EventType::kWarning, "BackOff", "restarting container");
  f.recorder.flush();
  const std::vector<json> events = f.client.objects(resources::kEvents);
  ASSERT_EQ(events.size(), 1u);
  const json& e = events[0];
  EXPECT_EQ(e["metadata"]["name"], "trial-1.17979cfe362a0000");
  EXPECT_EQ(e["metadata"]["namespace"], "bench");
  EXPECT_EQ(e["involvedObject"], (json{{"kind", "Pod"},
                                       {"apiVersion", "v1"},
                                       {"name", "trial-1"},
                                       {"namespace", "bench"},
                                       {"uid", "uid-trial-1"},
                                       {"resourceVersion", "7"}}));
  EXPECT_EQ(e["reason"], "BackOff");
  EXPECT_EQ(e["message"], "restarting container");
  EXPECT_EQ(e["type"], "Warning");
  EXPECT_EQ(e["source"]["component"], "hetbench-operator");
  EXPECT_EQ(e["reportingComponent"], "hetbench-operator");
  EXPECT_EQ(e["firstTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(e["lastTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(e["count"], 1);
}

// Verifies that events about cluster-scoped objects are written to "default".
TEST(KubeEventRecorder, ClusterScopedObjectGoesToDefault) {
  Fixture f;
  f.recorder.event({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}},
                   EventType::kNormal, "Ready", "node ready");
  f.recorder.flush();
  const std::vector<json> events = f.client.objects(resources::kEvents);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["metadata"]["namespace"], "default");
  EXPECT_EQ(events[0]["involvedObject"]["namespace"], "");
  EXPECT_EQ(events[0]["type"], "Normal");
}

// Verifies that ten repeats within the window make one Event with count 10, updated by patches.
TEST(KubeEventRecorder, AggregatesRepeats) {
  Fixture f;
  for (int i = 0; i < 10; ++i) {
    f.recorder.event(pod("trial-1"), EventType::kNormal, "Started", "started");
    f.clock.advance(1s);
  }
  f.recorder.flush();
  const std::vector<json> events = f.client.objects(resources::kEvents);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["count"], 10);
  EXPECT_EQ(events[0]["firstTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(events[0]["lastTimestamp"], "2023-11-14T22:13:29Z");
  EXPECT_EQ(f.client.callCount("create"), 1);
  EXPECT_EQ(f.client.callCount("patch"), 9);
}

// Verifies that a repeat after the window, or with another message, creates a new Event.
TEST(KubeEventRecorder, NewEventAfterWindowOrChange) {
  Fixture f(10min);
  f.recorder.event(pod("trial-1"), EventType::kNormal, "Started", "started");
  f.recorder.event(pod("trial-1"), EventType::kNormal, "Started", "started again");
  f.clock.advance(10min);
  f.recorder.event(pod("trial-1"), EventType::kNormal, "Started", "started");
  f.recorder.flush();
  const std::vector<json> events = f.client.objects(resources::kEvents);
  ASSERT_EQ(events.size(), 3u);
  for (const json& e : events) EXPECT_EQ(e["count"], 1);
}

// Verifies that event() does not block while the writer is stuck and counts the overflow.
TEST(KubeEventRecorder, OverflowIsCounted) {
  Fixture f(10min, 3);
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::once_flag once;
  f.client.setHook([&](const std::string& verb) {
    if (verb != "create") return;
    std::call_once(once, [&] {
      entered.set_value();
      released.wait();
    });
  });
  f.recorder.event(pod("p0"), EventType::kNormal, "R", "m");
  entered.get_future().wait();
  for (int i = 1; i <= 8; ++i)
    f.recorder.event(pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
  EXPECT_EQ(f.recorder.dropped(), 5u);
  release.set_value();
  f.recorder.flush();
  EXPECT_EQ(f.client.objects(resources::kEvents).size(), 4u);
}

// Verifies that a failing client neither blocks nor retries forever, and later events succeed.
TEST(KubeEventRecorder, FailingClientDropsEvents) {
  Fixture f;
  f.client.failNext("create", common::unavailableError("boom"), -1);
  for (int i = 0; i < 20; ++i) {
    f.recorder.event(pod("p" + std::to_string(i)), EventType::kWarning, "R", "m");
  }
  f.recorder.flush();
  EXPECT_EQ(f.client.callCount("create"), 20);
  EXPECT_TRUE(f.client.objects(resources::kEvents).empty());
  EXPECT_EQ(f.recorder.dropped(), 0u);
  f.client.clearFailures();
  f.recorder.event(pod("p0"), EventType::kWarning, "R", "m");
  f.recorder.flush();
  EXPECT_EQ(f.client.objects(resources::kEvents).size(), 1u);
}

// Verifies that a repeat whose Event was deleted creates a new one instead of failing.
TEST(KubeEventRecorder, RepeatOfDeletedEventRecreates) {
  Fixture f;
  f.recorder.event(pod("p"), EventType::kNormal, "R", "m");
  f.recorder.flush();
  ASSERT_TRUE(
      f.client.remove(resources::kEvents, "bench", "p.17979cfe362a0000", DeleteOptions{}).isOk());
  f.clock.advance(1s);
  f.recorder.event(pod("p"), EventType::kNormal, "R", "m");
  f.recorder.flush();
  const std::vector<json> events = f.client.objects(resources::kEvents);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["count"], 1);
}

// Verifies that the destructor writes what is still queued.
TEST(KubeEventRecorder, DestructorDrains) {
  FakeKubeClient client;
  common::FakeClock clock;
  common::SeededRandom random(1);
  {
    KubeEventRecorder recorder(client, clock, random, "c");
    for (int i = 0; i < 5; ++i) {
      recorder.event(pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
    }
  }
  EXPECT_EQ(client.objects(resources::kEvents).size(), 5u);
}

}  // namespace
}  // namespace hetbench::kube
