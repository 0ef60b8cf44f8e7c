#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "hetbench/common/time.h"
#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kPods = "/api/v1/namespaces/default/pods";

json getPod(Harness& h, const std::string& name) { return bodyJson(h.get(kPods + "/" + name)); }

std::string phaseOf(const json& pod) {
  return pod.value("status", json::object()).value("phase", "");
}

// The pod once `test` holds for it (the last one read otherwise).
json waitPod(Harness& h, const std::string& name, const std::function<bool(const json&)>& test) {
  json pod;
  Harness::eventually([&] {
    pod = getPod(h, name);
    return test(pod);
  });
  return pod;
}

json waitPhase(Harness& h, const std::string& name, const std::string& phase) {
  return waitPod(h, name, [&](const json& p) { return phaseOf(p) == phase; });
}

json condition(const json& pod, const std::string& type) {
  for (const json& c : pod["status"].value("conditions", json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return json();
}

json containerState(const json& pod, std::size_t i = 0) {
  const json statuses = pod["status"].value("containerStatuses", json::array());
  return i < statuses.size() ? statuses[i] : json::object();
}

std::string waitingReason(const json& pod) {
  return containerState(pod)
      .value("state", json::object())
      .value("waiting", json::object())
      .value("reason", "");
}

json container(const std::string& name, const std::string& script) {
  return {{"name", name}, {"image", "busybox"}, {"command", {"/bin/sh", "-c", script}}};
}

void touch(const std::string& path) { std::ofstream(path).put('\n'); }

std::string logOf(Harness& h, const std::string& pod, const std::string& query = "") {
  return h.get(kPods + "/" + pod + "/log" + query).body;
}

// Verifies phases, container states and conditions from Pending through Running to Succeeded.
TEST(Kubelet, PhasesStatesAndConditionsOnSuccess) {
  Harness h;
  const std::string gate = h.workDir() + "/go";
  ASSERT_EQ(
      h.post(kPods, commandPod("p", "while [ ! -f " + gate + " ]; do sleep 0.05; done")).status,
      201);
  json running = waitPhase(h, "p", "Running");
  EXPECT_TRUE(containerState(running)["state"]["running"].contains("startedAt"));
  EXPECT_EQ(containerState(running).value("ready", false), true);
  for (const char* type : {"PodScheduled", "Initialized", "ContainersReady", "Ready"}) {
    EXPECT_EQ(condition(running, type).value("status", ""), "True") << type;
  }
  EXPECT_FALSE(running["status"].value("podIP", "").empty());
  EXPECT_FALSE(running["status"].value("startTime", "").empty());

  touch(gate);
  json done = waitPhase(h, "p", "Succeeded");
  const json terminated = containerState(done)["state"].value("terminated", json::object());
  EXPECT_EQ(terminated.value("exitCode", -1), 0);
  EXPECT_EQ(terminated.value("reason", ""), "Completed");
  EXPECT_FALSE(terminated.value("startedAt", "").empty());
  EXPECT_FALSE(terminated.value("finishedAt", "").empty());
  EXPECT_EQ(condition(done, "Ready").value("status", ""), "False");
  EXPECT_EQ(condition(done, "Ready").value("reason", ""), "PodCompleted");
  EXPECT_EQ(condition(done, "ContainersReady").value("reason", ""), "PodCompleted");
}

// Verifies that a non-zero exit fails a restartPolicy=Never pod with reason Error.
TEST(Kubelet, FailedContainer) {
  Harness h;
  ASSERT_EQ(h.post(kPods, commandPod("p", "exit 3")).status, 201);
  json pod = waitPhase(h, "p", "Failed");
  const json terminated = containerState(pod)["state"].value("terminated", json::object());
  EXPECT_EQ(terminated.value("exitCode", -1), 3);
  EXPECT_EQ(terminated.value("reason", ""), "Error");
  EXPECT_EQ(condition(pod, "Ready").value("status", ""), "False");
  EXPECT_EQ(condition(pod, "Ready").value("reason", ""), "PodFailed");
  EXPECT_EQ(condition(pod, "ContainersReady").value("reason", ""), "PodFailed");
}

// Verifies env from values, $(VAR) expansion, the downward API and ConfigMap/Secret keys.
TEST(Kubelet, EnvironmentSources) {
  Harness h;
  ASSERT_EQ(
      h.post("/api/v1/namespaces/default/configmaps", configMap("cm", {{"color", "blue"}})).status,
      201);
  const json secret = {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", "s"}}},
                       {"data", {{"token", "c2VjcmV0"}}}};
  ASSERT_EQ(h.post("/api/v1/namespaces/default/secrets", secret).status, 201);
  json pod = commandPod("envpod", "echo \"$GREETING|$NAME|$NS|$NODE|$IP|$COLOR|$TOKEN\"");
  auto field = [](const std::string& path) { return json{{"fieldRef", {{"fieldPath", path}}}}; };
  pod["spec"]["containers"][0]["env"] = {
      {{"name", "WHO"}, {"value", "world"}},
      {{"name", "GREETING"}, {"value", "hello $(WHO) $(UNSET) $$(WHO)"}},
      {{"name", "NAME"}, {"valueFrom", field("metadata.name")}},
      {{"name", "NS"}, {"valueFrom", field("metadata.namespace")}},
      {{"name", "NODE"}, {"valueFrom", field("spec.nodeName")}},
      {{"name", "IP"}, {"valueFrom", field("status.podIP")}},
      {{"name", "COLOR"}, {"valueFrom", {{"configMapKeyRef", {{"name", "cm"}, {"key", "color"}}}}}},
      {{"name", "TOKEN"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "token"}}}}}},
  };
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  json done = waitPhase(h, "envpod", "Succeeded");
  EXPECT_EQ(logOf(h, "envpod"), "hello world $(UNSET) $(WHO)|envpod|default|" +
                                    done["spec"].value("nodeName", "") + "|" +
                                    done["status"].value("podIP", "") + "|blue|secret\n");
}

