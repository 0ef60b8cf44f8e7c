// The BenchmarkSchedule controller in this process (the operator's Manager on a FakeClock) against
// an in-process kubesim: runs on schedule, Forbid and Replace, restarts, history, and a reference
// from history. The runs' pods are real processes; only the schedule's time is moved by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/common/time.h"
#include "hetbench/controller/manager.h"
#include "hetbench/kube/rest_client.h"
#include "hetbench/logs/collector.h"
#include "hetbench/metrics/controller_metrics.h"
#include "hetbench/schedule/cron.h"
#include "hetbench/schedule/slots.h"
#include "support/kubesim_client.h"
#include "support/temp_dir.h"
#include "testing/harness.h"

namespace hetbench::controller {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr std::chrono::seconds kWait{30};

bool eventually(const std::function<bool()>& condition) {
  return Harness::eventually(condition, kWait);
}

/// Where the FakeClock that kubesim and the controller share starts.
common::WallTime realNow() {
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

/// The operator's client, but the first `throws` creations of a BenchmarkRun throw, as a
/// bad_alloc or a bug deep in a reconcile would.
class ThrowingClient final : public kube::KubeClient {
 public:
  ThrowingClient(kube::KubeClient& inner, int throws) : inner_(inner), throws_(throws) {}

  common::Result<json> get(const kube::GroupVersionResource& gvr, const std::string& ns,
                           const std::string& name) override {
    return inner_.get(gvr, ns, name);
  }
  common::Result<kube::ListResult> list(const kube::GroupVersionResource& gvr,
                                        const std::string& ns,
                                        const kube::ListOptions& options) override {
    return inner_.list(gvr, ns, options);
  }
  common::Result<json> create(const kube::GroupVersionResource& gvr, const std::string& ns,
                              const json& object) override {
    if (gvr.resource == kBenchmarkRuns.resource && throws_.fetch_sub(1) > 0)
      throw std::runtime_error("thrown by the test");
    return inner_.create(gvr, ns, object);
  }
  common::Result<json> update(const kube::GroupVersionResource& gvr, const std::string& ns,
                              const json& object) override {
    return inner_.update(gvr, ns, object);
  }
  common::Result<json> updateStatus(const kube::GroupVersionResource& gvr, const std::string& ns,
                                    const json& object) override {
    return inner_.updateStatus(gvr, ns, object);
  }
  common::Result<json> patch(const kube::GroupVersionResource& gvr, const std::string& ns,
                             const std::string& name, kube::PatchType type, const json& patch,
                             bool statusSubresource) override {
    return inner_.patch(gvr, ns, name, type, patch, statusSubresource);
  }
  common::Status remove(const kube::GroupVersionResource& gvr, const std::string& ns,
                        const std::string& name, const kube::DeleteOptions& options) override {
    return inner_.remove(gvr, ns, name, options);
  }
  common::Result<std::unique_ptr<kube::WatchStream>> watch(
      const kube::GroupVersionResource& gvr, const std::string& ns,
      const kube::WatchOptions& options) override {
    return inner_.watch(gvr, ns, options);
  }
  common::Status streamLogs(const std::string& ns, const std::string& pod,
                            const kube::LogOptions& options,
                            const std::function<bool(std::string_view)>& onData) override {
    return inner_.streamLogs(ns, pod, options, onData);
  }
  common::Result<kube::GroupVersionResource> resourceFor(const std::string& apiVersion,
                                                         const std::string& kind) override {
    return inner_.resourceFor(apiVersion, kind);
  }

 private:
  kube::KubeClient& inner_;
  std::atomic<int> throws_;
};

class ScheduleControllerTest : public ::testing::Test {
 protected:
  ScheduleControllerTest() : clock_(realNow()), harness_(harnessOptions(clock_)) {}

  static Harness::Options harnessOptions(const common::Clock& clock) {
    Harness::Options options;
    options.clock = &clock;
    return options;
  }

  void SetUp() override {
    client_ = testing_support::kubesimClient(harness_, realClock_);
    operatorClient_ = testing_support::kubesimClient(harness_, realClock_);
    ASSERT_TRUE(client_ && operatorClient_);
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkrun.yaml", kBenchmarkRuns));
    ASSERT_TRUE(testing_support::installCrd(
        *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkschedule.yaml", kBenchmarkSchedules));
    events_ = std::make_unique<kube::KubeEventRecorder>(*operatorClient_, realClock_, random_,
                                                        "hetbench-operator");
    // Between the jumps a test makes, the FakeClock follows real time, so that the run
    // controller's own short delays (waiting for logs, say) come due.
    ticker_ = std::thread([this] {
      std::unique_lock lock(tickMu_);
      while (!tickCv_.wait_for(lock, kTick, [this] { return !ticking_; })) clock_.advance(kTick);
    });
  }

  void TearDown() override {
    stopManager();
    {
      std::lock_guard lock(tickMu_);
      ticking_ = false;
    }
    tickCv_.notify_all();
    ticker_.join();
  }

  /// Starts the Manager on the operator's client, or on `client` when given.
  void startManager(kube::KubeClient* client = nullptr) {
    kube::KubeClient& used = client != nullptr ? *client : *operatorClient_;
    collector_ =
        std::make_unique<logs::LogCollector>(used, logs::CollectorOptions{dir_.path() + "/logs"});
    ManagerOptions options;
    options.reconciler.logDir = dir_.path() + "/logs";
    options.logs = collector_.get();
    manager_ = std::make_unique<Manager>(used, clock_, random_, *events_, metrics_, options);
    manager_->start();
    ASSERT_TRUE(eventually([&] { return manager_->ready(); }));
  }

  void stopManager() {
    if (manager_) manager_->stop();
    manager_.reset();
    if (collector_) collector_->stop();
    collector_.reset();
  }

  /// How many schedule reconciles the Manager has finished with `result` ("": any).
  double scheduleReconciles(const std::string& result = "") {
    double total = 0;
    for (const auto& family : metrics_.registry()->Collect()) {
      if (family.name != "controller_runtime_reconcile_total") continue;
      for (const auto& m : family.metric) {
        bool schedule = false;
        bool matches = result.empty();
        for (const auto& label : m.label) {
          schedule = schedule ||
                     (label.name == "controller" && label.value == metrics::kScheduleController);
          matches = matches || (label.name == "result" && label.value == result);
        }
        if (schedule && matches) total += m.counter.value;
      }
    }
    return total;
  }

  /// Changes the schedule's annotations and waits for a reconcile that started after the
  /// change, and so after every reconcile before it.
  bool reconcileAgain(const std::string& name) {
    const double before = scheduleReconciles();
    const bool patched =
        client_
            ->patch(kBenchmarkSchedules, "default", name, kube::PatchType::kMerge,
                    {{"metadata", {{"annotations", {{"test/poke", std::to_string(before)}}}}}})
            .isOk();
    return patched && eventually([&] { return scheduleReconciles() > before; });
  }

  void createSchedule(const std::string& name, json spec) {
    spec["schedule"] = kHourly;
    common::Result<json> created = client_->create(kBenchmarkSchedules, "default",
                                                   {{"apiVersion", "hetbench.io/v1alpha1"},
                                                    {"kind", "BenchmarkSchedule"},
                                                    {"metadata", {{"name", name}}},
                                                    {"spec", spec}});
    ASSERT_TRUE(created.isOk()) << created.status().toString();
    created_ =
        common::parseRfc3339(created.value()["metadata"]["creationTimestamp"].get<std::string>())
            .value();
  }

  /// The n-th slot (from 1) after the schedule's creation.
  common::WallTime slot(int n) const {
    const schedule::CronSchedule cron = schedule::parseCron(kHourly).value();
    common::WallTime t = created_;
    for (int i = 0; i < n; ++i) t = *schedule::nextTime(cron, schedule::TimeZone(), t);
    return t;
  }

  /// Moves the FakeClock to `t` unless it is past it already.
  void advanceTo(common::WallTime t) { clock_.advance(t - clock_.now()); }

  json getRun(const std::string& name) {
    common::Result<json> got = client_->get(kBenchmarkRuns, "default", name);
    return got.isOk() ? got.value() : json();
  }
  json getSchedule(const std::string& name) {
    return client_->get(kBenchmarkSchedules, "default", name).value();
  }
  std::vector<json> items(const kube::GroupVersionResource& gvr,
                          const kube::ListOptions& options = {}) {
    common::Result<kube::ListResult> listed = client_->list(gvr, "default", options);
    EXPECT_TRUE(listed.isOk()) << listed.status().toString();
    return listed.isOk() ? listed.value().items : std::vector<json>{};
  }
  std::set<std::string> runNames() {
    std::set<std::string> names;
    for (const json& run : items(kBenchmarkRuns))
      names.insert(run["metadata"]["name"].get<std::string>());
    return names;
  }
  bool waitForPhase(const std::string& run, const std::string& phase) {
    return eventually([&] {
      const json got = getRun(run);
      return got.is_object() && got.value("/status/phase"_json_pointer, "") == phase;
    });
  }
  std::vector<std::string> eventReasons(const std::string& schedule) {
    std::vector<std::string> reasons;
    kube::ListOptions options;
    options.fieldSelector = "involvedObject.name=" + schedule;
    for (const json& e : items(kube::resources::kEvents, options))
      reasons.push_back(e.value("reason", ""));
    return reasons;
  }
  bool waitForEvent(const std::string& schedule, const std::string& reason) {
    return eventually([&] {
      const std::vector<std::string> reasons = eventReasons(schedule);
      return std::find(reasons.begin(), reasons.end(), reason) != reasons.end();
    });
  }

  /// A run spec whose pod waits until the test releases its run (blocking), or ends at once. The
  /// tests move the shared clock an hour at a time, maybe before kubesim's kubelet has started a
  /// pod: startTimeout is as long as timeLimit, so that no run fails for that.
  json runTemplate(const std::string& script) const {
    return {{"metadata", {{"labels", {{"team", "perf"}}}}},
            {"spec",
             {{"benchmark", "custom"},
              {"system", "cpu"},
              {"timeLimit", "48h"},
              {"startTimeout", "48h"},
              {"workload", {{"image", "busybox"}, {"command", {"sh", "-c", script}}}}}}};
  }
  std::string blockingScript() const {
    return "while [ ! -e " + dir_.path() + "/release-$HETBENCH_RUN ]; do sleep 0.05; done";
  }
  void release(const std::string& run) { std::ofstream(dir_.path() + "/release-" + run) << "go"; }

  static constexpr const char* kHourly = "0 * * * *";
  static constexpr std::chrono::milliseconds kTick{20};

  common::FakeClock clock_;
  Harness harness_;
  testing_support::TempDir dir_{"schedule_test"};
  common::SystemClock realClock_;
  common::SystemRandom random_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<kube::KubeClient> operatorClient_;
  /// A client a test starts the Manager on; it outlives the Manager, which TearDown stops.
  std::unique_ptr<kube::KubeClient> throwing_;
  std::unique_ptr<kube::KubeEventRecorder> events_;
  metrics::ControllerMetrics metrics_;
  std::unique_ptr<logs::LogCollector> collector_;
  std::unique_ptr<Manager> manager_;
  common::WallTime created_;
  std::mutex tickMu_;
  std::condition_variable tickCv_;
  bool ticking_ = true;
  std::thread ticker_;
};

// Verifies each slot gets its run at its time (named after the slot, owned and labelled by the
// schedule, with the template's labels), the status follows the runs, and finished runs beyond
// successfulRunsHistoryLimit are deleted while recentVerdicts keeps them.
TEST_F(ScheduleControllerTest, RunsAppearOnScheduleAndHistoryIsPruned) {
  startManager();
  createSchedule("hourly",
                 {{"runTemplate", runTemplate("echo ok")}, {"successfulRunsHistoryLimit", 2}});
  const json schedule = getSchedule("hourly");
  for (int n = 1; n <= 4; ++n) {
    const std::string name = schedule::runName("hourly", slot(n));
    EXPECT_EQ(getRun(name), json()) << name << " exists before its slot";
    advanceTo(slot(n) + 30s);
    ASSERT_TRUE(waitForPhase(name, "Succeeded")) << name << ": " << getRun(name).dump(2);
    const json run = getRun(name);
    EXPECT_EQ(run["metadata"]["labels"]["hetbench.io/schedule"], "hourly");
    EXPECT_EQ(run["metadata"]["labels"]["team"], "perf");
    EXPECT_EQ(run["metadata"]["annotations"]["hetbench.io/scheduled-time"],
              common::formatRfc3339(slot(n)));
    EXPECT_EQ(run["metadata"]["ownerReferences"][0]["uid"], schedule["metadata"]["uid"]);
    EXPECT_EQ(run["metadata"]["ownerReferences"][0]["controller"], true);
  }
  const std::set<std::string> kept = {schedule::runName("hourly", slot(3)),
                                      schedule::runName("hourly", slot(4))};
  EXPECT_TRUE(eventually([&] { return runNames() == kept; }))
      << ::testing::PrintToString(runNames());
  ASSERT_TRUE(eventually([&] {
    const json status = getSchedule("hourly")["status"];
    return status.value("recentVerdicts", json::array()).size() == 4 &&
           status.value("lastSuccessfulRun", "") == schedule::runName("hourly", slot(4));
  })) << getSchedule("hourly").dump(2);
  const json status = getSchedule("hourly")["status"];
  EXPECT_EQ(status["lastScheduleTime"], common::formatRfc3339(slot(4)));
  EXPECT_EQ(status["activeCount"], 0);
  EXPECT_EQ(status["recentVerdicts"][0]["run"], schedule::runName("hourly", slot(4)));
  EXPECT_EQ(status["recentVerdicts"][3]["run"], schedule::runName("hourly", slot(1)));
  EXPECT_EQ(status["recentVerdicts"][3]["phase"], "Succeeded");
  EXPECT_TRUE(waitForEvent("hourly", "SuccessfulDelete"));
}

// Verifies the exception barrier of issue 19 (defect 7): a reconcile that throws is counted as
// an error and retried with backoff, as controller-runtime recovers a panicking reconciler; the
// process and its other work go on, and the slot's run is created once the throwing stops.
TEST_F(ScheduleControllerTest, ThrowingReconcileIsAnErrorAndIsRetried) {
  throwing_ = std::make_unique<ThrowingClient>(*operatorClient_, 2);
  startManager(throwing_.get());
  createSchedule("thrown", {{"runTemplate", runTemplate("echo ok")}});
  const std::string name = schedule::runName("thrown", slot(1));
  advanceTo(slot(1) + 1s);
  ASSERT_TRUE(waitForPhase(name, "Succeeded")) << getRun(name).dump(2);
  EXPECT_EQ(scheduleReconciles("error"), 2);
  EXPECT_TRUE(manager_->healthy());
  EXPECT_EQ(runNames(), std::set<std::string>{name});
}

// Verifies Forbid: a slot that comes while the schedule's run is still going creates nothing and
// says so; once that run finishes, the waiting slot starts (no startingDeadlineSeconds), as
// CronJob does.
TEST_F(ScheduleControllerTest, ForbidWaitsForTheActiveRun) {
  startManager();
  createSchedule("forbid",
                 {{"runTemplate", runTemplate(blockingScript())}, {"concurrencyPolicy", "Forbid"}});
  const std::string first = schedule::runName("forbid", slot(1));
  const std::string second = schedule::runName("forbid", slot(2));
  advanceTo(slot(1) + 1s);
  ASSERT_TRUE(waitForPhase(first, "Running"));
  EXPECT_TRUE(eventually(
      [&] { return getSchedule("forbid").value("/status/activeCount"_json_pointer, 0) == 1; }));
  advanceTo(slot(2) + 1s);
  ASSERT_TRUE(waitForEvent("forbid", "RunAlreadyActive"));
  EXPECT_EQ(runNames(), std::set<std::string>{first});
  release(first);
  ASSERT_TRUE(waitForPhase(first, "Succeeded"));
  ASSERT_TRUE(eventually([&] { return !getRun(second).is_null(); }))
      << "the waiting slot never ran";
  release(second);
  EXPECT_TRUE(waitForPhase(second, "Succeeded"));
}

// Verifies Replace: the slot deletes the run that is still going and starts its own.
TEST_F(ScheduleControllerTest, ReplaceDeletesTheActiveRun) {
  startManager();
  createSchedule("replace", {{"runTemplate", runTemplate(blockingScript())},
                             {"concurrencyPolicy", "Replace"}});
  const std::string first = schedule::runName("replace", slot(1));
  const std::string second = schedule::runName("replace", slot(2));
  advanceTo(slot(1) + 1s);
  ASSERT_TRUE(waitForPhase(first, "Running"));
  advanceTo(slot(2) + 1s);
  ASSERT_TRUE(waitForPhase(second, "Running"));
  EXPECT_TRUE(eventually([&] { return getRun(first).is_null(); })) << "the replaced run remains";
  EXPECT_TRUE(waitForEvent("replace", "ReplacedRun"));
  // The status follows the informers' cache, which sees the replaced run go after the API does.
  json active;
  EXPECT_TRUE(eventually([&] {
    active = getSchedule("replace")["status"]["active"];
    return active.size() == 1 && active[0]["name"] == second;
  })) << active.dump();
  release(second);
  EXPECT_TRUE(waitForPhase(second, "Succeeded"));
}

// Verifies restarts: slots missed while no operator ran start only the latest (the others are
// reported), a run created just before a crash (status not yet written) is adopted instead of
// doubled, and a restart with nothing due creates nothing.
TEST_F(ScheduleControllerTest, RestartMissesNoSlotAndDoublesNone) {
  createSchedule("nightly", {{"runTemplate", runTemplate("echo ok")}});
  startManager();
  advanceTo(slot(1) + 30s);
  ASSERT_TRUE(waitForPhase(schedule::runName("nightly", slot(1)), "Succeeded"));

  stopManager();
  advanceTo(slot(4) + 30s);  // slots 2, 3 and 4 pass while no operator runs
  startManager();
  ASSERT_TRUE(waitForPhase(schedule::runName("nightly", slot(4)), "Succeeded"));
  EXPECT_TRUE(waitForEvent("nightly", "MissedSchedule"));
  EXPECT_EQ(runNames(), (std::set<std::string>{schedule::runName("nightly", slot(1)),
                                               schedule::runName("nightly", slot(4))}));

  // The run of slot 5 exists, as if created by an operator that crashed before its status write.
  stopManager();
  const json schedule = getSchedule("nightly");
  const std::string fifth = schedule::runName("nightly", slot(5));
  json run = {{"apiVersion", "hetbench.io/v1alpha1"},
              {"kind", "BenchmarkRun"},
              {"metadata",
               {{"name", fifth},
                {"labels", {{"hetbench.io/schedule", "nightly"}}},
                {"annotations", {{"hetbench.io/scheduled-time", common::formatRfc3339(slot(5))}}},
                {"ownerReferences", json::array({{{"apiVersion", "hetbench.io/v1alpha1"},
                                                  {"kind", "BenchmarkSchedule"},
                                                  {"name", "nightly"},
                                                  {"uid", schedule["metadata"]["uid"]},
                                                  {"controller", true}}})}}},
              {"spec", runTemplate("echo ok")["spec"]}};
  ASSERT_TRUE(client_->create(kBenchmarkRuns, "default", run).isOk());
  advanceTo(slot(5) + 30s);
  startManager();
  ASSERT_TRUE(waitForPhase(fifth, "Succeeded"));
  ASSERT_TRUE(eventually([&] {
    return getSchedule("nightly").value("/status/lastScheduleTime"_json_pointer, "") ==
           common::formatRfc3339(slot(5));
  }));

  stopManager();
  const double before = scheduleReconciles();
  startManager();
  ASSERT_TRUE(eventually([&] { return scheduleReconciles() > before; }));
  EXPECT_EQ(runNames(), (std::set<std::string>{schedule::runName("nightly", slot(1)),
                                               schedule::runName("nightly", slot(4)), fifth}));
}

// Verifies a failed run beyond failedRunsHistoryLimit stays while it keeps its failed workload
// for inspection, and goes once its own retainFor has passed.
TEST_F(ScheduleControllerTest, FailedRunsStayUntilTheirRetentionEnds) {
  startManager();
  json tmpl = runTemplate("exit 3");
  tmpl["spec"]["cleanup"] = {{"onFailure", "Retain"}, {"retainFor", "2h"}};
  createSchedule("failing", {{"runTemplate", tmpl}, {"failedRunsHistoryLimit", 1}});
  const std::string first = schedule::runName("failing", slot(1));
  const std::string second = schedule::runName("failing", slot(2));
  advanceTo(slot(1) + 1s);
  ASSERT_TRUE(waitForPhase(first, "Failed"));
  advanceTo(slot(2) + 1s);
  ASSERT_TRUE(waitForPhase(second, "Failed"));
  ASSERT_TRUE(eventually([&] {
    return getSchedule("failing")
               .value("/status/recentVerdicts"_json_pointer, json::array())
               .size() == 2;
  }));
  // After the reconcile that wrote that status (and would have pruned), the first run must
  // still be there.
  ASSERT_TRUE(reconcileAgain("failing"));
  EXPECT_FALSE(getRun(first).is_null()) << "pruned while it keeps a failed workload";
  advanceTo(slot(1) + 2h + 2min);  // the first run's retention is over, the second's is not
  EXPECT_TRUE(eventually([&] { return getRun(first).is_null(); })) << getRun(first).dump(2);
  EXPECT_FALSE(getRun(second).is_null());
}

// Verifies a schedule the controller cannot use (a malformed cron expression, which the CRD's
// schema cannot check) is refused with the parser's error in its Accepted condition and an
// Event, and creates nothing.
TEST_F(ScheduleControllerTest, MalformedScheduleIsRefusedWithItsError) {
  startManager();
  ASSERT_TRUE(
      client_
          ->create(
              kBenchmarkSchedules, "default",
              {{"apiVersion", "hetbench.io/v1alpha1"},
               {"kind", "BenchmarkSchedule"},
               {"metadata", {{"name", "typo"}}},
               {"spec", {{"schedule", "61 * * * *"}, {"runTemplate", runTemplate("echo ok")}}}})
          .isOk());
  ASSERT_TRUE(eventually([&] {
    const json conditions =
        getSchedule("typo").value("/status/conditions"_json_pointer, json::array());
    return !conditions.empty() && conditions[0].value("status", "") == "False";
  }));
  const json accepted = getSchedule("typo")["status"]["conditions"][0];
  EXPECT_EQ(accepted["type"], "Accepted");
  EXPECT_EQ(accepted["reason"], "InvalidSpec");
  EXPECT_NE(accepted["message"].get<std::string>().find("61"), std::string::npos)
      << accepted.dump();
  EXPECT_TRUE(waitForEvent("typo", "InvalidSpec"));
  advanceTo(clock_.now() + 3h);
  ASSERT_TRUE(reconcileAgain("typo"));
  EXPECT_TRUE(runNames().empty());
}

/// A pod script printing hetbench JSON lines: one epoch of the samples written in `file`, in
/// 10 s of which 1 s I/O.
std::string throughputScript(const std::string& file) {
  return "S=$(cat " + file +
         "); "
         "echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
         "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":32,"
         "\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\","
         "\"count\":1}}'; "
         "echo \":::HETBENCH {\\\"v\\\":1,\\\"event\\\":\\\"epoch\\\",\\\"epoch\\\":0,"
         "\\\"rank\\\":0,\\\"samples\\\":$S,\\\"wall_seconds\\\":10,\\\"io_seconds\\\":1,"
         "\\\"compute_seconds\\\":9}\"; "
         "echo ':::HETBENCH {\"v\":1,\"event\":\"run_end\",\"rank\":0,\"status\":\"ok\"}'";
}

// Verifies a fromHistory reference: the first runs have too little history (NoReference), a
// steady run passes against the median of the last passing runs, and a 20% drop in throughput
// is Regressed, against a baseline kept in the run's status.
TEST_F(ScheduleControllerTest, HistoryReferenceFlagsAThroughputDrop) {
  startManager();
  const std::string samples = dir_.path() + "/samples";
  json tmpl = runTemplate(throughputScript(samples));
  tmpl["spec"]["benchmark"] = "resnet50";
  tmpl["spec"]["warmupEpochs"] = 0;
  tmpl["spec"]["references"] = {
      {"effective_throughput", {{"fromHistory", {{"runs", 3}}}, {"lower", 0.1}}}};
  createSchedule("baseline", {{"runTemplate", tmpl}, {"successfulRunsHistoryLimit", 10}});
  const std::vector<std::pair<int, std::string>> plan = {{1000, "NoReference"},
                                                         {1000, "NoReference"},
                                                         {1000, "NoReference"},
                                                         {1000, "Pass"},
                                                         {800, "Regressed"}};
  json last;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    std::ofstream(samples) << plan[i].first;
    const std::string name = schedule::runName("baseline", slot(static_cast<int>(i) + 1));
    advanceTo(slot(static_cast<int>(i) + 1) + 30s);
    ASSERT_TRUE(waitForPhase(name, "Succeeded")) << getRun(name).dump(2);
    last = getRun(name);
    EXPECT_EQ(last["status"]["verdict"], plan[i].second) << last["status"].dump(2);
  }
  const json& result = last["status"]["results"][0];
  EXPECT_EQ(result["baselines"]["effective_throughput"]["value"], 100);
  EXPECT_EQ(
      result["baselines"]["effective_throughput"]["runs"],
      json::array({schedule::runName("baseline", slot(4)), schedule::runName("baseline", slot(3)),
                   schedule::runName("baseline", slot(2))}));
  EXPECT_EQ(result["checks"][0]["message"],
            "effective_throughput 80 samples/s, against the median of the last 3 passing "
            "run(s), is 20% below the reference 100 (allowed \u221210%)");
  EXPECT_TRUE(eventually([&] {
    return getSchedule("baseline").value("/status/lastVerdict"_json_pointer, "") == "Regressed";
  })) << getSchedule("baseline").dump(2);
}

}  // namespace
}  // namespace hetbench::controller
