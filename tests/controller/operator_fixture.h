#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/http/tls.h"
#include "hetbench/kube/client.h"
#include "operator_process.h"
#include "testing/harness.h"

namespace hetbench::controller::testing {

inline const kube::GroupVersionResource kRuns{"hetbench.io", "v1alpha1", "benchmarkruns", true};
inline const kube::GroupVersionResource kIpuJobs{"graphcore.ai", "v1alpha1", "ipujobs", true};

/// Bounds every wait of these tests; a passing test waits far less.
inline constexpr std::chrono::seconds kWait{30};

/// A spec that runs `script` with sh in one Pod.
nlohmann::json scriptSpec(const std::string& script);

/// A script printing hetbench JSON lines: a run_start and `epochs` epochs of `samples` samples
/// (a number, or shell text that the echo expands, such as "'$S'") in `wall` seconds, 1 s of it
/// I/O, each epoch with the members `epochExtra` (",\"gpus\":[...]").
std::string trainingScript(int epochs, const std::string& samples, double wall,
                           const std::string& epochExtra = "");
std::string trainingScript(int epochs, int samples, double wall,
                           const std::string& epochExtra = "");

/// `spec` as a resnet50 run judged against an effective throughput of `value` (lower bound 5%).
nlohmann::json referenced(nlohmann::json spec, double value);

/// The condition of `type` in an object's status.conditions; null when absent.
nlohmann::json condition(const nlohmann::json& object, const std::string& type);

/// A fresh directory under the test temporary directory, removed with its content on
/// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Watches the pods of one run (hetbench.io/run=RUN), from before they exist, and records every
/// pod's uids by name and the most pods that existed at once without having finished. A watch
/// that ends or breaks (a fault kubesim injects) is opened again from the last resourceVersion
/// seen, as an informer resumes, so that no event is missed.
class PodWatch {
 public:
  PodWatch(kube::KubeClient& client, const std::string& run);
  ~PodWatch();
  PodWatch(const PodWatch&) = delete;
  PodWatch& operator=(const PodWatch&) = delete;

  std::map<std::string, std::set<std::string>> uidsByName() const;
  int maxUnfinished() const;
  /// False when events may have been missed: the history to resume from was gone (410), or
  /// the first watch could not be opened.
  bool intact() const;

 private:
  void record(const kube::WatchEvent& event);
  void follow(kube::KubeClient& client, kube::WatchOptions options);

  std::unique_ptr<kube::WatchStream> stream_;  // guarded by mu_
  bool stopping_ = false;                      // guarded by mu_
  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> uids_;
  std::map<std::string, bool> unfinished_;  // pods that exist: name → not Succeeded nor Failed
  int maxUnfinished_ = 0;
  bool broken_ = false;
  std::thread thread_;
};

/// kubesim in-process with the BenchmarkRun and IPUJob CRDs installed, a kubeconfig for it,
/// a REST client for the test, and the hetbench-operator processes the test starts. Members are
/// destroyed operators first, then the directories they wrote into, then kubesim.
class OperatorTest : public ::testing::Test {
 protected:
  OperatorTest();
  void SetUp() override;

  /// Starts an operator with the flags that keep it local (kubeconfig, log directory, ports
  /// chosen by the kernel, JSON logs) followed by `extraArgs`, and waits until it is ready.
  OperatorProcess& startOperator(const std::vector<std::string>& extraArgs = {});

  /// The token of a service account that may get /metrics through the shipped
  /// manifests/observability/metrics-reader.yaml (Prometheus' account there), made at first use.
  std::string metricsToken();

  nlohmann::json createRun(const std::string& name, const nlohmann::json& spec);
  /// The run, or null once it is gone.
  nlohmann::json getRun(const std::string& name);
  /// Waits until status.phase is `phase`; returns the run as last read.
  nlohmann::json waitForPhase(const std::string& name, const std::string& phase);

  /// The objects labelled hetbench.io/run=RUN (pods include those of Jobs and IPUJobs).
  std::vector<nlohmann::json> workloads(const kube::GroupVersionResource& gvr,
                                        const std::string& run);
  /// The Events about the run.
  std::vector<nlohmann::json> events(const std::string& run);
  /// Waits until an Event about the run has `reason`.
  bool waitForEvent(const std::string& run, const std::string& reason);
  nlohmann::json lease();

  static bool eventually(const std::function<bool()>& condition,
                         std::chrono::milliseconds timeout = kWait) {
    return kubesim::testing::Harness::eventually(condition, timeout);
  }

  kubesim::testing::Harness harness_;
  TempDir dir_;
  std::filesystem::path logDir_;
  std::string kubeconfig_;
  /// The serving certificate of the operators' /metrics and log server (--tls-cert-dir).
  http::ServingCertificate endpointCertificate_;
  std::filesystem::path certDir_;
  std::string metricsToken_;
  common::SystemClock clock_;
  std::unique_ptr<kube::KubeClient> client_;
  std::vector<std::unique_ptr<OperatorProcess>> operators_;
};

}  // namespace hetbench::controller::testing
