// The series reconciler in process, over the fake client: a configuration's history built from
// the judged trials of runs, once per trial across retries and restarts, and the Events of what
// it shows.
#include "hetbench/controller/series_reconciler.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/time.h"
#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using std::chrono::hours;

const common::WallTime kStart = common::parseRfc3339("2026-11-01T00:00:00Z").value();

class SeriesReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_.serve("hetbench.io/v1alpha1", "BenchmarkSeries", kBenchmarkSeries);
  }

  /// Run `name` (uid "uid-NAME"), accepted, whose trial t of `values` was judged `verdict`
  /// with effective_throughput values[t], completed `hour` hours after kStart on `node`.
  void addRun(const std::string& name, const std::vector<double>& values, int hour,
              const std::string& node = "gpu-1", const std::string& verdict = "Pass") {
    std::vector<int> gpus;
    for (std::size_t i = 0; i < values.size(); ++i) gpus.push_back(static_cast<int>(i) + 1);
    json run =
        RunBuilder(name)
            .benchmark("resnet50")
            .matrix({{"gpus", gpus}})
            .set("workload",
                 {{"image", "hetbench/train:1"},
                  {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", "$(params.gpus)"}}}})
            .obj();
    run["metadata"]["uid"] = "uid-" + name;
    run["metadata"]["annotations"][std::string(benchmark::kAcceptedSpecAnnotation)] =
        run["spec"].dump();
    benchmark::RunStatus status;
    for (std::size_t t = 0; t < values.size(); ++t) {
      benchmark::UnitRecord unit;
      unit.trial = static_cast<std::int64_t>(t);
      unit.phase = benchmark::UnitPhase::kSucceeded;
      unit.nodes = {node};
      unit.completionTime = kStart + hours(hour);
      status.trials.push_back(unit);
      benchmark::TrialResult result;
      result.trial = static_cast<std::int64_t>(t);
      result.verdict = verdict == "Invalid" ? results::Verdict::kInvalid : results::Verdict::kPass;
      result.repetitions = 3;
      result.metrics["effective_throughput"] = {{values[t], values[t] * 0.002, 0, 0, 3},
                                                "samples/s"};
      status.results.push_back(result);
    }
    run["status"] = benchmark::toJson(status);
    ASSERT_TRUE(client_.create(kBenchmarkRuns, "lab", run).isOk());
  }

  void reconcile(const std::string& run) {
    common::Result<ReconcileResult> result = reconciler_.reconcile("lab", run);
    ASSERT_TRUE(result.isOk()) << result.status().message();
  }

  /// The series of the trial with `gpus` GPUs.
  benchmark::SeriesStatus series(int gpus) {
    for (const json& s : client_.objects(kBenchmarkSeries)) {
      if (s["spec"]["configuration"]["accelerators"] == std::to_string(gpus)) {
        return benchmark::seriesStatusFromJson(s["status"]);
      }
    }
    ADD_FAILURE() << "no series for " << gpus << " GPUs";
    return {};
  }

  std::vector<std::string> eventReasons() const {
    std::vector<std::string> out;
    for (const auto& e : events_.events()) out.push_back(e.reason);
    return out;
  }

  kube::testing::FakeKubeClient client_;
  StoreCache cache_{client_};
  RecordingEvents events_;
  SeriesReconciler reconciler_{client_, cache_, events_};
};

TEST_F(SeriesReconcilerTest, EachConfigurationGetsOneSeriesAndEachTrialOnePointOnce) {
  addRun("a", {1000, 1900}, 0);
  reconcile("a");
  const std::vector<json> created = client_.objects(kBenchmarkSeries);
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(created[0]["spec"]["metric"], "effective_throughput");
  EXPECT_EQ(created[0]["spec"]["configuration"]["benchmark"], "resnet50");
  EXPECT_EQ(series(1).points.size(), 1u);
  EXPECT_EQ(series(2).points.at(0).value, 1900);
  EXPECT_EQ(series(2).points.at(0).nodes, std::vector<std::string>{"gpu-1"});
  EXPECT_EQ(series(2).points.at(0).image, "hetbench/train:1");
  EXPECT_EQ(series(2).state, "InsufficientHistory");

  // Again, and in a restarted process: nothing to add, nothing written.
  const int writes = client_.callCount("updateStatus");
  reconcile("a");
  SeriesReconciler restarted(client_, cache_, events_);
  ASSERT_TRUE(restarted.reconcile("lab", "a").isOk());
  EXPECT_EQ(client_.callCount("updateStatus"), writes);
  EXPECT_EQ(series(1).points.size(), 1u);

  addRun("b", {1010, 1910}, 1);
  reconcile("b");
  EXPECT_EQ(series(1).points.size(), 2u);
  EXPECT_EQ(series(1).points.back().run, "b");
}

/// The store's runs, but none while `hidden`: an informer's cache during a relist.
class HidingCache final : public RunCache {
 public:
  explicit HidingCache(const RunCache& inner) : inner_(inner) {}
  std::optional<json> run(const std::string& ns, const std::string& name) const override {
    return hidden ? std::nullopt : inner_.run(ns, name);
  }
  std::vector<json> runs(const std::string& ns) const override { return inner_.runs(ns); }
  std::vector<json> pods(const std::string& ns, const std::string& run) const override {
    return inner_.pods(ns, run);
  }
  std::vector<json> jobs(const std::string& ns, const std::string& run) const override {
    return inner_.jobs(ns, run);
  }
  std::vector<json> ipuJobs(const std::string& ns, const std::string& run) const override {
    return inner_.ipuJobs(ns, run);
  }
  bool hidden = false;

 private:
  const RunCache& inner_;
};

TEST_F(SeriesReconcilerTest, ARunTheCacheLostForAWhileIsReadFromItsSeriesNotAddedAgain) {
  HidingCache cache(cache_);
  SeriesReconciler reconciler(client_, cache, events_);
  addRun("a", {1000}, 0);
  ASSERT_TRUE(reconciler.reconcile("lab", "a").isOk());
  cache.hidden = true;
  ASSERT_TRUE(reconciler.reconcile("lab", "a").isOk());  // gone: forgotten
  cache.hidden = false;
  const int writes = client_.callCount("updateStatus");
  const int reads = client_.callCount("get");
  ASSERT_TRUE(reconciler.reconcile("lab", "a").isOk());
  EXPECT_EQ(client_.callCount("get"), reads + 1);  // the series, read again
  EXPECT_EQ(client_.callCount("updateStatus"), writes);
  EXPECT_EQ(series(1).points.size(), 1u);
}

TEST_F(SeriesReconcilerTest, AConflictOrAnOutageLosesNoPointAndAddsNoneTwice) {
  addRun("a", {1000}, 0);
  client_.failNext("updateStatus", common::Status(common::StatusCode::kConflict, "stale"));
  EXPECT_FALSE(reconciler_.reconcile("lab", "a").isOk());
  client_.failNext("get", common::Status(common::StatusCode::kUnavailable, "down"));
  EXPECT_FALSE(reconciler_.reconcile("lab", "a").isOk());
  reconcile("a");
  EXPECT_EQ(series(1).points.size(), 1u);
  reconcile("a");
  EXPECT_EQ(series(1).points.size(), 1u);
}

TEST_F(SeriesReconcilerTest, ASlowTrialIsSuspectAndAStepAChangePointWithWhatChanged) {
  const double level[] = {1000, 1004, 997, 1001, 999, 1003, 996, 1002, 998, 1000};
  for (int i = 0; i < 10; ++i) {
    addRun("r" + std::to_string(i), {level[i]}, i);
    reconcile("r" + std::to_string(i));
  }
  EXPECT_EQ(series(1).state, "WithinNoise");
  EXPECT_TRUE(eventReasons().empty());

  addRun("slow", {900}, 10, "gpu-2");
  reconcile("slow");
  EXPECT_EQ(series(1).state, "Suspect");
  ASSERT_EQ(eventReasons(), std::vector<std::string>{"TrialSuspect"});
  EXPECT_EQ(events_.events()[0].type, kube::EventType::kWarning);
  EXPECT_NE(events_.events()[0].message.find("run slow trial 0: effective_throughput 900.0 is"),
            std::string::npos)
      << events_.events()[0].message;

  for (int i = 11; i < 17; ++i) {
    addRun("r" + std::to_string(i), {level[i % 10] * 0.9}, i, "gpu-2");
    reconcile("r" + std::to_string(i));
  }
  const benchmark::SeriesStatus status = series(1);
  ASSERT_EQ(status.changes.size(), 1u);
  EXPECT_EQ(status.changes[0].run, "slow");
  EXPECT_EQ(status.changes[0].changed, std::vector<std::string>{"nodes: gpu-1 -> gpu-2"});
  const RecordingEvents::Event last = events_.events().back();
  EXPECT_EQ(last.reason, "ChangePoint");
  EXPECT_EQ(last.type, kube::EventType::kWarning);
  EXPECT_NE(last.message.find("effective_throughput changed by -9.9% at run slow"),
            std::string::npos)
      << last.message;
  EXPECT_NE(last.message.find("; nodes: gpu-1 -> gpu-2"), std::string::npos) << last.message;
}

TEST_F(SeriesReconcilerTest, AnInvalidTrialIsKeptButNeverJudged) {
  for (int i = 0; i < 8; ++i) {
    addRun("r" + std::to_string(i), {1000.0 + i % 3}, i);
    reconcile("r" + std::to_string(i));
  }
  addRun("throttled", {600}, 9, "gpu-1", "Invalid");
  reconcile("throttled");
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.points.back().verdict, "Invalid");
  EXPECT_EQ(status.state, "WithinNoise");
  EXPECT_NE(status.latest, 600);
  EXPECT_TRUE(eventReasons().empty());
}

TEST_F(SeriesReconcilerTest, WithoutTheCrdThereIsNoSeriesAndNoError) {
  addRun("a", {1000}, 0);
  json run = client_.objects(kBenchmarkRuns).at(0);
  run["metadata"].erase("resourceVersion");
  kube::testing::FakeKubeClient bare;  // discovery serves no BenchmarkSeries
  StoreCache cache{bare};
  SeriesReconciler reconciler{bare, cache, events_};
  ASSERT_TRUE(bare.create(kBenchmarkRuns, "lab", run).isOk());
  EXPECT_TRUE(reconciler.reconcile("lab", "a").isOk());
  EXPECT_TRUE(reconciler.reconcile("lab", "missing").isOk());
  EXPECT_TRUE(bare.objects(kBenchmarkSeries).empty());
}

}  // namespace
}  // namespace hetbench::controller::testing
