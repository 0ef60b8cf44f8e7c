// The hetbench-operator binary against kubesim: runs of every workload kind, and from a raw
// template, to their end.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "operator_fixture.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::vector<std::string> eventReasons(const std::vector<json>& events) {
  std::vector<std::string> reasons;
  for (const json& e : events) reasons.push_back(e.value("reason", ""));
  return reasons;
}

// The container's log, read to its end.
std::string podLog(kube::KubeClient& client, const std::string& pod) {
  std::string text;
  const common::Status streamed = client.streamLogs("default", pod, {}, [&](std::string_view data) {
    text += data;
    return true;
  });
  EXPECT_TRUE(streamed.isOk()) << pod << ": " << streamed.toString();
  return text;
}

// Verifies a Pod run: the run and its unit Succeeded with their conditions and Events, the
// manifest kept under the log directory, and the pod deleted once it succeeded.
TEST_F(OperatorTest, PodRunSucceedsAndItsPodIsDeleted) {
  startOperator();
  createRun("pod", scriptSpec("echo hello"));
  const json run = waitForPhase("pod", "Succeeded");
  ASSERT_EQ(run["status"]["trials"].size(), 1u) << run.dump(2);
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["phase"], "Succeeded");
  EXPECT_EQ(trial["reason"], "Completed");
  EXPECT_EQ(trial["workload"]["kind"], "Pod");
  EXPECT_EQ(run["status"]["trialsTotal"], 1);
  EXPECT_EQ(run["status"]["progress"], "1/1");
  EXPECT_EQ(condition(run, "Accepted")["status"], "True");
  EXPECT_EQ(condition(run, "Complete")["status"], "True");
  EXPECT_EQ(condition(run, "Failed")["status"], "False");
  const auto& finalizers = run["metadata"]["finalizers"];
  EXPECT_NE(std::find(finalizers.begin(), finalizers.end(), "hetbench.io/cleanup"),
            finalizers.end());

  std::ifstream in(logDir_ / trial["logDir"].get<std::string>() / "manifest.json");
  ASSERT_TRUE(in) << "no manifest under " << logDir_ / trial["logDir"].get<std::string>();
  const json manifest = json::parse(in, nullptr, false);
  ASSERT_TRUE(manifest.is_array() && manifest.size() == 1) << manifest.dump(2);
  EXPECT_EQ(manifest[0]["kind"], "Pod");
  EXPECT_EQ(manifest[0]["metadata"]["name"], trial["workload"]["name"]);

  EXPECT_TRUE(eventually([&] { return workloads(kube::resources::kPods, "pod").empty(); }));
  EXPECT_TRUE(waitForEvent("pod", "RunSucceeded"));
  const std::vector<std::string> reasons = eventReasons(events("pod"));
  for (const char* reason : {"Accepted", "Created", "TrialSucceeded", "RunSucceeded"}) {
    EXPECT_NE(std::find(reasons.begin(), reasons.end(), reason), reasons.end()) << reason;
  }
}

// Verifies a Job run: the unit runs as a batch/v1 Job, which is deleted with its pods once it
// completed.
TEST_F(OperatorTest, JobRunSucceeds) {
  startOperator();
  json spec = scriptSpec("echo job");
  spec["workload"]["kind"] = "Job";
  createRun("job", spec);
  const json run = waitForPhase("job", "Succeeded");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["workload"]["kind"], "Job");
  EXPECT_EQ(trial["workload"]["apiVersion"], "batch/v1");
  EXPECT_EQ(trial["phase"], "Succeeded");
  EXPECT_FALSE(trial.value("nodes", json::array()).empty()) << trial.dump(2);
  EXPECT_TRUE(eventually([&] {
    return workloads(kube::resources::kJobs, "job").empty() &&
           workloads(kube::resources::kPods, "job").empty();
  }));
}

