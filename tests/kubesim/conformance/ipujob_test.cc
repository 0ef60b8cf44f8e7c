#include <gtest/gtest.h>

#include "testing/harness.h"

namespace hetbench::kubesim::testing {
namespace {

using nlohmann::json;

constexpr const char* kJobs = "/apis/graphcore.ai/v1alpha1/namespaces/default/ipujobs";

json crd() { return readManifest(std::string(KUBESIM_FIXTURES_DIR) + "/ipujob-crd.yaml"); }

json ipuJob(const std::string& name, std::int64_t instances, const std::string& ipus,
            const std::string& script) {
  return {{"apiVersion", "graphcore.ai/v1alpha1"},
          {"kind", "IPUJob"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"jobInstances", instances},
            {"ipusPerJobInstance", ipus},
            {"workers",
             {{"template",
               {{"spec",
                 {{"restartPolicy", "Never"},
                  {"terminationGracePeriodSeconds", 1},
                  {"containers",
                   {{{"name", "worker"},
                     {"image", "graphcore/pytorch:3.3.0"},
                     {"command", {"/bin/sh", "-c", script}}}}}}}}}}}}}};
}

class IpuJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Response created = h_.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd());
    ASSERT_EQ(created.status, 201) << created.body;
    ASSERT_TRUE(Harness::eventually([&] {
      for (const json& c : bodyJson(h_.get("/apis/apiextensions.k8s.io/v1/"
                                           "customresourcedefinitions/ipujobs.graphcore.ai"))
                               .value("status", json::object())
                               .value("conditions", json::array())) {
        if (c.value("type", "") == "Established" && c.value("status", "") == "True") {
          return h_.get(kJobs).status == 200;
        }
      }
      return false;
    }));
  }

  json job(const std::string& name) { return bodyJson(h_.get(std::string(kJobs) + "/" + name)); }
  std::string state(const std::string& name) {
    return job(name).value("status", json::object()).value("state", "");
  }
  json pods(const std::string& jobName) {
    return bodyJson(h_.get("/api/v1/namespaces/default/pods?labelSelector=graphcore.ai%2Fipujob-"
                           "name%3D" +
                           jobName))
        .value("items", json::array());
  }
  json pod(const std::string& name) {
    return bodyJson(h_.get("/api/v1/namespaces/default/pods/" + name));
  }
  static json condition(const json& object, const std::string& type) {
    for (const json& c : object.value("status", json::object()).value("conditions", json::array()))
      if (c.value("type", "") == type) return c;
    return json();
  }

  Harness h_;
};

