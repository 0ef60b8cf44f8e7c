// The operator under faults (issue 19, "a fault suite that proves it"): the real binary against
// kubesim's fault injection, asserting outcomes (each workload created once, every result kept,
// the verdict a quiet run gets) rather than the absence of a crash. Label `chaos`.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "operator_fixture.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr int kTrials = 20;
constexpr int kRepetitions = 2;
constexpr int kKills = 6;

/// A unit that trains for two seconds and reports 1000 samples in 10 s per epoch (100 samples/s
/// once the warm-up epoch is left out).
std::string trainingScript() {
  std::string script =
      "sleep 2; echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
      "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":32,"
      "\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\",\"count\":1}}';";
  for (int e = 0; e < 3; ++e) {
    script += "echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":" + std::to_string(e) +
              ",\"rank\":0,\"samples\":1000,\"wall_seconds\":10,\"io_seconds\":1,"
              "\"compute_seconds\":9}';";
  }
  return script + "echo ':::HETBENCH {\"v\":1,\"event\":\"run_end\",\"rank\":0,\"status\":\"ok\"}'";
}

// Verifies a 40-unit matrix with parallelism 4 while the operator is killed with SIGKILL six
// times, about two seconds apart, and the API server fails bursts of requests with 503 and 429 and
// drops every watch in between: every unit's workload is created exactly once (the pods' uids
// seen by a watch that resumes across the drops), never more than four run at once, every
// unit's result is in the status, and every trial and the run are judged Pass at 100 samples/s,
// as a quiet run is.
TEST_F(OperatorTest, KilledOperatorAndFlakyApiRepeatNothingAndLoseNothing) {
  json values = json::array();
  for (int i = 1; i <= kTrials; ++i) values.push_back(i);
  json spec = scriptSpec(trainingScript());
  spec["benchmark"] = "resnet50";
  spec["matrix"] = {{"n", values}};
  spec["repetitions"] = kRepetitions;
  spec["parallelism"] = 4;
  spec["references"] = {{"effective_throughput", {{"value", 100}, {"lower", 0.05}}}};
  PodWatch watch(*client_, "chaos");
  createRun("chaos", spec);

  const json faults[] = {
      {{"failRequests", {{"count", 10}, {"code", 503}, {"retryAfterSeconds", 1}}}},
      {{"closeWatches", true}},
      {{"failRequests", {{"count", 10}, {"code", 429}, {"retryAfterSeconds", 1}}}},
      {{"failRequests", {{"count", 5}, {"code", 500}}}},
  };
  for (int kill = 0; kill < kKills; ++kill) {
    OperatorProcess& op = startOperator();
    std::this_thread::sleep_for(1s);
    ASSERT_EQ(harness_.post("/kubesim/faults", faults[kill % std::size(faults)]).status, 200);
    std::this_thread::sleep_for(1s);
    op.kill();
    // Read past the faults' bursts, which may outlast one request's retries.
    std::string phase;
    ASSERT_TRUE(eventually([&] {
      common::Result<json> now = client_->get(kRuns, "default", "chaos");
      if (now.isOk()) phase = now.value().value("/status/phase"_json_pointer, std::string());
      return now.isOk();
    }));
    ASSERT_NE(phase, "Succeeded") << "the run ended before kill " << kill + 1 << " of " << kKills;
  }
  startOperator();
  const json run = waitForPhase("chaos", "Succeeded");

  const json& units = run["status"]["trials"];
  ASSERT_EQ(units.size(), static_cast<std::size_t>(kTrials * kRepetitions)) << run.dump(2);
  std::set<std::string> names;
  for (const json& unit : units) {
    EXPECT_EQ(unit.value("phase", ""), "Succeeded") << unit.dump();
    EXPECT_EQ(unit.value("/metrics/values/effective_throughput"_json_pointer, 0.0), 100.0)
        << unit.dump();
    names.insert(unit.value("/workload/name"_json_pointer, std::string()));
  }
  ASSERT_EQ(run["status"]["results"].size(), static_cast<std::size_t>(kTrials));
  for (const json& result : run["status"]["results"]) {
    EXPECT_EQ(result.value("verdict", ""), "Pass") << result.dump();
    EXPECT_EQ(result.value("/metrics/effective_throughput/n"_json_pointer, 0), kRepetitions);
  }
  EXPECT_EQ(run["status"]["verdict"], "Pass");

  EXPECT_TRUE(eventually([&] { return watch.uidsByName().size() >= names.size(); }));
  EXPECT_TRUE(watch.intact()) << "the pod watch lost history: duplicates may be unseen";
  std::set<std::string> seen;
  for (const auto& [name, uids] : watch.uidsByName()) {
    seen.insert(name);
    EXPECT_EQ(uids.size(), 1u) << name << " was created " << uids.size() << " times";
  }
  EXPECT_EQ(seen, names);
  EXPECT_LE(watch.maxUnfinished(), 4) << "more units ran at once than parallelism allows";
}

