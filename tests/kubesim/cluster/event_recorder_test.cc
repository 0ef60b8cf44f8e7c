#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/controller.h"
#include "cluster/event_ttl.h"
#include "cluster/events.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/common/time.h"
#include "server/api.h"
#include "server/strategy.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// An API server with a "default" namespace, a pod in it and a FakeClock, without controllers.
class EventsTest : public ::testing::Test {
 protected:
  EventsTest() : random_(7) {
    registerBuiltinResources(registry_);
    api_ = std::make_unique<Api>(store_, registry_, clock_, random_);
    const json ns = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}};
    EXPECT_TRUE(api_->create(builtinType(*api_, "", "namespaces"), "", ns, {}).isOk());
    const json pod = {{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                      {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
    pod_ = api_->create(builtinType(*api_, "", "pods"), "default", pod, {})->object;
  }

  std::vector<json> events() { return store_.list("/events", "default").first; }

  common::FakeClock clock_;
  common::SeededRandom random_;
  Store store_;
  ResourceRegistry registry_;
  std::unique_ptr<Api> api_;
  json pod_;
  const EventSource kubelet_{EventSource::Recorder::kCoreV1, "kubelet", "node-1"};
  const EventSource scheduler_{EventSource::Recorder::kEventsV1, "default-scheduler",
                               "default-scheduler-kubesim"};
};

// Verifies a core/v1 Event as client-go's tools/record writes it: name, reference, source,
// reporting fields, timestamps and count.
TEST_F(EventsTest, CoreEventHasTheRecordersFields) {
  EventRecorder recorder(*api_);
  recorder.record(kubelet_, objectReference(pod_, "spec.containers{main}"), events::kNormal,
                  events::kPulling, "Pulling image \"busybox\"");
  const std::vector<json> stored = events();
  ASSERT_EQ(stored.size(), 1u);
  const json& e = stored[0];
  // The FakeClock starts at 1700000000 s: 0x17979cfe362a0000 ns.
  EXPECT_EQ(e["metadata"]["name"], "p.17979cfe362a0000");
  EXPECT_EQ(e["involvedObject"], json({{"kind", "Pod"},
                                       {"namespace", "default"},
                                       {"name", "p"},
                                       {"uid", pod_["metadata"]["uid"]},
                                       {"apiVersion", "v1"},
                                       {"resourceVersion", pod_["metadata"]["resourceVersion"]},
                                       {"fieldPath", "spec.containers{main}"}}));
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["reason"], "Pulling");
  EXPECT_EQ(e["message"], "Pulling image \"busybox\"");
  EXPECT_EQ(e["source"], json({{"component", "kubelet"}, {"host", "node-1"}}));
  EXPECT_EQ(e["reportingComponent"], "kubelet");
  EXPECT_EQ(e["reportingInstance"], "node-1");
  EXPECT_EQ(e["firstTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(e["lastTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(e["count"], 1);
  EXPECT_FALSE(e.contains("eventTime"));
  EXPECT_FALSE(e.contains("series"));
}

// Verifies that a repeat updates the stored Event's count and lastTimestamp, and that a
// different message, field path or type makes an Event of its own with a name of its own.
TEST_F(EventsTest, RepeatsAreAggregated) {
  EventRecorder recorder(*api_);
  const json ref = objectReference(pod_, "spec.containers{main}");
  recorder.record(kubelet_, ref, events::kNormal, events::kStarted, "Started container main");
  clock_.advance(30s);
  recorder.record(kubelet_, ref, events::kNormal, events::kStarted, "Started container main");
  recorder.record(kubelet_, ref, events::kNormal, events::kStarted, "Started container main");
  std::vector<json> stored = events();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0]["count"], 3);
  EXPECT_EQ(stored[0]["firstTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(stored[0]["lastTimestamp"], "2023-11-14T22:13:50Z");

  recorder.record(kubelet_, ref, events::kNormal, events::kStarted, "Started container other");
  recorder.record(kubelet_, objectReference(pod_), events::kNormal, events::kStarted,
                  "Started container main");
  recorder.record(kubelet_, ref, events::kWarning, events::kStarted, "Started container main");
  stored = events();
  ASSERT_EQ(stored.size(), 4u);
  std::set<std::string> names;
  for (const json& e : stored) names.insert(e["metadata"]["name"]);
  EXPECT_EQ(names.size(), 4u);
}

// Verifies the events.k8s.io/v1 form of the scheduler's Events: eventTime, action, reporting
// fields and no source or timestamps of the old API; a repeat becomes a series.
TEST_F(EventsTest, SchedulerEventsAreSeries) {
  EventRecorder recorder(*api_);
  recorder.record(scheduler_, objectReference(pod_), events::kWarning, events::kFailedScheduling,
                  "0/1 nodes are available: 1 Too many pods.", events::kActionScheduling);
  json e = events().at(0);
  EXPECT_EQ(e["eventTime"], "2023-11-14T22:13:20.000000Z");
  EXPECT_EQ(e["action"], "Scheduling");
  EXPECT_EQ(e["reportingComponent"], "default-scheduler");
  EXPECT_EQ(e["reportingInstance"], "default-scheduler-kubesim");
  EXPECT_FALSE(e.contains("source"));
  EXPECT_FALSE(e.contains("count"));
  EXPECT_FALSE(e.contains("firstTimestamp"));
  EXPECT_FALSE(e.contains("series"));

  clock_.advance(5s);
  recorder.record(scheduler_, objectReference(pod_), events::kWarning, events::kFailedScheduling,
                  "0/1 nodes are available: 1 Too many pods.", events::kActionScheduling);
  ASSERT_EQ(events().size(), 1u);
  e = events().at(0);
  EXPECT_EQ(e["series"], json({{"count", 2}, {"lastObservedTime", "2023-11-14T22:13:25.000000Z"}}));
  EXPECT_EQ(e["eventTime"], "2023-11-14T22:13:20.000000Z");
}

// Verifies client-go's spam filter: 25 writes about one object at once, then one per five
// minutes, and that the next write carries every occurrence counted meanwhile.
TEST_F(EventsTest, SpamFilterThrottlesWritesButKeepsCounting) {
  EventRecorder recorder(*api_);
  const json ref = objectReference(pod_, "spec.containers{main}");
  for (int i = 0; i < 30; ++i) {
    recorder.record(kubelet_, ref, events::kWarning, events::kBackOff,
                    "Back-off restarting failed container main");
  }
  EXPECT_EQ(events().at(0)["count"], 25);
  recorder.record(kubelet_, ref, events::kNormal, events::kKilling, "Stopping container main");
  EXPECT_EQ(events().size(), 1u) << "a new reason is throttled too: the filter is per object";

  clock_.advance(5min);
  recorder.record(kubelet_, ref, events::kWarning, events::kBackOff,
                  "Back-off restarting failed container main");
  const std::vector<json> stored = events();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0]["count"], 31);
  EXPECT_EQ(stored[0]["lastTimestamp"], "2023-11-14T22:18:20Z");
}

