#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "hetbench/common/clock.h"
#include "testing/harness.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using testing::commandPod;
using testing::Harness;

// A whole simulated cluster in process, on a FakeClock, driven through its Api.
class ClusterEventsTest : public ::testing::Test {
 protected:
  ClusterEventsTest() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kubesim-events-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    workDir_ = pattern;
  }
  ~ClusterEventsTest() override {
    cluster_.reset();
    std::error_code ec;
    std::filesystem::remove_all(workDir_, ec);
  }

  void start(ClusterConfig config = defaultClusterConfig()) {
    ClusterOptions options;
    options.config = std::move(config);
    options.workDir = workDir_;
    options.restartBackoff = 100ms;
    options.jobBackoff = 100ms;
    options.clock = &clock_;
    cluster_ = std::make_unique<Cluster>(std::move(options));
    ASSERT_TRUE(cluster_->start().isOk());
  }

  json create(const std::string& resource, json object) {
    const std::string group = resource == "jobs" ? "batch" : "";
    ApiResult<WriteResult> created =
        cluster_->api().create(builtinType(cluster_->api(), group, resource), "default",
                               std::move(object), WriteOptions{});
    EXPECT_TRUE(created.isOk()) << created.error().message;
    return created.isOk() ? created->object : json();
  }

  // The Events about one object, in the order they were first written.
  std::vector<json> eventsAbout(const std::string& name) {
    std::vector<json> found;
    for (json& e : cluster_->api().store().list("/events", "default").first) {
      if (e["involvedObject"].value("name", "") == name) found.push_back(std::move(e));
    }
    std::sort(found.begin(), found.end(), [](const json& a, const json& b) {
      return a["metadata"]["name"].get<std::string>() < b["metadata"]["name"].get<std::string>();
    });
    return found;
  }

  std::vector<std::string> reasonsAbout(const std::string& name) {
    std::vector<std::string> reasons;
    for (const json& e : eventsAbout(name)) reasons.push_back(e["reason"]);
    return reasons;
  }

  // The Event about `name` with `reason` once one exists (null otherwise).
  json waitEvent(const std::string& name, const std::string& reason,
                 const std::function<bool(const json&)>& test = nullptr) {
    json found;
    Harness::eventually([&] {
      for (const json& e : eventsAbout(name)) {
        if (e["reason"] == reason && (!test || test(e))) {
          found = e;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  common::FakeClock clock_;
  std::string workDir_;
  std::unique_ptr<Cluster> cluster_;
};

// Verifies the Events of a pod that schedules and runs, in order, with the scheduler's and the
// kubelet's sources, references and messages.
TEST_F(ClusterEventsTest, RunningPodIsScheduledPulledCreatedAndStarted) {
  start();
  const json pod = create("pods", commandPod("p", "true"));
  ASSERT_FALSE(waitEvent("p", "Started").is_null());
  EXPECT_EQ(reasonsAbout("p"),
            std::vector<std::string>({"Scheduled", "Pulling", "Pulled", "Created", "Started"}));
  const std::vector<json> events = eventsAbout("p");
  const json& scheduled = events[0];
  EXPECT_EQ(scheduled["type"], "Normal");
  EXPECT_EQ(scheduled["message"], "Successfully assigned default/p to a100-1");
  EXPECT_EQ(scheduled["reportingComponent"], "default-scheduler");
  EXPECT_EQ(scheduled["action"], "Binding");
  EXPECT_EQ(scheduled["involvedObject"]["uid"], pod["metadata"]["uid"]);
  EXPECT_EQ(scheduled["involvedObject"]["kind"], "Pod");
  EXPECT_FALSE(scheduled["involvedObject"].contains("fieldPath"));
  EXPECT_EQ(events[1]["message"], "Pulling image \"busybox\"");
  EXPECT_EQ(events[2]["message"],
            "Successfully pulled image \"busybox\" in 0s (0s including waiting). Image size: 0 "
            "bytes.");
  EXPECT_EQ(events[3]["message"], "Created container: main");
  EXPECT_EQ(events[4]["message"], "Started container main");
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_EQ(events[i]["source"], json({{"component", "kubelet"}, {"host", "a100-1"}}));
    EXPECT_EQ(events[i]["reportingInstance"], "a100-1");
    EXPECT_EQ(events[i]["involvedObject"]["fieldPath"], "spec.containers{main}");
    EXPECT_EQ(events[i]["type"], "Normal");
    EXPECT_EQ(events[i]["count"], 1);
  }
}

// Verifies that an IfNotPresent image is pulled once per node and then found there.
TEST_F(ClusterEventsTest, PresentImageIsNotPulledAgain) {
  start();
  for (const char* name : {"first", "second"}) {
    json pod = commandPod(name, "true");
    pod["spec"]["containers"][0]["image"] = "busybox:1.36";
    pod["spec"]["nodeName"] = "cpu-1";
    create("pods", pod);
    ASSERT_FALSE(waitEvent(name, "Started").is_null()) << name;
  }
  EXPECT_EQ(reasonsAbout("first"),
            std::vector<std::string>({"Pulling", "Pulled", "Created", "Started"}));
  const std::vector<json> second = eventsAbout("second");
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0]["message"], "Container image \"busybox:1.36\" already present on machine");
}

// Verifies FailedScheduling with the scheduler's message, repeated as a series.
TEST_F(ClusterEventsTest, UnschedulablePodGetsFailedScheduling) {
  start();
  json pod = commandPod("big", "true");
  pod["spec"]["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", "64"}}}};
  create("pods", pod);
  const json failed = waitEvent("big", "FailedScheduling");
  ASSERT_FALSE(failed.is_null());
  EXPECT_EQ(failed["type"], "Warning");
  EXPECT_EQ(failed["action"], "Scheduling");
  EXPECT_EQ(failed["message"],
            "0/7 nodes are available: 7 Insufficient nvidia.com/gpu. preemption: 0/7 nodes are "
            "available: 7 No preemption victims found for incoming pod.");
  EXPECT_EQ(reasonsAbout("big"), std::vector<std::string>({"FailedScheduling"}));
}

