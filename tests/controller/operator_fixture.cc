#include "operator_fixture.h"

#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "hetbench/kube/rest_client.h"
#include "kubeconfig.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const json::json_pointer kPhase("/status/phase");

kubesim::testing::Harness::Options harnessOptions() {
  kubesim::testing::Harness::Options options;
  options.restartBackoff = 100ms;
  options.jobBackoff = 100ms;
  return options;
}

std::string runSelector(const std::string& run) { return "hetbench.io/run=" + run; }

}  // namespace

json scriptSpec(const std::string& script) {
  return {{"benchmark", "custom"},
          {"system", "cpu"},
          {"workload", {{"image", "busybox"}, {"command", {"sh", "-c", script}}}}};
}

std::string trainingScript(int epochs, const std::string& samples, double wall,
                           const std::string& epochExtra) {
  std::string script =
      "echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
      "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":32,"
      "\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\",\"count\":1}}';";
  for (int e = 0; e < epochs; ++e) {
    script += "echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":" + std::to_string(e) +
              ",\"rank\":0,\"samples\":" + samples + ",\"wall_seconds\":" + std::to_string(wall) +
              ",\"io_seconds\":1,\"compute_seconds\":" + std::to_string(wall - 1) + epochExtra +
              "}';";
  }
  return script + "echo ':::HETBENCH {\"v\":1,\"event\":\"run_end\",\"rank\":0,\"status\":\"ok\"}'";
}

std::string trainingScript(int epochs, int samples, double wall, const std::string& epochExtra) {
  return trainingScript(epochs, std::to_string(samples), wall, epochExtra);
}

json referenced(json spec, double value) {
  spec["benchmark"] = "resnet50";
  spec["references"] = {{"effective_throughput", {{"value", value}, {"lower", 0.05}}}};
  return spec;
}