// Verifies a two-node Job: an Indexed Job of two completions with a headless Service, whose
// pods see the rendezvous environment with their own rank.
TEST_F(OperatorTest, MultiNodeJobGetsIndexedJobServiceAndRanks) {
  startOperator();
  json spec = scriptSpec("echo rendezvous $MASTER_ADDR $MASTER_PORT $WORLD_SIZE $RANK");
  spec["workload"]["kind"] = "Job";
  spec["workload"]["nodes"] = 2;
  spec["cleanup"] = {{"onSuccess", "Retain"}};
  createRun("multi", spec);
  const json run = waitForPhase("multi", "Succeeded");
  const std::string name = run["status"]["trials"][0]["workload"]["name"];

  const std::vector<json> jobs = workloads(kube::resources::kJobs, "multi");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(jobs[0]["spec"]["completions"], 2);
  EXPECT_EQ(jobs[0]["spec"]["parallelism"], 2);
  common::Result<json> service = client_->get(kube::resources::kServices, "default", name);
  ASSERT_TRUE(service.isOk()) << service.status().toString();
  EXPECT_EQ(service.value()["spec"]["clusterIP"], "None");

  std::vector<json> pods = workloads(kube::resources::kPods, "multi");
  ASSERT_EQ(pods.size(), 2u);
  std::set<std::string> lines;
  for (const json& pod : pods) {
    std::string log = podLog(*client_, pod["metadata"]["name"]);
    lines.insert(log.substr(0, log.find('\n')));
  }
  const std::string common = "rendezvous " + name + "-0." + name + " 29500 2 ";
  EXPECT_EQ(lines, (std::set<std::string>{common + "0", common + "1"}));
}

// Verifies an IPUJob run: one instance of 4 IPUs placed on the IPU node, Completed, then
// deleted.
TEST_F(OperatorTest, IpuJobRunSucceeds) {
  startOperator();
  json spec = scriptSpec("echo ipu");
  spec["workload"]["kind"] = "IPUJob";
  spec["workload"]["accelerator"] = {{"resource", "graphcore.ai/ipu"}, {"count", 4}};
  createRun("ipu", spec);
  const json run = waitForPhase("ipu", "Succeeded");
  const json& trial = run["status"]["trials"][0];
  EXPECT_EQ(trial["workload"]["kind"], "IPUJob");
  EXPECT_EQ(trial["workload"]["apiVersion"], "graphcore.ai/v1alpha1");
  EXPECT_EQ(trial.value("nodes", json::array()), json::array({"ipu-pod16-1"})) << trial.dump(2);
  EXPECT_TRUE(eventually([&] { return workloads(kIpuJobs, "ipu").empty(); }));
}

// Verifies a raw template: a batch/v1 Job manifest created as written, with hetbench's name
// and labels, to Succeeded.
TEST_F(OperatorTest, JobTemplateRunSucceeds) {
  startOperator();
  const json templ = {{"apiVersion", "batch/v1"},
                      {"kind", "Job"},
                      {"metadata", {{"labels", {{"team", "perf"}}}}},
                      {"spec",
                       {{"backoffLimit", 0},
                        {"template",
                         {{"spec",
                           {{"restartPolicy", "Never"},
                            {"containers",
                             {{{"name", "main"},
                               {"image", "busybox"},
                               {"command", {"sh", "-c", "exit 0"}}}}}}}}}}}};
  createRun("templ", {{"benchmark", "custom"}, {"system", "cpu"}, {"template", templ}});
  const json run = waitForPhase("templ", "Succeeded");
  EXPECT_EQ(run["status"]["trials"][0]["workload"]["kind"], "Job");
  EXPECT_EQ(condition(run, "Accepted")["status"], "True");
}

// Verifies that a template of a kind hetbench cannot run fails the run as not accepted,
// naming spec.template, and creates nothing.
TEST_F(OperatorTest, TemplateOfUnknownKindIsNotAccepted) {
  startOperator();
  const json templ = {
      {"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"spec", {{"replicas", 1}}}};
  createRun("deploy", {{"benchmark", "custom"}, {"system", "cpu"}, {"template", templ}});
  const json run = waitForPhase("deploy", "Failed");
  const json accepted = condition(run, "Accepted");
  EXPECT_EQ(accepted["status"], "False");
  EXPECT_NE(accepted.value("message", "").find("spec.template"), std::string::npos)
      << accepted.dump();
  EXPECT_TRUE(workloads(kube::resources::kPods, "deploy").empty());
  EXPECT_TRUE(waitForEvent("deploy", "InvalidSpec"));
}

}  // namespace
}  // namespace hetbench::controller::testing
