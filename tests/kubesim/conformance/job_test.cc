#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";
const std::string kPods = "/api/v1/namespaces/default/pods";
const std::string kForever = "trap 'exit 0' TERM; while true; do sleep 0.05; done";

json makeJob(const std::string& name, const std::string& script,
             const json& spec = json::object()) {
  json pod = commandPod("unused", script);
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}}},
              {"spec", {{"template", {{"spec", pod["spec"]}}}}}};
  job["spec"].update(spec);
  return job;
}

json getJob(Harness& h, const std::string& name) { return bodyJson(h.get(kJobs + "/" + name)); }

json jobPods(Harness& h, const std::string& job) {
  return bodyJson(h.get(kPods + "?labelSelector=batch.kubernetes.io/job-name%3D" + job))
      .value("items", json::array());
}

// name, phase, index and finalizers of each pod of a Job, for failure messages.
std::string podSummary(Harness& h, const std::string& job) {
  std::string out;
  for (const json& p : jobPods(h, job)) {
    out += "\n  " + p["metadata"].value("name", "") + " " +
           p.value("status", json::object()).value("phase", "") + " index=" +
           p["metadata"]
               .value("annotations", json::object())
               .value("batch.kubernetes.io/job-completion-index", "") +
           " finalizers=" + p["metadata"].value("finalizers", json::array()).dump() +
           " node=" + p["spec"].value("nodeName", "") + " containers=" +
           p.value("status", json::object()).value("containerStatuses", json::array()).dump();
  }
  return out;
}

json conditionOf(const json& job, const std::string& type) {
  if (!job.is_object()) return json::object();
  for (const json& c : job.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return json::object();
}

// The Job once it has a condition `type` with status True (the last one read otherwise). A
// response that is not a Job fails the test with its status and body.
json waitCondition(Harness& h, const std::string& name, const std::string& type,
                   std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  json job;
  std::string unreadable;
  Harness::eventually(
      [&] {
        const Response response = h.get(kJobs + "/" + name);
        job = bodyJson(response);
        if (!job.is_object()) {
          unreadable = "HTTP " + std::to_string(response.status) + ": " + response.body;
          return true;
        }
        return conditionOf(job, type).value("status", "") == "True";
      },
      timeout);
  EXPECT_EQ(unreadable, "") << "reading Job " << name;
  return job;
}

bool isActive(const json& pod) {
  const std::string phase = pod.value("status", json::object()).value("phase", "");
  return phase != "Succeeded" && phase != "Failed" &&
         !pod["metadata"].contains("deletionTimestamp");
}

// Verifies NonIndexed completions with parallelism: never more than parallelism pods active,
// exactly completions pods succeed, then SuccessCriteriaMet and Complete with completionTime.
TEST(Job, NonIndexedCompletionsAndParallelism) {
  Harness h;
  ASSERT_EQ(
      h.post(kJobs, makeJob("j", "sleep 0.3", {{"completions", 4}, {"parallelism", 2}})).status,
      201);
  std::size_t maxActive = 0;
  json job;
  ASSERT_TRUE(Harness::eventually([&] {
    std::size_t active = 0;
    for (const json& p : jobPods(h, "j")) active += isActive(p) ? 1 : 0;
    maxActive = std::max(maxActive, active);
    job = getJob(h, "j");
    return conditionOf(job, "Complete").value("status", "") == "True";
  }));
  EXPECT_LE(maxActive, 2u);
  EXPECT_EQ(maxActive, 2u);
  EXPECT_EQ(job["status"].value("succeeded", 0), 4);
  EXPECT_EQ(job["status"].value("active", -1), 0);
  EXPECT_FALSE(job["status"].value("completionTime", "").empty());
  EXPECT_FALSE(job["status"].value("startTime", "").empty());
  for (const char* type : {"SuccessCriteriaMet", "Complete"}) {
    EXPECT_EQ(conditionOf(job, type).value("reason", ""), "CompletionsReached") << type;
    EXPECT_EQ(conditionOf(job, type).value("message", ""),
              "Reached expected number of succeeded pods")
        << type;
  }
  EXPECT_EQ(jobPods(h, "j").size(), 4u);
}

// Verifies Indexed completion: each pod gets its JOB_COMPLETION_INDEX and the indexes are
// reported in completedIndexes.
TEST(Job, IndexedCompletion) {
  Harness h;
  ASSERT_EQ(h.post(kJobs,
                   makeJob("ix", "echo index=$JOB_COMPLETION_INDEX",
                           {{"completions", 3}, {"parallelism", 3}, {"completionMode", "Indexed"}}))
                .status,
            201);
  json job = waitCondition(h, "ix", "Complete");
  EXPECT_EQ(job["status"].value("completedIndexes", ""), "0-2") << podSummary(h, "ix");
  EXPECT_EQ(job["status"].value("succeeded", 0), 3) << job["status"].dump() << podSummary(h, "ix");
  std::set<std::string> seen;
  for (const json& p : jobPods(h, "ix")) {
    const std::string index =
        p["metadata"]["annotations"].value("batch.kubernetes.io/job-completion-index", "");
    EXPECT_EQ(p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", ""), index);
    const std::string name = p["metadata"].value("name", "");
    EXPECT_EQ(name.rfind("ix-" + index + "-", 0), 0u) << name;
    EXPECT_EQ(h.get(kPods + "/" + name + "/log").body, "index=" + index + "\n");
    seen.insert(index);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"0", "1", "2"}));
}

