// Runs placed on BenchmarkSystems by the run reconciler, in process over the fake client, its
// cache and a FakeClock (docs/api.md, "Systems").
#include <gtest/gtest.h>

#include <string>

#include "reconciler_fakes.h"

namespace hetbench::controller::testing {
namespace {

using kube::resources::kPods;

class SystemReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reconciler_ =
        std::make_unique<Reconciler>(client_, cache_, clock_, events_, ReconcilerOptions{}, &logs_);
  }
  void defineSystem(const std::string& name, json spec) {
    const json system = {{"apiVersion", "hetbench.io/v1alpha1"},
                         {"kind", "BenchmarkSystem"},
                         {"metadata", {{"name", name}}},
                         {"spec", std::move(spec)}};
    ASSERT_TRUE(client_.create(kBenchmarkSystems, "", system).isOk());
  }
  void apply(const json& run) { ASSERT_TRUE(client_.create(kBenchmarkRuns, "lab", run).isOk()); }
  ReconcileResult reconcile(const std::string& name) {
    common::Result<ReconcileResult> r = reconciler_->reconcile("lab", name);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? r.value() : ReconcileResult{};
  }
  json run(const std::string& name) { return client_.get(kBenchmarkRuns, "lab", name).value(); }
  json pod(const std::string& runName) {
    for (const json& o : client_.objects(kPods))
      if (o["metadata"]["labels"].value("hetbench.io/run", "") == runName) return o;
    return json();
  }
  json condition(const std::string& runName, const std::string& type) {
    for (const json& c : run(runName)["status"].value("conditions", json::array()))
      if (c["type"] == type) return c;
    return json();
  }
  static json a100() {
    return {{"kubernetes",
             {{"nodeSelector", {{"hetbench.io/system", "lab-a100"}}},
              {"tolerations", {{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}}},
              {"accelerator",
               {{"resource", "nvidia.com/gpu"}, {"product", "NVIDIA-A100-SXM4-40GB"}}}}}};
  }
  static RunBuilder onSystem(const std::string& name, const std::string& system) {
    RunBuilder run(name);
    run.set("system", system);
    json workload = {{"kind", "Pod"}, {"image", "busybox"}, {"accelerator", {{"count", 1}}}};
    run.set("workload", workload);
    return run;
  }

  kube::testing::FakeKubeClient client_;
  StoreCache cache_{client_};
  common::FakeClock clock_;
  RecordingEvents events_;
  FakeLogTracker logs_;
  std::unique_ptr<Reconciler> reconciler_;
};

