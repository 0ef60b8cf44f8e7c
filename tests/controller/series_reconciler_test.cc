// The series reconciler in process, over the fake client: a configuration's history built from
// the judged trials of runs, once per trial across retries and restarts, and the Events of what
// it shows.
#include "hetbench/controller/series_reconciler.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

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
              const std::string& node = "gpu-1", const std::string& verdict = "Pass",
              const json& confirm = nullptr) {
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
    if (!confirm.is_null()) run["spec"]["confirm"] = confirm;
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
      result.parameters = {{"gpus", std::to_string(t + 1)}};
      result.verdict = verdict == "Invalid" ? results::Verdict::kInvalid : results::Verdict::kPass;
      result.repetitions = 3;
      result.metrics["effective_throughput"] = {{values[t], values[t] * 0.002, 0, 0, 3},
                                                "samples/s"};
      status.results.push_back(result);
    }
    run["status"] = benchmark::toJson(status);
    ASSERT_TRUE(client_.create(kBenchmarkRuns, "lab", run).isOk());
  }

  /// Ends rerun `name` (created by the reconciler) as Succeeded with `value` on `node`, as the
  /// run controller would, and reconciles it.
  void finishRerun(const std::string& name, double value, const std::string& node) {
    common::Result<json> run = client_.get(kBenchmarkRuns, "lab", name);
    ASSERT_TRUE(run.isOk()) << name << ": " << run.status().message();
    json object = std::move(run).value();
    benchmark::RunStatus status;
    status.phase = "Succeeded";
    benchmark::UnitRecord unit;
    unit.phase = benchmark::UnitPhase::kSucceeded;
    unit.nodes = {node};
    unit.completionTime = clock_.now();
    status.trials.push_back(unit);
    benchmark::TrialResult result;
    result.verdict = results::Verdict::kPass;
    result.repetitions = 3;
    result.metrics["effective_throughput"] = {{value, value * 0.002, 0, 0, 3}, "samples/s"};
    status.results.push_back(result);
    object["status"] = benchmark::toJson(status);
    ASSERT_TRUE(client_.updateStatus(kBenchmarkRuns, "lab", object).isOk());
    reconcile(name);
  }

  /// Ten stable runs of one GPU, then run "slow" at `value` on gpu-1, whose spec asks for
  /// confirmation reruns.
  void suspectAfterTenRuns(double value, const json& confirm = json::object()) {
    const double level[] = {1000, 1004, 997, 1001, 999, 1003, 996, 1002, 998, 1000};
    for (int i = 0; i < 10; ++i) {
      addRun("r" + std::to_string(i), {level[i]}, i);
      reconcile("r" + std::to_string(i));
    }
    addRun("slow", {value}, 10, "gpu-1", "Pass", confirm);
    reconcile("slow");
  }

  std::vector<std::string> runNames() const {
    std::vector<std::string> out;
    for (const json& run : client_.objects(kBenchmarkRuns)) {
      out.push_back(run["metadata"]["name"].get<std::string>());
    }
    return out;
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
  common::FakeClock clock_{kStart};
  SeriesReconciler reconciler_{client_, cache_, clock_, events_};
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
  SeriesReconciler restarted(client_, cache_, clock_, events_);
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
  SystemLookup system(const std::string& name) const override { return inner_.system(name); }
  bool hidden = false;

 private:
  const RunCache& inner_;
};