// Verifies hostile workloads: one prints 200 MB without a newline, one 20 MB of random bytes,
// one 500,000 short lines as fast as it can. The operator's peak resident memory stays under
// 64 MiB (the Deployment's limit is 512 MiB), it never restarts, every run ends as its workload
// did, and each log is kept within its bounds: the endless line cut once at 64 KiB with a
// marker, every line of the flood.
TEST_F(OperatorTest, HostileWorkloadsDoNotGrowTheOperator) {
  OperatorProcess& op = startOperator();
  const std::pair<const char*, const char*> workloads[] = {
      {"endless-line", "head -c 200000000 /dev/zero | tr '\\0' x"},
      {"binary", "head -c 20000000 /dev/urandom"},
      {"flood", "seq 1 500000"},
  };
  for (const auto& [name, script] : workloads) createRun(name, scriptSpec(script));
  for (const auto& [name, script] : workloads) {
    const json run = waitForPhase(name, "Succeeded");
    EXPECT_EQ(run.value("/status/trials/0/phase"_json_pointer, std::string()), "Succeeded") << name;
  }
  const long peak = op.peakResidentKiB();
  RecordProperty("operator_peak_rss_kib", std::to_string(peak));
  EXPECT_TRUE(op.running()) << op.output();
  EXPECT_GT(peak, 0);
  EXPECT_LT(peak, 64 * 1024) << "peak resident memory of the operator, KiB";
  // What each log kept: the endless line cut once at 64 KiB with a marker, every line of the
  // others.
  std::map<std::string, std::string> kept;  // run → its one container log
  for (const auto& entry : std::filesystem::recursive_directory_iterator(logDir_)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::filesystem::path relative = entry.path().lexically_relative(logDir_);
    kept[std::next(relative.begin())->string()] = text.str();  // default/RUN/UID/...
  }
  const std::string& endless = kept["endless-line"];
  EXPECT_LT(endless.size(), 70'000u);
  EXPECT_NE(endless.find("[hetbench: line cut at 65536 bytes]"), std::string::npos);
  EXPECT_GT(kept["binary"].size(), 20'000'000u);
  EXPECT_EQ(std::count(kept["flood"].begin(), kept["flood"].end(), '\n'), 500'000);
  EXPECT_NE(kept["flood"].find(" 500000\n"), std::string::npos);
}

/// The pods of a run that hold a node: those not yet Succeeded or Failed.
std::vector<std::string> holdingPods(const std::vector<json>& pods) {
  std::vector<std::string> out;
  for (const json& pod : pods) {
    const std::string phase = pod.value("/status/phase"_json_pointer, std::string());
    if (phase != "Succeeded" && phase != "Failed")
      out.push_back(pod.value("/metadata/name"_json_pointer, std::string()) + " (" + phase + ")");
  }
  return out;
}

// Verifies that no unit holds its nodes past its deadline, whatever stops it and whichever
// cleanup it asks for: a Pod past its timeLimit under onFailure Delete, a Job past it under
// Retain (suspended, kept for inspection), a Pod that can never be scheduled past its
// startTimeout, a Job whose pods crash and are replaced until its timeLimit, and a run
// cancelled with suspend. A few seconds after each deadline no pod of theirs is pending or
// running, and the retained Job is kept, suspended.
TEST_F(OperatorTest, NoUnitHoldsItsNodesPastItsDeadline) {
  startOperator();
  json timedOut = scriptSpec("sleep 60");
  timedOut["timeLimit"] = "2s";
  timedOut["cleanup"] = {{"onFailure", "Delete"}};
  json retained = scriptSpec("sleep 60");
  retained["workload"]["kind"] = "Job";
  retained["timeLimit"] = "2s";
  json unschedulable = scriptSpec("true");
  unschedulable["workload"]["nodeSelector"] = {{"hetbench.io/no-such-node", "x"}};
  unschedulable["startTimeout"] = "2s";
  json crashing = scriptSpec("exit 1");
  crashing["workload"]["kind"] = "Job";
  crashing["workload"]["backoffLimit"] = 1000;
  crashing["timeLimit"] = "3s";
  json cancelled = scriptSpec("sleep 60");
  const std::pair<const char*, json> runs[] = {{"timed-out", timedOut},
                                               {"retained", retained},
                                               {"unschedulable", unschedulable},
                                               {"crashing", crashing},
                                               {"cancelled", cancelled}};
  for (const auto& [name, spec] : runs) createRun(name, spec);
  ASSERT_TRUE(eventually([&] { return !workloads(kube::resources::kPods, "cancelled").empty(); }));
  const json suspend = {{"spec", {{"suspend", true}}}};
  ASSERT_TRUE(
      client_->patch(kRuns, "default", "cancelled", kube::PatchType::kMerge, suspend).isOk());

  for (const auto& [name, spec] : runs) {
    const json run = waitForPhase(name, name == std::string("cancelled") ? "Cancelled" : "Failed");
    std::vector<std::string> holding;
    EXPECT_TRUE(eventually(
        [&] {
          holding = holdingPods(workloads(kube::resources::kPods, name));
          return holding.empty();
        },
        5s))
        << name << " still holds nodes: " << ::testing::PrintToString(holding) << "\n"
        << run.dump(2);
  }
  const std::vector<json> jobs = workloads(kube::resources::kJobs, "retained");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].value("/spec/suspend"_json_pointer, false)) << jobs[0].dump(2);
  EXPECT_EQ(jobs[0].value("/metadata/labels/hetbench.io~1retained"_json_pointer, std::string()),
            "true");
  for (const char* name : {"timed-out", "retained", "crashing"}) {
    EXPECT_EQ(getRun(name).value("/status/trials/0/phase"_json_pointer, std::string()), "TimedOut")
        << name;
  }
  EXPECT_EQ(getRun("unschedulable").value("/status/trials/0/reason"_json_pointer, std::string()),
            "Unschedulable");
}

}  // namespace
}  // namespace hetbench::controller::testing