// Verifies that failures beyond backoffLimit fail the Job: FailureTarget first, then Failed,
// both with reason BackoffLimitExceeded.
TEST(Job, BackoffLimitExceeded) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("bo", "exit 1", {{"backoffLimit", 1}})).status, 201);
  json job = waitCondition(h, "bo", "Failed");
  for (const char* type : {"FailureTarget", "Failed"}) {
    EXPECT_EQ(conditionOf(job, type).value("status", ""), "True") << type;
    EXPECT_EQ(conditionOf(job, type).value("reason", ""), "BackoffLimitExceeded") << type;
    EXPECT_EQ(conditionOf(job, type).value("message", ""),
              "Job has reached the specified backoff limit")
        << type;
  }
  EXPECT_EQ(job["status"].value("failed", 0), 2);
  EXPECT_EQ(job["status"].value("active", -1), 0);
  EXPECT_EQ(jobPods(h, "bo").size(), 2u) << job["status"].dump() << podSummary(h, "bo");
}

// Verifies a podFailurePolicy FailJob rule on an exit code: the Job fails at the first matching
// failure, whatever backoffLimit allows, and the message names the container and code.
TEST(Job, PodFailurePolicyFailJob) {
  Harness h;
  const json policy = {
      {"rules",
       {{{"action", "FailJob"},
         {"onExitCodes", {{"containerName", "main"}, {"operator", "In"}, {"values", {42}}}}}}}};
  ASSERT_EQ(
      h.post(kJobs, makeJob("pf", "exit 42", {{"backoffLimit", 6}, {"podFailurePolicy", policy}}))
          .status,
      201);
  json job = waitCondition(h, "pf", "Failed");
  const json pods = jobPods(h, "pf");
  ASSERT_EQ(pods.size(), 1u);
  const std::string message = "Container main for pod default/" +
                              pods[0]["metadata"].value("name", "") +
                              " failed with exit code 42 matching FailJob rule at index 0";
  for (const char* type : {"FailureTarget", "Failed"}) {
    EXPECT_EQ(conditionOf(job, type).value("reason", ""), "PodFailurePolicy") << type;
    EXPECT_EQ(conditionOf(job, type).value("message", ""), message) << type;
  }
  EXPECT_EQ(job["status"].value("failed", 0), 1);
}