TEST_F(SeriesReconcilerTest, ARunTheCacheLostForAWhileIsReadFromItsSeriesNotAddedAgain) {
  HidingCache cache(cache_);
  SeriesReconciler reconciler(client_, cache, clock_, events_);
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
  SeriesReconciler reconciler{bare, cache, clock_, events_};
  ASSERT_TRUE(bare.create(kBenchmarkRuns, "lab", run).isOk());
  EXPECT_TRUE(reconciler.reconcile("lab", "a").isOk());
  EXPECT_TRUE(reconciler.reconcile("lab", "missing").isOk());
  EXPECT_TRUE(bare.objects(kBenchmarkSeries).empty());
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_F(SeriesReconcilerTest, ASuspectTrialIsRerunOnItsNodeAndOnAnotherOfItsPlacement) {
  suspectAfterTenRuns(900);
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "Confirming");
  ASSERT_TRUE(status.confirmation.has_value());
  const benchmark::SeriesConfirmation& c = *status.confirmation;
  EXPECT_EQ(c.run, "slow");
  EXPECT_EQ(c.suspect, 900);
  EXPECT_EQ(c.nodes, std::vector<std::string>{"gpu-1"});
  EXPECT_EQ(c.baseline.size(), 10u);
  ASSERT_EQ(c.reruns.size(), 2u);
  const std::string seriesName = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  EXPECT_EQ(c.reruns[0].name, seriesName + "-c1-s1");
  EXPECT_EQ(c.reruns[1].name, seriesName + "-c1-o1");
  EXPECT_EQ(eventReasons(), (std::vector<std::string>{"TrialSuspect", "Confirming", "Confirming"}));

  const json same = client_.get(kBenchmarkRuns, "lab", seriesName + "-c1-s1").value();
  EXPECT_EQ(same["metadata"]["labels"]["hetbench.io/series"], seriesName);
  EXPECT_EQ(same["metadata"]["labels"]["hetbench.io/confirms"], "slow");
  EXPECT_EQ(same["metadata"]["labels"]["hetbench.io/placement"], "same");
  EXPECT_EQ(same["metadata"]["ownerReferences"][0]["kind"], "BenchmarkSeries");
  EXPECT_EQ(same["spec"]["matrix"], json({{"gpus", {"1"}}}));
  EXPECT_FALSE(same["spec"].contains("confirm"));
  const json term = same["spec"]["workload"]["affinity"]["nodeAffinity"]
                        ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0];
  EXPECT_EQ(term["matchExpressions"][0],
            json({{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {"gpu-1"}}}));
  const json other = client_.get(kBenchmarkRuns, "lab", seriesName + "-c1-o1").value();
  EXPECT_EQ(other["spec"]["workload"]["affinity"]["nodeAffinity"]
                 ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
                 ["matchExpressions"][0]["operator"],
            "NotIn");

  // Reconciled again, nothing new is started or created.
  const std::size_t runs = client_.objects(kBenchmarkRuns).size();
  reconcile("slow");
  EXPECT_EQ(client_.objects(kBenchmarkRuns).size(), runs);
}

// Against ten stable trials, a sample needs three values below them all to give p <= 0.01 (2 of
// C(13, 3) = 286 orders): the suspect and two reruns on its node, three reruns on others.
TEST_F(SeriesReconcilerTest, SlowOnEveryNodeIsAConfirmedRegression) {
  suspectAfterTenRuns(900);
  const std::string name = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  finishRerun(name + "-c1-s1", 902, "gpu-1");
  EXPECT_EQ(series(1).state, "Confirming");
  EXPECT_FALSE(has(runNames(), name + "-c1-s2"));  // the round's other rerun is still running
  finishRerun(name + "-c1-o1", 903, "gpu-2");
  EXPECT_EQ(series(1).confirmation->same, "Undecided");
  EXPECT_TRUE(has(runNames(), name + "-c1-s2"));
  EXPECT_TRUE(has(runNames(), name + "-c1-o2"));
  finishRerun(name + "-c1-s2", 901, "gpu-1");
  finishRerun(name + "-c1-o2", 899, "gpu-3");
  EXPECT_EQ(series(1).confirmation->same, "Different");
  EXPECT_EQ(series(1).confirmation->other, "Undecided");
  EXPECT_TRUE(has(runNames(), name + "-c1-o3"));
  EXPECT_FALSE(has(runNames(), name + "-c1-s3"));  // decided there
  finishRerun(name + "-c1-o3", 904, "gpu-2");
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "Regressed");
  EXPECT_EQ(status.confirmation->state, "Regressed");
  EXPECT_EQ(status.confirmation->other, "Different");
  EXPECT_TRUE(status.confirmation->completionTime.has_value());
  EXPECT_NE(status.message.find("confirmed"), std::string::npos) << status.message;
  const RecordingEvents::Event last = events_.events().back();
  EXPECT_EQ(last.reason, "Regressed");
  EXPECT_EQ(last.type, kube::EventType::kWarning);
  EXPECT_NE(last.message.find("series " + name + ": run slow trial 0"), std::string::npos)
      << last.message;

  // The regression stands: a later slow trial starts no new confirmation.
  addRun("later", {901}, 11, "gpu-1", "Pass", json::object());
  reconcile("later");
  EXPECT_EQ(series(1).state, "Regressed");
  EXPECT_EQ(series(1).confirmation->number, 1);
  EXPECT_TRUE(series(1).confirmation->standing);

  // Fixed: a trial back at the old level ends it, and a new slowdown is confirmed anew.
  addRun("fixed", {1001}, 12, "gpu-1", "Pass", json::object());
  reconcile("fixed");
  EXPECT_EQ(series(1).state, "WithinNoise");
  EXPECT_FALSE(series(1).confirmation->standing);
  addRun("again", {880}, 13, "gpu-1", "Pass", json::object());
  reconcile("again");
  EXPECT_EQ(series(1).state, "Confirming");
  EXPECT_EQ(series(1).confirmation->number, 2);
  EXPECT_TRUE(has(runNames(), name + "-c2-s1"));
}