json condition(const json& object, const std::string& type) {
  const json conditions = object.value("/status/conditions"_json_pointer, json::array());
  for (const json& c : conditions)
    if (c.value("type", "") == type) return c;
  return nullptr;
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / "operator_test_XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern;
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

PodWatch::PodWatch(kube::KubeClient& client, const std::string& run) {
  kube::WatchOptions options;
  options.labelSelector = runSelector(run);
  common::Result<std::unique_ptr<kube::WatchStream>> stream =
      client.watch(kube::resources::kPods, "default", options);
  if (!stream.isOk()) {
    ADD_FAILURE() << "watch pods: " << stream.status().toString();
    broken_ = true;
    return;
  }
  stream_ = std::move(stream).value();
  thread_ = std::thread([this, &client, options] { follow(client, options); });
}

void PodWatch::follow(kube::KubeClient& client, kube::WatchOptions options) {
  kube::WatchStream* stream = nullptr;
  {
    std::lock_guard lock(mu_);
    stream = stream_.get();
  }
  for (;;) {
    common::Result<std::optional<kube::WatchEvent>> event = stream->next();
    if (event.isOk() && event.value()) {
      const json& meta = event.value()->object.value("metadata", json::object());
      options.resourceVersion = meta.value("resourceVersion", options.resourceVersion);
      std::lock_guard lock(mu_);
      record(*event.value());
      continue;
    }
    // Ended or broken: opened again from the last event seen, until the history is gone.
    for (stream = nullptr; stream == nullptr;) {
      common::Result<std::unique_ptr<kube::WatchStream>> reopened =
          client.watch(kube::resources::kPods, "default", options);
      {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        if (reopened.status().isGone()) {
          broken_ = true;
          return;
        }
        if (reopened.isOk()) {
          stream_ = std::move(reopened).value();
          stream = stream_.get();
        }
      }
      if (stream == nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

PodWatch::~PodWatch() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (stream_) stream_->cancel();
  }
  if (thread_.joinable()) thread_.join();
}

void PodWatch::record(const kube::WatchEvent& event) {
  if (event.type == kube::WatchEvent::Type::kBookmark) return;
  const json& meta = event.object.value("metadata", json::object());
  const std::string name = meta.value("name", "");
  uids_[name].insert(meta.value("uid", ""));
  if (event.type == kube::WatchEvent::Type::kDeleted) {
    unfinished_.erase(name);
  } else {
    const std::string phase = event.object.value(kPhase, std::string());
    unfinished_[name] = phase != "Succeeded" && phase != "Failed";
  }
  const int count = static_cast<int>(std::count_if(unfinished_.begin(), unfinished_.end(),
                                                   [](const auto& p) { return p.second; }));
  maxUnfinished_ = std::max(maxUnfinished_, count);
}

std::map<std::string, std::set<std::string>> PodWatch::uidsByName() const {
  std::lock_guard lock(mu_);
  return uids_;
}

int PodWatch::maxUnfinished() const {
  std::lock_guard lock(mu_);
  return maxUnfinished_;
}

bool PodWatch::intact() const {
  std::lock_guard lock(mu_);
  return !broken_;
}

OperatorTest::OperatorTest() : harness_(harnessOptions()) {}

void OperatorTest::SetUp() {
  logDir_ = dir_.path() / "logs";
  kubeconfig_ = (dir_.path() / "kubeconfig").string();
  const std::string server = "http://127.0.0.1:" + std::to_string(harness_.port());
  kubesim::KubeconfigSpec kubeconfig;
  kubeconfig.server = server;
  common::Status written =
      kubesim::writeFileAtomically(kubeconfig_, kubesim::renderKubeconfig(kubeconfig));
  ASSERT_TRUE(written.isOk()) << written.toString();

  auto certificate = http::generateServingCertificate({"localhost"}, {"127.0.0.1"});
  ASSERT_TRUE(certificate.isOk()) << certificate.status().toString();
  endpointCertificate_ = certificate.value();
  certDir_ = dir_.path() / "tls";
  std::filesystem::create_directories(certDir_);
  std::ofstream(certDir_ / "tls.crt") << endpointCertificate_.certPem;
  std::ofstream(certDir_ / "tls.key") << endpointCertificate_.keyPem;

  client_ = testing_support::kubesimClient(harness_, clock_);
  ASSERT_TRUE(client_);
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkrun.yaml", kRuns));
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(KUBESIM_FIXTURES_DIR) + "/ipujob-crd.yaml", kIpuJobs));
}

OperatorProcess& OperatorTest::startOperator(const std::vector<std::string>& extraArgs) {
  std::vector<std::string> args = {"--kubeconfig",
                                   kubeconfig_,
                                   "--log-dir",
                                   logDir_.string(),
                                   "--metrics-bind-address",
                                   "127.0.0.1:0",
                                   "--health-probe-bind-address",
                                   "127.0.0.1:0",
                                   "--logs-bind-address",
                                   "127.0.0.1:0",
                                   "--tls-cert-dir",
                                   certDir_.string(),
                                   "--log-format",
                                   "json"};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  const std::filesystem::path log =
      dir_.path() / ("operator-" + std::to_string(operators_.size()) + ".log");
  operators_.push_back(std::make_unique<OperatorProcess>(args, log));
  if (std::find(args.begin(), args.end(), "--metrics-secure=false") == args.end())
    operators_.back()->setMetricsAccess(endpointCertificate_.caCertPem,
                                        [this] { return metricsToken(); });
  EXPECT_TRUE(operators_.back()->waitReady(kWait));
  return *operators_.back();
}

std::string OperatorTest::metricsToken() {
  if (metricsToken_.empty()) {
    EXPECT_TRUE(testing_support::createObjects(
        *client_,
        std::string(HETBENCH_SOURCE_DIR) + "/manifests/observability/metrics-reader.yaml"));
    metricsToken_ =
        testing_support::serviceAccountToken(harness_, *client_, "monitoring", "prometheus-k8s");
  }
  return metricsToken_;
}

json OperatorTest::createRun(const std::string& name, const json& spec) {
  const json run = {{"apiVersion", "hetbench.io/v1alpha1"},
                    {"kind", "BenchmarkRun"},
                    {"metadata", {{"name", name}, {"namespace", "default"}}},
                    {"spec", spec}};
  common::Result<json> created = client_->create(kRuns, "default", run);
  EXPECT_TRUE(created.isOk()) << name << ": " << created.status().toString();
  return created.isOk() ? created.value() : json();
}

json OperatorTest::getRun(const std::string& name) {
  common::Result<json> run = client_->get(kRuns, "default", name);
  EXPECT_TRUE(run.isOk() || run.status().isNotFound()) << run.status().toString();
  return run.isOk() ? run.value() : json();
}

json OperatorTest::waitForPhase(const std::string& name, const std::string& phase) {
  json run;
  const bool reached = eventually([&] {
    run = getRun(name);
    return run.is_object() && run.value(kPhase, std::string()) == phase;
  });
  EXPECT_TRUE(reached) << "run " << name << " not " << phase << ": " << run.dump(2);
  return run;
}

std::vector<json> OperatorTest::workloads(const kube::GroupVersionResource& gvr,
                                          const std::string& run) {
  kube::ListOptions options;
  options.labelSelector = runSelector(run);
  common::Result<kube::ListResult> listed = client_->list(gvr, "default", options);
  EXPECT_TRUE(listed.isOk()) << gvr.resource << ": " << listed.status().toString();
  return listed.isOk() ? listed.value().items : std::vector<json>{};
}

std::vector<json> OperatorTest::events(const std::string& run) {
  kube::ListOptions options;
  options.fieldSelector = "involvedObject.name=" + run;
  common::Result<kube::ListResult> listed =
      client_->list(kube::resources::kEvents, "default", options);
  EXPECT_TRUE(listed.isOk()) << listed.status().toString();
  return listed.isOk() ? listed.value().items : std::vector<json>{};
}

bool OperatorTest::waitForEvent(const std::string& run, const std::string& reason) {
  return eventually([&] {
    const std::vector<json> found = events(run);
    return std::any_of(found.begin(), found.end(),
                       [&](const json& e) { return e.value("reason", "") == reason; });
  });
}

json OperatorTest::lease() {
  common::Result<json> got = client_->get(kube::resources::kLeases, "default", "hetbench-operator");
  return got.isOk() ? got.value() : json();
}

}  // namespace hetbench::controller::testing