// Verifies a podFailurePolicy Ignore rule: the matching failure is not counted against
// backoffLimit and the pod is replaced.
TEST(Job, PodFailurePolicyIgnore) {
  Harness h;
  const std::string marker = h.workDir() + "/tried";
  const json policy = {
      {"rules", {{{"action", "Ignore"}, {"onExitCodes", {{"operator", "In"}, {"values", {5}}}}}}}};
  ASSERT_EQ(h.post(kJobs, makeJob("ig",
                                  "if [ -f " + marker + " ]; then exit 0; fi; touch " + marker +
                                      "; exit 5",
                                  {{"backoffLimit", 0}, {"podFailurePolicy", policy}}))
                .status,
            201);
  json job = waitCondition(h, "ig", "Complete");
  EXPECT_EQ(job["status"].value("failed", -1), 0);
  EXPECT_EQ(job["status"].value("succeeded", 0), 1);
  EXPECT_TRUE(conditionOf(job, "Failed").empty());
  EXPECT_EQ(jobPods(h, "ig").size(), 2u);
}

// Verifies that activeDeadlineSeconds fails the Job with DeadlineExceeded and stops its pods.
TEST(Job, ActiveDeadlineSeconds) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("dl", kForever, {{"activeDeadlineSeconds", 1}})).status, 201);
  json job = waitCondition(h, "dl", "Failed");
  EXPECT_EQ(conditionOf(job, "Failed").value("reason", ""), "DeadlineExceeded");
  EXPECT_EQ(conditionOf(job, "Failed").value("message", ""),
            "Job was active longer than specified deadline");
  EXPECT_EQ(conditionOf(job, "FailureTarget").value("reason", ""), "DeadlineExceeded");
  EXPECT_EQ(job["status"].value("active", -1), 0);
  for (const json& p : jobPods(h, "dl")) EXPECT_FALSE(isActive(p)) << p.dump();
}

// Verifies suspend (active pods deleted, Suspended=True) and resume (Suspended=False, pods
// created again).
TEST(Job, SuspendAndResume) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("sj", kForever, {{"parallelism", 2}, {"completions", 2}})).status,
            201);
  ASSERT_TRUE(
      Harness::eventually([&] { return getJob(h, "sj")["status"].value("active", 0) == 2; }));
  const std::string merge = "application/merge-patch+json";
  ASSERT_EQ(h.patch(kJobs + "/sj", merge, {{"spec", {{"suspend", true}}}}).status, 200);
  json job = waitCondition(h, "sj", "Suspended");
  EXPECT_EQ(conditionOf(job, "Suspended").value("reason", ""), "JobSuspended");
  EXPECT_EQ(conditionOf(job, "Suspended").value("message", ""), "Job suspended");
  EXPECT_TRUE(Harness::eventually([&] {
    for (const json& p : jobPods(h, "sj")) {
      if (isActive(p)) return false;
    }
    return getJob(h, "sj")["status"].value("active", -1) == 0;
  }));

  ASSERT_EQ(h.patch(kJobs + "/sj", merge, {{"spec", {{"suspend", false}}}}).status, 200);
  ASSERT_TRUE(Harness::eventually([&] {
    job = getJob(h, "sj");
    return conditionOf(job, "Suspended").value("status", "") == "False" &&
           job["status"].value("active", 0) == 2;
  }));
  EXPECT_EQ(conditionOf(job, "Suspended").value("reason", ""), "JobResumed");
  EXPECT_EQ(conditionOf(job, "Suspended").value("message", ""), "Job resumed");
}

// Verifies the scheduling directives of a Job's pod template: mutable while the Job is suspended
// and has never started (what Kueue sets when it admits a Job), immutable once it has started,
// and the pods created after resuming carry what was set.
TEST(Job, SchedulingDirectivesMutableWhileSuspendedAndNeverStarted) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("q", "true", {{"suspend", true}})).status, 201);
  const std::string merge = "application/merge-patch+json";
  const json flavor = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}};
  json admit;
  admit["spec"]["suspend"] = false;
  admit["spec"]["template"]["metadata"]["labels"] = {{"kueue.x-k8s.io/podset", "main"}};
  admit["spec"]["template"]["spec"]["nodeSelector"] = flavor;
  admit["spec"]["template"]["spec"]["tolerations"] = {{{"key", "gpu"}, {"operator", "Exists"}}};
  ASSERT_EQ(h.patch(kJobs + "/q", merge, admit).status, 200);
  waitCondition(h, "q", "Complete");
  const json pods = jobPods(h, "q");
  ASSERT_EQ(pods.size(), 1u) << podSummary(h, "q");
  EXPECT_EQ(pods[0]["spec"]["nodeSelector"], flavor);
  EXPECT_EQ(pods[0]["spec"].value("nodeName", ""), "h100-1");
  EXPECT_EQ(pods[0]["metadata"]["labels"].value("kueue.x-k8s.io/podset", ""), "main");

  const Response started = h.patch(
      kJobs + "/q", merge, {{"spec", {{"template", {{"spec", {{"nodeSelector", nullptr}}}}}}}});
  EXPECT_EQ(started.status, 422);
  EXPECT_NE(bodyJson(started).value("message", "").find("spec.template: Invalid value"),
            std::string::npos)
      << started.body;
}