// Verifies BackOff for a crash-looping container, and that its restarts repeat (aggregate) the
// Events of starting it rather than adding new ones.
TEST_F(ClusterEventsTest, CrashLoopGetsBackOff) {
  start();
  const json pod = create("pods", commandPod("crash", "exit 1", "Always"));
  const json backOff = waitEvent("crash", "BackOff", [](const json& e) { return e["count"] >= 2; });
  ASSERT_FALSE(backOff.is_null());
  EXPECT_EQ(backOff["type"], "Warning");
  EXPECT_EQ(backOff["message"], "Back-off restarting failed container main in pod crash_default(" +
                                    pod["metadata"]["uid"].get<std::string>() + ")");
  EXPECT_EQ(backOff["involvedObject"]["fieldPath"], "spec.containers{main}");
  const json started = waitEvent("crash", "Started");
  EXPECT_GE(started["count"], 2);
  EXPECT_EQ(reasonsAbout("crash"), std::vector<std::string>({"Scheduled", "Pulling", "Pulled",
                                                             "Created", "Started", "BackOff"}));
}

// Verifies Killing when a running pod is deleted.
TEST_F(ClusterEventsTest, DeletedPodGetsKilling) {
  start();
  create("pods", commandPod("sleeper", "sleep 60"));
  ASSERT_FALSE(waitEvent("sleeper", "Started").is_null());
  ASSERT_TRUE(cluster_->api()
                  .remove(builtinType(cluster_->api(), "", "pods"), "default", "sleeper", {})
                  .isOk());
  const json killing = waitEvent("sleeper", "Killing");
  ASSERT_FALSE(killing.is_null());
  EXPECT_EQ(killing["message"], "Stopping container main");
  EXPECT_EQ(killing["involvedObject"]["fieldPath"], "spec.containers{main}");
}

