// The hetbench-operator binary against kubesim: specs only the controller rejects, a crash and
// restart mid-run, two replicas with leader election, and shutdown on SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "operator_fixture.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Short lease timings, so that a take-over after a SIGKILL waits 3 s instead of 15 s.
const std::vector<std::string> kLeaderElection = {"--leader-elect",
                                                  "--leader-election-namespace",
                                                  "default",
                                                  "--leader-elect-lease-duration",
                                                  "3s",
                                                  "--leader-elect-renew-deadline",
                                                  "2s",
                                                  "--leader-elect-retry-period",
                                                  "500ms"};

// "" also while the Lease does not exist yet (lease() is null then).
std::string holder(const json& lease) {
  if (!lease.is_object()) return "";
  return lease.value("/spec/holderIdentity"_json_pointer, std::string());
}

// Verifies specs that the schema admits but the controller does not: each run Failed with
// Accepted=False naming the field, nothing created, and the operator still healthy and running
// a good run afterwards.
TEST_F(OperatorTest, SpecsOnlyTheControllerRejects) {
  OperatorProcess& op = startOperator();
  json duplicate = scriptSpec("true");
  duplicate["matrix"] = {{"gpus", {1, 4, "4"}}};
  json unknown = scriptSpec("echo $(params.batch)");
  const std::map<std::string, std::pair<json, std::string>> cases = {
      {"duplicate", {duplicate, "spec.matrix.gpus[2]: Duplicate value"}},
      {"unknown", {unknown, "spec.workload.command[2]"}},
  };
  for (const auto& [name, c] : cases) createRun(name, c.first);
  for (const auto& [name, c] : cases) {
    const json run = waitForPhase(name, "Failed");
    const json accepted = condition(run, "Accepted");
    EXPECT_EQ(accepted["status"], "False") << name;
    EXPECT_EQ(accepted["reason"], "InvalidSpec") << name;
    EXPECT_NE(accepted.value("message", "").find(c.second), std::string::npos)
        << name << ": " << accepted.dump();
    EXPECT_TRUE(workloads(kube::resources::kPods, name).empty()) << name;
    EXPECT_TRUE(waitForEvent(name, "InvalidSpec")) << name;
  }
  EXPECT_NE(condition(getRun("unknown"), "Accepted").value("message", "").find("batch"),
            std::string::npos);

  EXPECT_TRUE(op.running());
  EXPECT_EQ(op.readyz(), 200);
  createRun("good", scriptSpec("true"));
  waitForPhase("good", "Succeeded");
}

// Verifies two replicas with leader election: one holds the Lease and runs the controller;
// when it is killed the other takes over and runs the next run; no workload is created twice.
TEST_F(OperatorTest, LeaderElectionFailsOverToTheOtherReplica) {
  std::vector<OperatorProcess*> replicas = {&startOperator(kLeaderElection),
                                            &startOperator(kLeaderElection)};
  ASSERT_TRUE(eventually([&] { return !holder(lease()).empty(); }));
  createRun("first", scriptSpec("true"));
  waitForPhase("first", "Succeeded");
  // Events are written after the status, and best-effort: a leader killed in between loses them,
  // as controller-runtime's recorder would. The kill comes once they are written.
  ASSERT_TRUE(waitForEvent("first", "RunSucceeded"));

  const auto leading = [](OperatorProcess* p) { return p->logContains("leading: starting"); };
  ASSERT_EQ(std::count_if(replicas.begin(), replicas.end(), leading), 1);
  OperatorProcess* leader = leading(replicas[0]) ? replicas[0] : replicas[1];
  OperatorProcess* follower = leader == replicas[0] ? replicas[1] : replicas[0];
  const std::string firstHolder = holder(lease());
  leader->kill();

  // The follower waits out the lease the killed leader can no longer renew (3 s here).
  ASSERT_TRUE(eventually([&] { return holder(lease()) != firstHolder && leading(follower); }))
      << lease().dump(2);
  createRun("second", scriptSpec("true"));
  waitForPhase("second", "Succeeded");

  for (const std::string run : {"first", "second"}) {
    ASSERT_TRUE(waitForEvent(run, "RunSucceeded")) << run;  // written after its Created Events
    std::map<std::string, int> created;                     // message → Events
    for (const json& e : events(run)) {
      if (e.value("reason", "") != "Created") continue;
      created[e.value("message", "")] += 1;
      EXPECT_EQ(e.value("count", 0), 1) << e.dump();
    }
    ASSERT_EQ(created.size(), 1u) << run;
    EXPECT_EQ(created.begin()->second, 1) << created.begin()->first;
  }
}

// The lines of the one container log kept under a run's log directory, without timestamps.
std::vector<std::string> keptLines(const std::filesystem::path& runDir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(runDir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".log") continue;
    std::ifstream in(it->path());
    for (std::string line; std::getline(in, line);) out.push_back(line.substr(line.find(' ') + 1));
  }
  return out;
}

