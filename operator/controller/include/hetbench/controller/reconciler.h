#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/controller/slurm_connector.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"
#include "hetbench/logs/collector.h"

namespace hetbench::controller {

/// The BenchmarkRun resource.
inline const kube::GroupVersionResource kBenchmarkRuns{"hetbench.io", "v1alpha1", "benchmarkruns",
                                                       true};
/// Graphcore's IPUJob resource.
inline const kube::GroupVersionResource kIpuJobs{"graphcore.ai", "v1alpha1", "ipujobs", true};

/// The BenchmarkSystem resource (cluster-scoped).
inline const kube::GroupVersionResource kBenchmarkSystems{"hetbench.io", "v1alpha1",
                                                          "benchmarksystems", false};

/// The resource of a workload kind.
const kube::GroupVersionResource& resourceOf(benchmark::WorkloadKind kind);

/// What the cache knows of a BenchmarkSystem.
struct SystemLookup {
  enum class State {
    kNotServed,  // no BenchmarkSystem CRD: runs keep spec.system as a label only
    kSyncing,    // the informer has not listed them yet: acceptance waits
    kAbsent,
    kFound,
  };
  State state = State::kNotServed;
  nlohmann::json object;
};

/// What the reconciler reads instead of the API server: the informers' caches. They may lag
/// behind the reconciler's own writes; the reconciler is written to converge regardless.
class RunCache {
 public:
  virtual ~RunCache() = default;
  virtual std::optional<nlohmann::json> run(const std::string& ns,
                                            const std::string& name) const = 0;
  /// Every BenchmarkRun of the namespace (the history that fromHistory references read).
  virtual std::vector<nlohmann::json> runs(const std::string& ns) const = 0;
  /// The Pods, Jobs and IPUJobs labelled with the run's name (hetbench.io/run), including the
  /// pods that Jobs and IPUJobs create from the labelled templates.
  virtual std::vector<nlohmann::json> pods(const std::string& ns, const std::string& run) const = 0;
  virtual std::vector<nlohmann::json> jobs(const std::string& ns, const std::string& run) const = 0;
  virtual std::vector<nlohmann::json> ipuJobs(const std::string& ns,
                                              const std::string& run) const = 0;
  /// The BenchmarkSystem of that name (cluster-scoped).
  virtual SystemLookup system(const std::string& name) const = 0;
};

struct ReconcilerOptions {
  /// Where each unit's rendered manifest is kept (`NAMESPACE/RUN/TRIAL-REPETITION/`); empty
  /// keeps none.
  std::filesystem::path logDir;
  /// Attempts of a status write that meets a Conflict (each after a fresh read).
  int statusAttempts = 3;
  /// The Kueue LocalQueue of runs that name none (spec.queueName absent); empty: none.
  std::string defaultQueueName;
  /// Connects to the SlurmClusters of units that run there; none: such units wait, and their
  /// run's SlurmReachable condition says why.
  const SlurmConnector* slurm = nullptr;
  /// The most bytes kept of a Slurm job's output (--log-max-bytes).
  std::uint64_t logMaxBytes = 256ull << 20;
  /// How often a Slurm unit's job is looked at while it has not ended.
  std::chrono::nanoseconds slurmPollInterval{std::chrono::seconds(10)};
};

/// What the work queue should do with the key next.
struct ReconcileResult {
  std::optional<std::chrono::nanoseconds> requeueAfter;
};

/// Observes the reconciler's work, for metrics and logs.
struct ReconcileObserver {
  std::function<void(const std::string& phase)> runFinished;  // Succeeded, Failed, Cancelled
};

/// Drives one BenchmarkRun towards its spec: accepts or rejects the spec, plans its units,
/// starts them within `parallelism`, reads each workload's outcome from its own status,
/// follows their pods' logs (a workload is deleted by cleanup only once its logs are on disk),
/// enforces startTimeout and timeLimit by stopping the workload, applies the cleanup policy
/// and retention, honours suspend and the deletion finalizer, and writes the status (only
/// through /status) and Events. Every step is idempotent: workload names are deterministic,
/// so a restarted operator adopts what exists; a status write that conflicts is redone from
/// a fresh read. Thread-safe for distinct runs (the work queue never hands one key to two
/// workers).
class Reconciler {
 public:
  Reconciler(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
             kube::EventRecorder& events, ReconcilerOptions options,
             logs::LogTracker* logs = nullptr, ReconcileObserver observer = {});

  common::Result<ReconcileResult> reconcile(const std::string& ns, const std::string& name);

 private:
  kube::KubeClient& client_;
  const RunCache& cache_;
  const common::Clock& clock_;
  kube::EventRecorder& events_;
  ReconcilerOptions options_;
  logs::LogTracker* logs_;
  ReconcileObserver observer_;
};

}  // namespace hetbench::controller