// Verifies that 2 instances of 4 IPUs each run to Completed with the counts, conditions, times,
// IPU limits, labels, owner and instance env on the worker pods.
TEST_F(IpuJobTest, TwoInstancesComplete) {
  Response created =
      h_.post(kJobs, ipuJob("train", 2, "4",
                            "echo worker $IPUJOB_INSTANCE_INDEX of $IPUJOB_INSTANCES "
                            "$IPUOF_VIPU_API_PARTITION_ID"));
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_TRUE(Harness::eventually([&] { return state("train") == "Completed"; }))
      << job("train").dump();
  const json status = job("train")["status"];
  EXPECT_EQ(status["workersStatus"], json({{"active", 0}, {"succeeded", 2}, {"failed", 0}}));
  EXPECT_EQ(status.value("lastMessage", ""), "All instances done");
  EXPECT_EQ(status.value("restartCount", -1), 0);
  EXPECT_TRUE(status.contains("startTime"));
  EXPECT_TRUE(status.contains("completionTime"));
  EXPECT_EQ(condition(job("train"), "Created").value("status", ""), "True");
  const json completed = condition(job("train"), "Completed");
  EXPECT_EQ(completed.value("status", ""), "True");
  EXPECT_EQ(completed.value("reason", ""), "IPUJobCompleted");
  EXPECT_FALSE(status.contains("launcherStatus"));

  ASSERT_EQ(pods("train").size(), 2u);
  const json worker = pod("train-worker-1");
  EXPECT_EQ(worker["spec"]["containers"][0]["resources"]["limits"].value("graphcore.ai/ipu", ""),
            "4");
  EXPECT_EQ(worker["metadata"]["labels"].value("graphcore.ai/ipujob-role", ""), "worker");
  const json owner = worker["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner.value("kind", ""), "IPUJob");
  EXPECT_EQ(owner.value("name", ""), "train");
  EXPECT_TRUE(owner.value("controller", false));
  EXPECT_TRUE(owner.value("blockOwnerDeletion", false));
  EXPECT_EQ(h_.get("/api/v1/namespaces/default/pods/train-worker-1/log").body,
            "worker 1 of 2 p-train-1\n");
}

// Verifies that the IPU node's 16 IPUs are accounted: of 5 instances of 4 IPUs, 4 run and the
// fifth stays Pending as Unschedulable for want of IPUs.
TEST_F(IpuJobTest, MoreInstancesThanIpusLeavesWorkersPending) {
  ASSERT_EQ(h_.post(kJobs, ipuJob("big", 5, "4", "exec sleep 30")).status, 201);
  ASSERT_TRUE(Harness::eventually([&] {
    int running = 0;
    for (const json& p : pods("big"))
      running += p.value("status", json::object()).value("phase", "") == "Running";
    return running == 4;
  }));
  json unschedulable;
  ASSERT_TRUE(Harness::eventually([&] {
    for (const json& p : pods("big")) {
      for (const json& c : p["status"].value("conditions", json::array())) {
        if (c.value("type", "") == "PodScheduled" && c.value("reason", "") == "Unschedulable") {
          unschedulable = c;
          return true;
        }
      }
    }
    return false;
  }));
  EXPECT_NE(unschedulable.value("message", "").find("Insufficient graphcore.ai/ipu"),
            std::string::npos)
      << unschedulable.dump();
  ASSERT_TRUE(Harness::eventually([&] { return state("big") == "Running"; }));
  EXPECT_EQ(job("big")["status"]["workersStatus"].value("active", 0), 5);
}

// Verifies that a failing worker fails the IPUJob with a reason and exit code, and that its
// running workers are deleted to free their IPUs.
TEST_F(IpuJobTest, FailingWorkerFailsJob) {
  ASSERT_EQ(h_.post(kJobs, ipuJob("bad", 2, "1",
                                  "if [ \"$IPUJOB_INSTANCE_INDEX\" = 1 ]; then exit 3; fi; "
                                  "exec sleep 30"))
                .status,
            201);
  ASSERT_TRUE(Harness::eventually([&] { return state("bad") == "Failed"; }));
  const json failed = condition(job("bad"), "Failed");
  EXPECT_EQ(failed.value("status", ""), "True");
  EXPECT_EQ(failed.value("reason", ""), "WorkerFailed");
  EXPECT_EQ(failed.value("message", ""), "pod bad-worker-1 failed with exit code 3");
  EXPECT_EQ(job("bad")["status"]["workersStatus"].value("failed", 0), 1);
  EXPECT_TRUE(Harness::eventually([&] { return pod("bad-worker-0").value("code", 0) == 404; }));
  EXPECT_EQ(pod("bad-worker-1")["status"].value("phase", ""), "Failed");
}

// Verifies that restartPolicy OnFailure re-creates a failed worker up to backoffLimit, then
// fails the IPUJob as BackoffLimitExceeded.
TEST_F(IpuJobTest, RestartPolicyRetriesWithinBackoffLimit) {
  json body = ipuJob("flaky", 1, "1", "exit 1");
  body["spec"]["restartPolicy"] = {{"type", "OnFailure"}, {"backoffLimit", 2}};
  ASSERT_EQ(h_.post(kJobs, body).status, 201);
  ASSERT_TRUE(Harness::eventually([&] { return state("flaky") == "Failed"; }));
  EXPECT_EQ(job("flaky")["status"].value("restartCount", 0), 2);
  EXPECT_EQ(condition(job("flaky"), "Failed").value("reason", ""), "BackoffLimitExceeded");
}

// Verifies that spec.launcher.command runs a launcher pod once the workers run, that its
// success completes the IPUJob, and that the still-running workers are then deleted.
TEST_F(IpuJobTest, LauncherCompletesJob) {
  json body = ipuJob("dist", 2, "2", "exec sleep 30");
  body["spec"]["launcher"] = {
      {"command", {"/bin/sh", "-c", "echo \"poprun on $IPUJOB_WORKERS ($IPUJOB_INSTANCES)\""}}};
  ASSERT_EQ(h_.post(kJobs, body).status, 201);
  ASSERT_TRUE(Harness::eventually([&] { return state("dist") == "Completed"; }))
      << job("dist").dump();
  const json status = job("dist")["status"];
  EXPECT_EQ(status.value("launcherStatus", ""), "Succeeded");
  EXPECT_EQ(h_.get("/api/v1/namespaces/default/pods/dist-launcher/log").body,
            "poprun on dist-worker-0,dist-worker-1 (2)\n");
  EXPECT_TRUE(Harness::eventually([&] { return pods("dist").size() == 1; }));
  EXPECT_EQ(pods("dist")[0]["metadata"].value("name", ""), "dist-launcher");
}

// Verifies that deleting an IPUJob removes its pods through their ownerReferences.
TEST_F(IpuJobTest, DeletingJobRemovesPods) {
  ASSERT_EQ(h_.post(kJobs, ipuJob("gone", 2, "1", "exec sleep 30")).status, 201);
  ASSERT_TRUE(Harness::eventually([&] { return pods("gone").size() == 2; }));
  ASSERT_EQ(h_.del(std::string(kJobs) + "/gone").status, 200);
  EXPECT_TRUE(Harness::eventually([&] { return pods("gone").empty(); }));
}

// Verifies that admission rejects with 422 an ipusPerJobInstance given as a number and a
// jobInstances below 1, naming the field.
TEST_F(IpuJobTest, InvalidJobsRejected) {
  json numeric = ipuJob("numeric", 1, "1", "true");
  numeric["spec"]["ipusPerJobInstance"] = 4;
  Response r = h_.post(kJobs, numeric);
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("spec.ipusPerJobInstance"), std::string::npos) << r.body;

  Response negative = h_.post(kJobs, ipuJob("negative", -1, "1", "true"));
  EXPECT_EQ(negative.status, 422) << negative.body;
  EXPECT_NE(negative.body.find("spec.jobInstances"), std::string::npos) << negative.body;
  EXPECT_TRUE(pods("numeric").empty());
}

}  // namespace
}  // namespace hetbench::kubesim::testing