// Verifies issue 19's defect 10: a leader frozen past its lease (SIGSTOP, as a paused VM or a
// long stall would) and thawed once the other replica leads writes nothing more to the log
// volume both share, though its log stream had more lines waiting: the log the new leader
// finishes holds every line once, in order. The thawed replica exits, as it lost its lease.
TEST_F(OperatorTest, FrozenLeaderWritesNothingOnceItsLeaseHasPassed) {
  std::vector<OperatorProcess*> replicas = {&startOperator(kLeaderElection),
                                            &startOperator(kLeaderElection)};
  ASSERT_TRUE(eventually([&] { return !holder(lease()).empty(); }));
  const auto leading = [](OperatorProcess* p) { return p->logContains("leading: starting"); };
  ASSERT_TRUE(
      eventually([&] { return std::count_if(replicas.begin(), replicas.end(), leading) == 1; }));
  OperatorProcess* leader = leading(replicas[0]) ? replicas[0] : replicas[1];
  OperatorProcess* follower = leader == replicas[0] ? replicas[1] : replicas[0];
  const std::string firstHolder = holder(lease());

  constexpr int kLines = 160;  // 8 s at 20 lines a second
  const json run =
      createRun("paced", scriptSpec("i=1; while [ $i -le " + std::to_string(kLines) +
                                    " ]; do echo line $i; i=$((i+1)); sleep 0.05; done"));
  const std::filesystem::path runDir =
      logDir_ / "default/paced" / run["metadata"]["uid"].get<std::string>();
  ASSERT_TRUE(eventually([&] { return keptLines(runDir).size() >= 10; }));
  leader->pause();
  ASSERT_TRUE(eventually([&] { return holder(lease()) != firstHolder && leading(follower); }))
      << lease().dump(2);
  const std::size_t byTheFirst = keptLines(runDir).size();
  ASSERT_TRUE(eventually([&] { return keptLines(runDir).size() >= byTheFirst + 20; }))
      << "the new leader does not follow the log";
  leader->resume();
  EXPECT_TRUE(leader->waitUntil(std::chrono::steady_clock::now() + 15s).has_value())
      << "the thawed replica goes on as if it led";

  waitForPhase("paced", "Succeeded");
  std::vector<std::string> want;
  for (int i = 1; i <= kLines; ++i) want.push_back("line " + std::to_string(i));
  EXPECT_EQ(keptLines(runDir), want);
}

// Verifies issue 19's defect 10: a leader whose API server stops answering in time (every
// request now waits 10 s) can renew its lease no more, and exits (status 1) within its renew
// deadline (2 s) and the grace for its reconciles in progress (5 s), although its elector and
// workers still wait for answers: another replica may lead by then.
TEST_F(OperatorTest, LeaderThatCannotRenewExitsPromptly) {
  OperatorProcess& op = startOperator(kLeaderElection);
  ASSERT_TRUE(eventually([&] { return !holder(lease()).empty(); }));
  createRun("busy", scriptSpec("sleep 60"));
  ASSERT_TRUE(eventually([&] {
    return getRun("busy").value("/status/phase"_json_pointer, std::string()) == "Running";
  }));
  ASSERT_EQ(harness_.post("/kubesim/faults", {{"latencyMs", 10000}}).status, 200);
  const auto slowed = std::chrono::steady_clock::now();
  const std::optional<int> exited = op.waitUntil(slowed + 12s);
  const auto took = std::chrono::steady_clock::now() - slowed;
  ASSERT_EQ(harness_.post("/kubesim/faults", {{"latencyMs", 0}}).status, 200);
  ASSERT_TRUE(exited.has_value()) << "still running 12 s later\n" << op.output();
  EXPECT_TRUE(WIFEXITED(*exited) && WEXITSTATUS(*exited) == 1) << *exited << "\n" << op.output();
  RecordProperty("exit_seconds", std::to_string(std::chrono::duration<double>(took).count()));
}

// Verifies SIGTERM: the operator exits 0 promptly and releases the Lease it held.
TEST_F(OperatorTest, SigtermExitsAndReleasesTheLease) {
  OperatorProcess& op = startOperator(kLeaderElection);
  ASSERT_TRUE(eventually([&] { return !holder(lease()).empty(); }));
  createRun("before", scriptSpec("true"));
  waitForPhase("before", "Succeeded");
  EXPECT_EQ(op.terminate(10s), std::optional<int>(0));
  const json released = lease();
  ASSERT_TRUE(released.is_object()) << "the Lease is gone";
  EXPECT_EQ(holder(released), "") << released.dump(2);
  EXPECT_EQ(released.value("/spec/leaseDurationSeconds"_json_pointer, 0), 1);
}

}  // namespace
}  // namespace hetbench::controller::testing