// Verifies that a missing ConfigMap keeps the container waiting in CreateContainerConfigError
// until the ConfigMap appears.
TEST(Kubelet, MissingConfigMapBlocksStart) {
  Harness h;
  json pod = commandPod("p", "echo $COLOR");
  pod["spec"]["containers"][0]["env"] = {
      {{"name", "COLOR"},
       {"valueFrom", {{"configMapKeyRef", {{"name", "later"}, {"key", "color"}}}}}}};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  json waiting = waitPod(
      h, "p", [](const json& p) { return waitingReason(p) == "CreateContainerConfigError"; });
  EXPECT_EQ(waitingReason(waiting), "CreateContainerConfigError");
  EXPECT_EQ(containerState(waiting)["state"]["waiting"].value("message", ""),
            "configmap \"later\" not found");
  EXPECT_EQ(phaseOf(waiting), "Pending");
  Response log = h.get(kPods + "/p/log");
  EXPECT_EQ(log.status, 400);
  EXPECT_EQ(bodyJson(log).value("message", ""),
            "container \"main\" in pod \"p\" is waiting to start: CreateContainerConfigError");

  ASSERT_EQ(h.post("/api/v1/namespaces/default/configmaps", configMap("later", {{"color", "red"}}))
                .status,
            201);
  waitPhase(h, "p", "Succeeded");
  EXPECT_EQ(logOf(h, "p"), "red\n");
}

// Verifies that init containers run to completion one after another before the main container.
TEST(Kubelet, InitContainersRunInOrder) {
  Harness h;
  json pod = commandPod("p", "echo main");
  pod["spec"]["initContainers"] = {container("first", "echo first; sleep 0.2"),
                                   container("second", "echo second; sleep 0.2")};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  json done = waitPhase(h, "p", "Succeeded");
  const json inits = done["status"].value("initContainerStatuses", json::array());
  ASSERT_EQ(inits.size(), 2u);
  for (const json& s : inits) {
    EXPECT_EQ(s["state"]["terminated"].value("reason", ""), "Completed") << s.dump();
  }
  // Timestamped log lines (nanoseconds) give the order the containers printed in.
  std::vector<std::string> stamps;
  for (const char* c : {"first", "second", "main"}) {
    const std::string line = logOf(h, "p", std::string("?timestamps=true&container=") + c);
    ASSERT_NE(line.find(' '), std::string::npos) << line;
    EXPECT_EQ(line.substr(line.find(' ') + 1), std::string(c) + "\n");
    stamps.push_back(line.substr(0, line.find(' ')));
  }
  EXPECT_LT(*common::parseRfc3339(stamps[0]), *common::parseRfc3339(stamps[1]));
  EXPECT_LT(*common::parseRfc3339(stamps[1]), *common::parseRfc3339(stamps[2]));
}

