#include "hetbench/kube/leader_election.h"

#include <gtest/gtest.h>

#include <thread>

#include "fake_client.h"

namespace hetbench::kube {
namespace {

using namespace std::chrono_literals;
using testing::FakeKubeClient;

/// One replica: its own client (sharing the store), its elector and what its callbacks saw.
struct Replica {
  Replica(const std::string& identity, std::shared_ptr<testing::FakeStore> store,
          const common::Clock& clock)
      : client(std::move(store)),
        elector(client, clock,
                LeaderElectionConfig{.leaseNamespace = "hetbench",
                                     .leaseName = "hetbench-operator",
                                     .identity = identity},
                LeaderCallbacks{
                    .onStartedLeading = [this] { ++started; },
                    .onStoppedLeading = [this] { ++stopped; },
                    .onNewLeader = [this](const std::string& who) { leaders.push_back(who); }}) {}

  FakeKubeClient client;
  LeaderElector elector;
  int started = 0;
  int stopped = 0;
  std::vector<std::string> leaders;
};

nlohmann::json leaseSpec(FakeKubeClient& client) {
  auto lease = client.get(resources::kLeases, "hetbench", "hetbench-operator");
  EXPECT_TRUE(lease.isOk()) << lease.status().toString();
  return lease.isOk() ? (*lease)["spec"] : nlohmann::json();
}

// Verifies that a lone elector creates the Lease, leads, and renews it keeping acquireTime.
TEST(LeaderElector, SingleElectorAcquiresAndRenews) {
  common::FakeClock clock(common::WallTime(1'700'000'000s));
  Replica a("a", std::make_shared<testing::FakeStore>(), clock);
  a.elector.step();
  EXPECT_TRUE(a.elector.isLeader());
  EXPECT_EQ(a.started, 1);
  EXPECT_EQ(a.leaders, (std::vector<std::string>{"a"}));
  EXPECT_EQ(a.client.callCount("create"), 1);
  const nlohmann::json spec = leaseSpec(a.client);
  EXPECT_EQ(spec["holderIdentity"], "a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["acquireTime"], "2023-11-14T22:13:20.000000Z");
  EXPECT_EQ(spec["renewTime"], "2023-11-14T22:13:20.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);

  clock.advance(2s);
  a.elector.step();
  const nlohmann::json renewed = leaseSpec(a.client);
  EXPECT_EQ(renewed["acquireTime"], "2023-11-14T22:13:20.000000Z");
  EXPECT_EQ(renewed["renewTime"], "2023-11-14T22:13:22.000000Z");
  EXPECT_EQ(renewed["leaseTransitions"], 0);
  EXPECT_TRUE(a.elector.isLeader());
  EXPECT_EQ(a.started, 1);
  EXPECT_EQ(a.client.callCount("update"), 1);
}

// Verifies that of two electors on one Lease exactly one leads, round after round.
TEST(LeaderElector, TwoElectorsExactlyOneLeads) {
  common::FakeClock clock;
  auto store = std::make_shared<testing::FakeStore>();
  Replica a("a", store, clock);
  Replica b("b", store, clock);
  for (int round = 0; round < 20; ++round) {
    a.elector.step();
    b.elector.step();
    EXPECT_TRUE(a.elector.isLeader());
    EXPECT_FALSE(b.elector.isLeader());
    clock.advance(2s);
  }
  EXPECT_EQ(b.started, 0);
  EXPECT_EQ(b.leaders, (std::vector<std::string>{"a"}));
}

// Verifies that a leader whose updates fail stops leading within renewDeadline, and that the
// other replica takes over only once it has seen the Lease unchanged for leaseDuration.
TEST(LeaderElector, FailedRenewalsHandOver) {
  common::FakeClock clock;
  auto store = std::make_shared<testing::FakeStore>();
  Replica a("a", store, clock);
  Replica b("b", store, clock);
  a.elector.step();
  b.elector.step();
  ASSERT_TRUE(a.elector.isLeader());
  a.client.failNext("update", common::unavailableError("boom"), -1);
  const common::MonoTime lastRenewal = clock.monotonic();
  std::optional<std::chrono::nanoseconds> aStopped;
  std::optional<std::chrono::nanoseconds> bStarted;
  for (int round = 0; round < 15; ++round) {
    clock.advance(2s);
    a.elector.step();
    b.elector.step();
    const auto elapsed = clock.monotonic() - lastRenewal;
    EXPECT_FALSE(a.elector.isLeader() && b.elector.isLeader()) << "two leaders";
    if (!aStopped && a.stopped == 1) aStopped = elapsed;
    if (!bStarted && b.elector.isLeader()) bStarted = elapsed;
  }
  ASSERT_TRUE(aStopped.has_value());
  ASSERT_TRUE(bStarted.has_value());
  EXPECT_EQ(*aStopped, 10s);
  EXPECT_EQ(*bStarted, 16s);
  EXPECT_EQ(a.stopped, 1);
  EXPECT_EQ(b.started, 1);
  EXPECT_EQ(a.leaders, (std::vector<std::string>{"a", "b"}));
  const nlohmann::json spec = leaseSpec(b.client);
  EXPECT_EQ(spec["holderIdentity"], "b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
}

// Verifies that isLeader() turns false at renewDeadline by the clock alone, before any step.
TEST(LeaderElector, IsLeaderExpiresWithoutRenewal) {
  common::FakeClock clock;
  Replica a("a", std::make_shared<testing::FakeStore>(), clock);
  a.elector.step();
  clock.advance(10s - 1ns);
  EXPECT_TRUE(a.elector.isLeader());
  clock.advance(1ns);
  EXPECT_FALSE(a.elector.isLeader());
  EXPECT_EQ(a.stopped, 0);
}

// Verifies that stop() releases the Lease so that another replica acquires it at once.
TEST(LeaderElector, ReleaseOnStopLetsOtherAcquire) {
  common::FakeClock clock;
  auto store = std::make_shared<testing::FakeStore>();
  Replica a("a", store, clock);
  Replica b("b", store, clock);
  a.elector.step();
  b.elector.step();
  a.elector.stop();
  EXPECT_FALSE(a.elector.isLeader());
  EXPECT_EQ(a.stopped, 1);
  const nlohmann::json released = leaseSpec(a.client);
  EXPECT_EQ(released["holderIdentity"], "");
  EXPECT_EQ(released["leaseDurationSeconds"], 1);
  b.elector.step();
  EXPECT_TRUE(b.elector.isLeader());
  EXPECT_EQ(leaseSpec(b.client)["leaseTransitions"], 1);
  a.elector.step();
  EXPECT_FALSE(a.elector.isLeader());
  EXPECT_EQ(a.started, 1);
}

// Verifies that a Conflict on renewal keeps the leader within its deadline and the next round
// renews, while a Lease taken by someone else ends leadership at once.
TEST(LeaderElector, ConflictsOnRenewal) {
  common::FakeClock clock;
  Replica a("a", std::make_shared<testing::FakeStore>(), clock);
  a.elector.step();
  a.client.failNext("update", common::conflictError("the object has been modified"));
  clock.advance(2s);
  a.elector.step();
  EXPECT_TRUE(a.elector.isLeader());
  clock.advance(2s);
  a.elector.step();
  EXPECT_TRUE(a.elector.isLeader());
  EXPECT_EQ(leaseSpec(a.client)["renewTime"], "2023-11-14T22:13:24.000000Z");

  auto lease = a.client.get(resources::kLeases, "hetbench", "hetbench-operator");
  ASSERT_TRUE(lease.isOk());
  (*lease)["spec"]["holderIdentity"] = "intruder";
  ASSERT_TRUE(a.client.update(resources::kLeases, "hetbench", *lease).isOk());
  clock.advance(2s);
  a.elector.step();
  EXPECT_FALSE(a.elector.isLeader());
  EXPECT_EQ(a.stopped, 1);
  EXPECT_EQ(a.leaders.back(), "intruder");
}

// Verifies that an elector whose reads fail never leads.
TEST(LeaderElector, UnreachableServerNeverLeads) {
  common::FakeClock clock;
  Replica a("a", std::make_shared<testing::FakeStore>(), clock);
  a.client.failNext("get", common::unavailableError("down"), -1);
  for (int i = 0; i < 5; ++i) {
    a.elector.step();
    clock.advance(2s);
  }
  EXPECT_FALSE(a.elector.isLeader());
  EXPECT_EQ(a.client.callCount("create"), 0);
}

// Verifies that run() leads on a SystemClock and returns after stop(), releasing the Lease.
TEST(LeaderElector, RunUntilStop) {
  common::SystemClock clock;
  FakeKubeClient client;
  LeaderElector elector(
      client, clock,
      LeaderElectionConfig{
          .leaseNamespace = "hetbench", .leaseName = "lock", .identity = "a", .retryPeriod = 5ms},
      {});
  std::thread runner([&] { elector.run(); });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!elector.isLeader() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(elector.isLeader());
  elector.stop();
  runner.join();
  EXPECT_FALSE(elector.isLeader());
  auto lease = client.get(resources::kLeases, "hetbench", "lock");
  ASSERT_TRUE(lease.isOk());
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "");
}

}  // namespace
}  // namespace hetbench::kube