// Verifies that a run naming a defined system gets its placement: the pod's node selector,
// tolerations and accelerator product label, the accelerator resource in its limits, the placed
// spec and the system recorded on the run, and an Accepted Event that names the system.
TEST_F(SystemReconcilerTest, ARunIsPlacedOnTheSystemItNames) {
  defineSystem("lab-a100", a100());
  apply(onSystem("placed", "lab-a100").obj());
  reconcile("placed");
  const json p = pod("placed");
  ASSERT_FALSE(p.is_null());
  EXPECT_EQ(p["spec"]["nodeSelector"], (json{{"hetbench.io/system", "lab-a100"},
                                             {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"}}));
  EXPECT_EQ(p["spec"]["tolerations"], a100()["kubernetes"]["tolerations"]);
  EXPECT_EQ(p["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], 1);
  const json annotations = run("placed")["metadata"]["annotations"];
  const json accepted = json::parse(annotations["hetbench.io/accepted-spec"].get<std::string>());
  EXPECT_EQ(accepted["workload"]["accelerator"]["product"], "NVIDIA-A100-SXM4-40GB");
  const json system = json::parse(annotations["hetbench.io/accepted-system"].get<std::string>());
  EXPECT_EQ(system["name"], "lab-a100");
  EXPECT_EQ(system["spec"], a100());
  bool named = false;
  for (const auto& e : events_.events())
    named = named || (e.reason == "Accepted" &&
                      e.message.find("on BenchmarkSystem lab-a100") != std::string::npos);
  EXPECT_TRUE(named);
}

// Verifies that a system changed or deleted after a run was accepted changes nothing of the
// run: its later units keep the placement it was accepted with, and no SpecImmutable warning
// is given for a spec the user did not change.
TEST_F(SystemReconcilerTest, APlacementOnceAcceptedDoesNotFollowTheSystem) {
  defineSystem("lab-a100", a100());
  apply(onSystem("kept", "lab-a100").repetitions(2).obj());
  reconcile("kept");
  ASSERT_TRUE(client_.remove(kBenchmarkSystems, "", "lab-a100", {}).isOk());
  json edited = run("kept");
  edited["spec"]["suspend"] = false;
  edited["metadata"]["generation"] = 2;
  ASSERT_TRUE(client_.update(kBenchmarkRuns, "lab", edited).isOk());
  reconcile("kept");
  EXPECT_EQ(events_.count("SpecImmutable"), 0);
  EXPECT_EQ(pod("kept")["spec"]["nodeSelector"]["hetbench.io/system"], "lab-a100");
}

// Verifies the refusals: a run whose own values differ from its system's, and a run on a
// system whose spec is not valid, are Accepted=False with the cause, and nothing is created.
TEST_F(SystemReconcilerTest, ConflictsAndInvalidSystemsAreRefused) {
  defineSystem("lab-a100", a100());
  RunBuilder conflicting = onSystem("conflict", "lab-a100");
  conflicting.set("workload", {{"kind", "Pod"},
                               {"image", "busybox"},
                               {"accelerator", {{"resource", "amd.com/gpu"}, {"count", 1}}}});
  apply(conflicting.obj());
  reconcile("conflict");
  EXPECT_EQ(condition("conflict", "Accepted")["status"], "False");
  EXPECT_NE(condition("conflict", "Accepted")["message"].get<std::string>().find(
                "spec.workload.accelerator.resource: Invalid value: \"amd.com/gpu\": must be "
                "\"nvidia.com/gpu\" on BenchmarkSystem lab-a100, or unset"),
            std::string::npos)
      << condition("conflict", "Accepted").dump();
  EXPECT_TRUE(pod("conflict").is_null());

  defineSystem("broken", {{"kubernetes", {{"accelerator", {{"resource", "tpu"}}}}}});
  apply(onSystem("on-broken", "broken").obj());
  reconcile("on-broken");
  const std::string message = condition("on-broken", "Accepted")["message"];
  EXPECT_NE(message.find("BenchmarkSystem broken is not valid: "
                         "spec.kubernetes.accelerator.resource: Unsupported value: \"tpu\""),
            std::string::npos)
      << message;
  EXPECT_TRUE(pod("on-broken").is_null());
}

// Verifies that a run naming no defined system, or any run while the CRD is not served, keeps
// spec.system as a label only; and that acceptance waits while the systems are being listed.
TEST_F(SystemReconcilerTest, UndefinedSystemsAreLabelsAndAcceptanceWaitsForTheCache) {
  const json gpu = {{"kind", "Pod"},
                    {"image", "busybox"},
                    {"accelerator", {{"resource", "nvidia.com/gpu"}, {"count", 1}}}};
  apply(onSystem("label-only", "elsewhere").set("workload", gpu).obj());
  reconcile("label-only");
  EXPECT_FALSE(pod("label-only")["spec"].contains("nodeSelector"));
  EXPECT_EQ(pod("label-only")["metadata"]["labels"]["hetbench.io/system"], "elsewhere");
  EXPECT_FALSE(
      run("label-only")["metadata"]["annotations"].contains("hetbench.io/accepted-system"));

  defineSystem("lab-a100", a100());
  cache_.systemsSyncing = true;
  apply(onSystem("waits", "lab-a100").obj());
  const ReconcileResult waiting = reconcile("waits");
  EXPECT_EQ(waiting.requeueAfter, std::chrono::nanoseconds(std::chrono::seconds(1)));
  EXPECT_FALSE(run("waits")["metadata"].contains("annotations"));
  EXPECT_TRUE(pod("waits").is_null());
  cache_.systemsSyncing = false;
  reconcile("waits");
  EXPECT_EQ(pod("waits")["spec"]["nodeSelector"]["hetbench.io/system"], "lab-a100");

  cache_.systemsServed = false;
  apply(onSystem("no-crd", "lab-a100").set("workload", gpu).obj());
  reconcile("no-crd");
  EXPECT_FALSE(pod("no-crd")["spec"].contains("nodeSelector"));
}

}  // namespace
}  // namespace hetbench::controller::testing