// Verifies the image manager's Events for an image that cannot be pulled.
TEST_F(ClusterEventsTest, MissingImageGetsFailed) {
  ClusterConfig config = defaultClusterConfig();
  config.missingImages = {"registry.invalid/nope:1"};
  start(config);
  json pod = commandPod("nope", "true");
  pod["spec"]["containers"][0]["image"] = "registry.invalid/nope:1";
  create("pods", pod);
  ASSERT_FALSE(waitEvent("nope", "Failed", [](const json& e) {
                 return e["message"] == "Error: ErrImagePull";
               }).is_null());
  const std::vector<json> events = eventsAbout("nope");
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events[0]["reason"], "Scheduled");
  EXPECT_EQ(events[1]["reason"], "Pulling");
  EXPECT_EQ(events[3]["message"], "Error: ErrImagePull");
  EXPECT_EQ(events[2]["type"], "Warning");
  EXPECT_EQ(events[2]["message"],
            "Failed to pull image \"registry.invalid/nope:1\": failed to pull and unpack image "
            "\"registry.invalid/nope:1\": not found");
  EXPECT_FALSE(waitEvent("nope", "BackOff").is_null());
}

// Verifies a container that cannot run: Created, then Failed with the runtime's error.
TEST_F(ClusterEventsTest, ContainerWithoutCommandGetsFailed) {
  start();
  create(
      "pods",
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", {{"name", "nocmd"}}},
       {"spec",
        {{"restartPolicy", "Never"}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}});
  const json failed = waitEvent("nocmd", "Failed");
  ASSERT_FALSE(failed.is_null());
  EXPECT_EQ(failed["type"], "Warning");
  EXPECT_EQ(failed["message"], "Error: failed to create containerd task: no command specified");
  EXPECT_EQ(reasonsAbout("nocmd"),
            std::vector<std::string>({"Scheduled", "Pulling", "Pulled", "Created", "Failed"}));
}

json job(const std::string& name, const std::string& script, int backoffLimit) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"backoffLimit", backoffLimit},
            {"template", {{"spec", commandPod("unused", script)["spec"]}}}}}};
}

// Verifies a Job's SuccessfulCreate and Completed Events from the job-controller.
TEST_F(ClusterEventsTest, JobGetsSuccessfulCreateAndCompleted) {
  start();
  const json created = create("jobs", job("work", "true", 6));
  const json completed = waitEvent("work", "Completed");
  ASSERT_FALSE(completed.is_null());
  EXPECT_EQ(completed["message"], "Job completed");
  EXPECT_EQ(completed["source"], json({{"component", "job-controller"}}));
  EXPECT_EQ(completed["involvedObject"]["kind"], "Job");
  EXPECT_EQ(completed["involvedObject"]["apiVersion"], "batch/v1");
  EXPECT_EQ(completed["involvedObject"]["uid"], created["metadata"]["uid"]);
  const std::vector<json> events = eventsAbout("work");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["reason"], "SuccessfulCreate");
  const std::string message = events[0]["message"];
  ASSERT_EQ(message.rfind("Created pod: work-", 0), 0u) << message;
  EXPECT_EQ(reasonsAbout(message.substr(std::string("Created pod: ").size())),
            std::vector<std::string>({"Scheduled", "Pulling", "Pulled", "Created", "Started"}));
}

// Verifies the Warning a failed Job gets, with its condition's reason and message.
TEST_F(ClusterEventsTest, FailedJobGetsBackoffLimitExceeded) {
  start();
  create("jobs", job("doomed", "exit 1", 0));
  const json failed = waitEvent("doomed", "BackoffLimitExceeded");
  ASSERT_FALSE(failed.is_null());
  EXPECT_EQ(failed["type"], "Warning");
  EXPECT_EQ(failed["message"], "Job has reached the specified backoff limit");
  EXPECT_EQ(reasonsAbout("doomed"),
            std::vector<std::string>({"SuccessfulCreate", "BackoffLimitExceeded"}));
}

// Verifies that the cluster expires its Events an hour after they were last recorded.
TEST_F(ClusterEventsTest, EventsExpireAfterAnHour) {
  start();
  create("pods", commandPod("brief", "true"));
  ASSERT_FALSE(waitEvent("brief", "Started").is_null());
  clock_.advance(59min);
  EXPECT_EQ(eventsAbout("brief").size(), 5u);
  clock_.advance(2min);
  EXPECT_TRUE(Harness::eventually([&] { return eventsAbout("brief").empty(); }));
}

}  // namespace
}  // namespace hetbench::kubesim