TEST_F(SeriesReconcilerTest, SlowOnlyOnItsNodeIsNodeSuspect) {
  suspectAfterTenRuns(900);
  const std::string name = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  finishRerun(name + "-c1-s1", 901, "gpu-1");
  finishRerun(name + "-c1-o1", 1001, "gpu-2");
  finishRerun(name + "-c1-s2", 899, "gpu-1");
  finishRerun(name + "-c1-o2", 999, "gpu-3");
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "NodeSuspect");
  EXPECT_EQ(status.confirmation->other, "Same");
  const RecordingEvents::Event last = events_.events().back();
  EXPECT_EQ(last.reason, "NodeSuspect");
  EXPECT_NE(last.message.find("slow on gpu-1 only"), std::string::npos) << last.message;
}

TEST_F(SeriesReconcilerTest, ASuspectTheRerunsDoNotRepeatIsNotConfirmed) {
  suspectAfterTenRuns(900);
  const std::string name = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  finishRerun(name + "-c1-s1", 1000, "gpu-1");
  finishRerun(name + "-c1-o1", 1001, "gpu-2");
  EXPECT_EQ(series(1).state, "Confirming");  // 900 and 1000: undecided, a second round
  finishRerun(name + "-c1-s2", 1002, "gpu-1");
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "NotConfirmed");
  EXPECT_EQ(events_.events().back().type, kube::EventType::kNormal);
  // The rerun still under way is not needed any more: suspended, so that it frees its GPUs.
  json pending = client_.get(kBenchmarkRuns, "lab", name + "-c1-o2").value();
  EXPECT_EQ(pending["spec"].value("suspend", false), true);
  EXPECT_EQ(
      client_.get(kBenchmarkRuns, "lab", name + "-c1-s2").value()["spec"].value("suspend", false),
      false);  // ended: left alone
  // A rerun that ends after the verdict changes nothing.
  finishRerun(name + "-c1-o2", 1000, "gpu-3");
  EXPECT_EQ(series(1).confirmation->state, "NotConfirmed");
}

TEST_F(SeriesReconcilerTest, ARerunNoConfirmationWaitsForIsSuspendedWhenItIsSeen) {
  suspectAfterTenRuns(900);
  const std::string name = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  // The series' confirmation is gone (edited by hand): a rerun that shows up is stopped.
  json object = client_.objects(kBenchmarkSeries).at(0);
  object["status"].erase("confirmation");
  ASSERT_TRUE(client_.updateStatus(kBenchmarkSeries, "lab", object).isOk());
  reconcile(name + "-c1-s1");
  EXPECT_EQ(client_.get(kBenchmarkRuns, "lab", name + "-c1-s1").value()["spec"]["suspend"], true);
  const int writes = client_.callCount("update");
  reconcile(name + "-c1-s1");  // suspended already: nothing more
  EXPECT_EQ(client_.callCount("update"), writes);
}