// Verifies restarts under OnFailure (after a failure) and Always (even after success): restart
// count, CrashLoopBackOff and the last terminated state.
TEST(Kubelet, RestartPolicies) {
  Harness h;
  const std::vector<std::tuple<std::string, std::string, int, std::string>> cases = {
      {"onfailure", "OnFailure", 1, "Error"},
      {"always", "Always", 0, "Completed"},
  };
  for (const auto& [name, policy, code, reason] : cases) {
    ASSERT_EQ(
        h.post(kPods, commandPod(name, "echo run; exit " + std::to_string(code), policy)).status,
        201);
  }
  for (const auto& [name, policy, code, reason] : cases) {
    bool backedOff = false;
    json pod = waitPod(h, name, [&](const json& p) {
      backedOff = backedOff || waitingReason(p) == "CrashLoopBackOff";
      return backedOff && containerState(p).value("restartCount", 0) >= 2;
    });
    EXPECT_TRUE(backedOff) << name;
    EXPECT_GE(containerState(pod).value("restartCount", 0), 2) << name;
    EXPECT_EQ(phaseOf(pod), "Running") << name;
    const json last = containerState(pod)["lastState"].value("terminated", json::object());
    EXPECT_EQ(last.value("exitCode", -1), code) << name;
    EXPECT_EQ(last.value("reason", ""), reason) << name;
    EXPECT_EQ(logOf(h, name, "?previous=true"), "run\n") << name;
  }
}

// Verifies that an image that cannot be pulled leaves the pod Pending in ErrImagePull and then
// ImagePullBackOff, and that its log is refused.
TEST(Kubelet, MissingImage) {
  Harness::Options options;
  options.config.missingImages = {"registry.invalid/nope:1"};
  Harness h(options);
  json pod = commandPod("p", "true");
  pod["spec"]["containers"][0]["image"] = "registry.invalid/nope:1";
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  std::set<std::string> seen;
  json last = waitPod(h, "p", [&](const json& p) {
    seen.insert(waitingReason(p));
    return seen.count("ImagePullBackOff") > 0;
  });
  EXPECT_TRUE(seen.count("ErrImagePull"));
  EXPECT_TRUE(seen.count("ImagePullBackOff"));
  EXPECT_EQ(phaseOf(last), "Pending");
  const Response log = h.get(kPods + "/p/log");
  EXPECT_EQ(log.status, 400);
  const std::string message = bodyJson(log).value("message", "");
  EXPECT_TRUE(message ==
                  "container \"main\" in pod \"p\" is waiting to start: trying and failing "
                  "to pull image" ||
              message ==
                  "container \"main\" in pod \"p\" is waiting to start: image can't be "
                  "pulled")
      << message;
}

// Verifies that a command that does not exist fails with StartError and exit code 128.
TEST(Kubelet, CommandNotFound) {
  Harness h;
  json pod = commandPod("p", "true");
  pod["spec"]["containers"][0]["command"] = {"/no/such/binary"};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  json failed = waitPhase(h, "p", "Failed");
  const json terminated = containerState(failed)["state"].value("terminated", json::object());
  EXPECT_EQ(terminated.value("exitCode", -1), 128);
  EXPECT_EQ(terminated.value("reason", ""), "StartError");
}

// Verifies graceful deletion: a container that exits on SIGTERM goes at once, one that ignores
// it is killed when terminationGracePeriodSeconds runs out.
TEST(Kubelet, DeletionSendsTermThenKills) {
  Harness h;
  const std::vector<
      std::tuple<std::string, std::string, std::chrono::milliseconds, std::chrono::milliseconds>>
      cases = {
          {"polite", "trap 'exit 0' TERM; echo ready; while true; do sleep 0.05; done",
           std::chrono::milliseconds(0), std::chrono::milliseconds(900)},
          {"stubborn", "trap '' TERM; echo ready; while true; do sleep 0.05; done",
           std::chrono::milliseconds(900), std::chrono::milliseconds(4000)},
      };
  for (const auto& [name, script, atLeast, atMost] : cases) {
    json pod = commandPod(name, script);
    pod["spec"]["terminationGracePeriodSeconds"] = 1;
    ASSERT_EQ(h.post(kPods, pod).status, 201);
    waitPhase(h, name, "Running");
    // Running only means the shell started: delete once its trap is in place.
    ASSERT_TRUE(
        Harness::eventually([&] { return h.get(kPods + "/" + name + "/log").body == "ready\n"; }));
    const auto start = Clock::now();
    ASSERT_EQ(h.del(kPods + "/" + name).status, 200);
    EXPECT_TRUE(Harness::eventually([&] { return h.get(kPods + "/" + name).status == 404; }));
    const auto took = Clock::now() - start;
    EXPECT_GE(took, atLeast) << name;
    EXPECT_LE(took, atMost) << name;
  }
}