// Verifies that ttlSecondsAfterFinished deletes the finished Job and, in the background, its
// pods.
TEST(Job, TtlAfterFinished) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("ttl", "true", {{"ttlSecondsAfterFinished", 1}})).status, 201);
  waitCondition(h, "ttl", "Complete");
  EXPECT_TRUE(Harness::eventually([&] { return h.get(kJobs + "/ttl").status == 404; }));
  EXPECT_TRUE(Harness::eventually([&] { return jobPods(h, "ttl").empty(); }));
}

// Verifies the identity of Job pods (labels, controller ownerReference) and the job-tracking
// finalizer: present while the pod runs, removed once the pod has been counted.
TEST(Job, PodIdentityAndTrackingFinalizer) {
  Harness h;
  const std::string gate = h.workDir() + "/go";
  ASSERT_EQ(h.post(kJobs, makeJob("id", "while [ ! -f " + gate + " ]; do sleep 0.05; done")).status,
            201);
  json pod;
  ASSERT_TRUE(Harness::eventually([&] {
    const json pods = jobPods(h, "id");
    if (pods.size() != 1 || pods[0]["status"].value("phase", "") != "Running") return false;
    pod = pods[0];
    return true;
  }));
  const std::string uid = getJob(h, "id")["metadata"].value("uid", "");
  const json& labels = pod["metadata"]["labels"];
  EXPECT_EQ(labels.value("batch.kubernetes.io/job-name", ""), "id");
  EXPECT_EQ(labels.value("job-name", ""), "id");
  EXPECT_EQ(labels.value("batch.kubernetes.io/controller-uid", ""), uid);
  EXPECT_EQ(labels.value("controller-uid", ""), uid);
  ASSERT_EQ(pod["metadata"].value("ownerReferences", json::array()).size(), 1u);
  const json& owner = pod["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner.value("apiVersion", ""), "batch/v1");
  EXPECT_EQ(owner.value("kind", ""), "Job");
  EXPECT_EQ(owner.value("name", ""), "id");
  EXPECT_EQ(owner.value("uid", ""), uid);
  EXPECT_EQ(owner.value("controller", false), true);
  EXPECT_EQ(owner.value("blockOwnerDeletion", false), true);
  EXPECT_EQ(pod["metadata"].value("finalizers", json::array()),
            json::array({"batch.kubernetes.io/job-tracking"}));

  std::ofstream(gate).put('\n');
  waitCondition(h, "id", "Complete");
  const std::string name = pod["metadata"].value("name", "");
  EXPECT_TRUE(Harness::eventually(
      [&] { return !bodyJson(h.get(kPods + "/" + name))["metadata"].contains("finalizers"); }));
}

// Verifies that deleting a Job with propagationPolicy=Background removes its pods.
TEST(Job, BackgroundDeletionRemovesPods) {
  Harness h;
  ASSERT_EQ(h.post(kJobs, makeJob("bg", kForever, {{"parallelism", 2}, {"completions", 2}})).status,
            201);
  ASSERT_TRUE(Harness::eventually([&] { return jobPods(h, "bg").size() == 2; }));
  const Response deleted = h.del(kJobs + "/bg", {{"propagationPolicy", "Background"}});
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_TRUE(Harness::eventually([&] { return h.get(kJobs + "/bg").status == 404; }));
  EXPECT_TRUE(Harness::eventually([&] { return jobPods(h, "bg").empty(); }));
}

}  // namespace
}  // namespace hetbench::kubesim::testing