// Verifies that an Event deleted meanwhile (expired) is written again under its name with its
// count, as client-go does when its patch finds nothing.
TEST_F(EventsTest, RepeatOfADeletedEventRecreatesIt) {
  EventRecorder recorder(*api_);
  const json ref = objectReference(pod_);
  recorder.record(kubelet_, ref, events::kNormal, events::kKilling, "Stopping container main");
  const std::string name = events().at(0)["metadata"]["name"];
  ASSERT_TRUE(api_->remove(builtinType(*api_, "", "events"), "default", name, {}).isOk());
  recorder.record(kubelet_, ref, events::kNormal, events::kKilling, "Stopping container main");
  const std::vector<json> stored = events();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0]["metadata"]["name"], name);
  EXPECT_EQ(stored[0]["count"], 2);
}

// Verifies that a failed write (the namespace is gone) is neither thrown nor returned.
TEST_F(EventsTest, UnwritableEventIsDropped) {
  EventRecorder recorder(*api_);
  json ref = objectReference(pod_);
  ref["namespace"] = "missing";
  recorder.record(kubelet_, ref, events::kNormal, events::kKilling, "Stopping container main");
  EXPECT_TRUE(store_.list("/events", "").first.empty());
}

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

// Verifies --event-ttl: an Event goes `ttl` after it was last recorded on the cluster's clock,
// a repeat recorded meanwhile keeps it, and Events that clients write expire the same way.
TEST_F(EventsTest, EventsExpireAfterTheirTtl) {
  EventRecorder recorder(*api_);
  EventTtl ttl(*api_, 1h, 20ms);
  ttl.start();
  const json ref = objectReference(pod_);
  recorder.record(kubelet_, ref, events::kNormal, events::kPulled, "old");
  recorder.record(kubelet_, ref, events::kNormal, events::kCreated, "renewed");
  const json written = {{"apiVersion", "v1"},
                        {"kind", "Event"},
                        {"metadata", {{"name", "by-client"}, {"namespace", "default"}}},
                        {"involvedObject", ref},
                        {"reason", "Custom"},
                        {"message", "written by a client without timestamps"}};
  ASSERT_TRUE(api_->create(builtinType(*api_, "", "events"), "default", written, {}).isOk());
  ASSERT_EQ(events().size(), 3u);
  clock_.advance(50min);
  // Whether or not the expiry has seen this repeat when the first hour passes, the version it
  // would delete is gone, so the renewed Event stays.
  recorder.record(kubelet_, ref, events::kNormal, events::kCreated, "renewed");
  clock_.advance(11min);
  ASSERT_TRUE(eventually([&] { return events().size() == 1; }));
  EXPECT_EQ(events().at(0)["message"], "renewed");
  clock_.advance(50min);
  EXPECT_TRUE(eventually([&] { return events().empty(); }));
  ttl.stop();
}

// Verifies which time an Event counts from: the latest of its timestamps.
TEST(LastRecorded, LatestOfTheEventsTimes) {
  const json event = {
      {"metadata", {{"creationTimestamp", "2026-01-01T00:00:00Z"}}},
      {"lastTimestamp", "2026-01-01T00:05:00Z"},
      {"eventTime", "2026-01-01T00:01:00.000000Z"},
      {"series", {{"count", 3}, {"lastObservedTime", "2026-01-01T00:09:00.500000Z"}}}};
  EXPECT_EQ(common::formatRfc3339(*lastRecorded(event), common::TimePrecision::kMicros),
            "2026-01-01T00:09:00.500000Z");
  EXPECT_EQ(common::formatRfc3339(*lastRecorded({{"metadata", json::object()},
                                                 {"lastTimestamp", nullptr},
                                                 {"eventTime", "2026-01-01T00:01:00Z"}})),
            "2026-01-01T00:01:00Z");
  EXPECT_FALSE(lastRecorded({{"metadata", json::object()}}).has_value());
}

}  // namespace
}  // namespace hetbench::kubesim