// Verifies that a deleted pod with a finalizer stays, its containers stopped, until the finalizer
// is removed.
TEST(Kubelet, FinalizerHoldsDeletedPod) {
  Harness h;
  json pod = commandPod("p", "trap 'exit 0' TERM; while true; do sleep 0.05; done");
  pod["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  waitPhase(h, "p", "Running");
  ASSERT_EQ(h.del(kPods + "/p").status, 200);
  json held = waitPod(h, "p", [](const json& p) {
    return containerState(p).value("state", json::object()).contains("terminated");
  });
  EXPECT_TRUE(held["metadata"].contains("deletionTimestamp"));
  EXPECT_TRUE(containerState(held)["state"].contains("terminated"));
  EXPECT_EQ(h.patch(kPods + "/p", "application/merge-patch+json",
                    {{"metadata", {{"finalizers", nullptr}}}})
                .status,
            200);
  EXPECT_TRUE(Harness::eventually([&] { return h.get(kPods + "/p").status == 404; }));
}

// Verifies that activeDeadlineSeconds fails a running pod with reason DeadlineExceeded.
TEST(Kubelet, ActiveDeadlineSeconds) {
  Harness h;
  json pod = commandPod("p", "trap 'exit 0' TERM; while true; do sleep 0.05; done");
  pod["spec"]["activeDeadlineSeconds"] = 1;
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  json failed = waitPhase(h, "p", "Failed");
  EXPECT_EQ(failed["status"].value("reason", ""), "DeadlineExceeded");
  EXPECT_EQ(failed["status"].value("message", ""),
            "Pod was active on the node longer than the specified deadline");
}

// Verifies the container selection errors of the log endpoint.
TEST(KubeletLogs, ContainerSelection) {
  Harness h;
  json pod = commandPod("p", "echo a");
  pod["spec"]["containers"].push_back(container("b", "echo b"));
  pod["spec"]["initContainers"] = {container("setup", "echo s")};
  ASSERT_EQ(h.post(kPods, pod).status, 201);
  waitPhase(h, "p", "Succeeded");
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"", 400,
       "a container name must be specified for pod p, choose one of: [main b] or one of the init "
       "containers: [setup]"},
      {"?container=x", 400, "container x is not valid for pod p"},
      {"?container=b", 200, "b\n"},
      {"?container=setup", 200, "s\n"},
  };
  for (const auto& [query, status, text] : cases) {
    const Response r = h.get(kPods + "/p/log" + query);
    EXPECT_EQ(r.status, status) << query;
    EXPECT_EQ(status == 200 ? r.body : bodyJson(r).value("message", ""), text) << query;
  }
}

// Verifies tailLines, limitBytes, timestamps and sinceTime.
TEST(KubeletLogs, Selection) {
  Harness h;
  ASSERT_EQ(h.post(kPods, commandPod("p", "printf 'one\\ntwo\\nthree\\n'")).status, 201);
  waitPhase(h, "p", "Succeeded");
  EXPECT_EQ(logOf(h, "p", "?tailLines=2"), "two\nthree\n");
  EXPECT_EQ(logOf(h, "p", "?tailLines=0"), "");
  EXPECT_EQ(logOf(h, "p", "?limitBytes=5"), "one\nt");
  EXPECT_EQ(logOf(h, "p", "?sinceTime=2000-01-01T00:00:00Z"), "one\ntwo\nthree\n");
  EXPECT_EQ(logOf(h, "p", "?sinceTime=2999-01-01T00:00:00Z"), "");
  const std::string stamped = logOf(h, "p", "?timestamps=true&tailLines=1");
  EXPECT_TRUE(
      std::regex_match(stamped, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z three\n)")))
      << stamped;
}

// Verifies that previous is refused before any restart.
TEST(KubeletLogs, PreviousWithoutRestart) {
  Harness h;
  ASSERT_EQ(h.post(kPods, commandPod("p", "echo a")).status, 201);
  waitPhase(h, "p", "Succeeded");
  const Response r = h.get(kPods + "/p/log?previous=true");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(bodyJson(r).value("message", ""),
            "previous terminated container \"main\" in pod \"p\" not found");
}

// Verifies that follow delivers lines as they are printed and ends when the container exits.
TEST(KubeletLogs, FollowStreamsUntilExit) {
  Harness h;
  const std::string gate = h.workDir() + "/go";
  ASSERT_EQ(h.post(kPods, commandPod("p", "echo one; while [ ! -f " + gate +
                                              " ]; do sleep 0.05; done; echo two"))
                .status,
            201);
  waitPhase(h, "p", "Running");
  Response head;
  std::unique_ptr<TestConnection> c = h.stream(kPods + "/p/log?follow=true", &head);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(head.status, 200);
  std::string got;
  while (got.size() < 4) {
    std::optional<std::string> chunk = c->readChunk();
    ASSERT_TRUE(chunk && !chunk->empty());
    got += *chunk;
  }
  EXPECT_EQ(got, "one\n");
  touch(gate);
  for (;;) {
    std::optional<std::string> chunk = c->readChunk();
    ASSERT_TRUE(chunk.has_value()) << "stream broke after " << got;
    if (chunk->empty()) break;
    got += *chunk;
  }
  EXPECT_EQ(got, "one\ntwo\n");
}

}  // namespace
}  // namespace hetbench::kubesim::testing