TEST_F(SeriesReconcilerTest, RerunsAreCappedAndAFailedOneOnOtherNodesLeavesTheSameNodesToDecide) {
  suspectAfterTenRuns(900, {{"reruns", 1}});
  const std::string name = client_.objects(kBenchmarkSeries).at(0)["metadata"]["name"];
  finishRerun(name + "-c1-s1", 1000, "gpu-1");  // 900 and 1000: undecided
  json failed = client_.get(kBenchmarkRuns, "lab", name + "-c1-o1").value();
  failed["status"] = {{"phase", "Failed"}};
  ASSERT_TRUE(client_.updateStatus(kBenchmarkRuns, "lab", failed).isOk());
  reconcile(name + "-c1-o1");
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "Inconclusive");
  EXPECT_NE(status.confirmation->message.find("undecided after 1 rerun(s)"), std::string::npos)
      << status.confirmation->message;
}

TEST_F(SeriesReconcilerTest, WithoutConfirmASuspectTrialIsOnlyReported) {
  suspectAfterTenRuns(900, nullptr);
  EXPECT_EQ(series(1).state, "Suspect");
  EXPECT_FALSE(series(1).confirmation.has_value());
  EXPECT_EQ(client_.objects(kBenchmarkRuns).size(), 11u);
}

// Verifies that noise alone raises no alarm: 30 runs with 1% Gaussian noise, whose reruns (when a
// trial is suspect) come from the same noise, end with no Regressed, NodeSuspect or Inconclusive
// verdict and no change point.
TEST_F(SeriesReconcilerTest, ANoisyButUnchangedWorkloadRaisesNoAlarmOverThirtyRuns) {
  std::mt19937_64 random(22);
  std::normal_distribution<double> noise(0, 10);  // 1% of the level
  std::set<std::string> finished;
  int reruns = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string name = "r" + std::to_string(i);
    addRun(name, {1000 + noise(random)}, i, i % 2 == 0 ? "gpu-1" : "gpu-2", "Pass", json::object());
    reconcile(name);
    // Every rerun the reconciler made ends with a value of the same noise.
    for (bool more = true; more;) {
      more = false;
      for (const std::string& run : runNames()) {
        if (run.find("-c") == std::string::npos || !finished.insert(run).second) continue;
        finishRerun(run, 1000 + noise(random), run.back() == 's' ? "gpu-1" : "gpu-3");
        ++reruns;
        more = true;
      }
    }
  }
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.points.size(), 30u);
  EXPECT_TRUE(status.changes.empty());
  for (const std::string& reason : eventReasons()) {
    EXPECT_TRUE(reason == "TrialSuspect" || reason == "Confirming" || reason == "NotConfirmed")
        << reason;
  }
  if (status.confirmation) {
    EXPECT_EQ(status.confirmation->state, "NotConfirmed");
  }
  EXPECT_NE(status.state, "Confirming");
  // With this seed two trials are suspect, and their reruns clear them.
  EXPECT_GT(reruns, 0);
}

// Verifies that an accepted change (spec.acceptedAfter) is applied when the spec changes, not at
// the next trial: the series is judged again on the points after it, and written only when that
// changes its status.
TEST_F(SeriesReconcilerTest, AnAcceptedChangeIsJudgedWhenTheSpecChanges) {
  suspectAfterTenRuns(900, nullptr);
  EXPECT_EQ(series(1).state, "Suspect");
  json object = client_.objects(kBenchmarkSeries).at(0);
  const std::string name = object["metadata"]["name"];
  EXPECT_EQ(SeriesReconciler::seriesKey(object), "series/lab/" + name);
  object["spec"]["acceptedAfter"] = common::formatRfc3339(kStart + hours(9));
  ASSERT_TRUE(client_.update(kBenchmarkSeries, "lab", object).isOk());
  ASSERT_TRUE(reconciler_.rejudge("lab", name).isOk());
  const benchmark::SeriesStatus status = series(1);
  EXPECT_EQ(status.state, "InsufficientHistory");  // one point after it
  EXPECT_EQ(status.latest, 900);
  EXPECT_EQ(status.points.size(), 11u);  // kept, not judged
  const int writes = client_.callCount("updateStatus");
  ASSERT_TRUE(reconciler_.rejudge("lab", name).isOk());
  EXPECT_EQ(client_.callCount("updateStatus"), writes);
  EXPECT_TRUE(reconciler_.rejudge("lab", "gone").isOk());
}

}  // namespace
}  // namespace hetbench::controller::testing
