// The schedule reconciler in process, over the fake client and a FakeClock, with a cache the
// test controls: what a real informer shows a moment after the controller's own writes.
#include "hetbench/controller/schedule_reconciler.h"

#include <gtest/gtest.h>

#include "hetbench/common/time.h"
#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;

/// A cache that shows the schedule as stored but the runs only as the test lets it.
class LaggingCache final : public ScheduleCache {
 public:
  explicit LaggingCache(kube::KubeClient& client) : client_(client) {}
  std::optional<json> schedule(const std::string& ns, const std::string& name) const override {
    common::Result<json> got = client_.get(kBenchmarkSchedules, ns, name);
    if (!got.isOk()) return std::nullopt;
    return got.value();
  }
  std::vector<json> scheduledRuns(const std::string&, const std::string&) const override {
    return runs;
  }
  std::vector<json> runs;  // what the informer has delivered so far

 private:
  kube::KubeClient& client_;
};

class ScheduleReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_.setWall(common::parseRfc3339("2026-11-25T10:00:30Z").value());
    json run = RunBuilder("unused").obj();
    const json schedule = {
        {"apiVersion", "hetbench.io/v1alpha1"},
        {"kind", "BenchmarkSchedule"},
        {"metadata",
         {{"name", "nightly"}, {"creationTimestamp", common::formatRfc3339(clock_.now())}}},
        {"spec",
         {{"schedule", "* * * * *"},
          {"concurrencyPolicy", "Forbid"},
          {"runTemplate", {{"spec", run["spec"]}}}}}};
    ASSERT_TRUE(client_.create(kBenchmarkSchedules, "lab", schedule).isOk());
  }
  std::size_t runCount() const { return client_.objects(kBenchmarkRuns).size(); }

  kube::testing::FakeKubeClient client_;
  LaggingCache cache_{client_};
  common::FakeClock clock_;
  RecordingEvents events_;
  ScheduleReconciler reconciler_{client_, cache_, clock_, events_};
};

// Verifies Forbid when the cache has not yet seen the run that the previous slot created: the
// next slot waits rather than starting a second run beside it (issue 19, the race behind the
// flaky ForbidWaitsForTheActiveRun).
TEST_F(ScheduleReconcilerTest, ForbidHoldsBeforeTheCacheSeesTheActiveRun) {
  clock_.advance(31s);  // 10:01:01, the first slot
  ASSERT_TRUE(reconciler_.reconcile("lab", "nightly").isOk());
  ASSERT_EQ(runCount(), 1u);
  clock_.advance(60s);  // the next slot, the first run still going and not in the cache
  ASSERT_TRUE(reconciler_.reconcile("lab", "nightly").isOk());
  EXPECT_EQ(runCount(), 1u) << "two runs share the accelerators that Forbid protects";
  EXPECT_EQ(events_.count("RunAlreadyActive"), 1);
}

}  // namespace
}  // namespace hetbench::controller::testing
