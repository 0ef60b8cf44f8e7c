#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/controller/schedule_reconciler.h"
#include "hetbench/controller/series_reconciler.h"
#include "hetbench/controller/slurm_cluster_reconciler.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"
#include "hetbench/kube/informer.h"
#include "hetbench/kube/leader_election.h"
#include "hetbench/kube/workqueue.h"
#include "hetbench/logs/janitor.h"
#include "hetbench/metrics/controller_metrics.h"

namespace hetbench::controller {

struct ManagerOptions {
  std::vector<std::string> namespaces;  // empty: all namespaces
  int workers = 1;                      // --max-concurrent-reconciles
  bool leaderElect = false;
  kube::LeaderElectionConfig leaderElection;
  ReconcilerOptions reconciler;
  logs::LogTracker* logs = nullptr;  // log collection; none when null
  /// Keeps the log directory within its retention and size; swept every `logSweepInterval`
  /// while the workers run (with leader election: by the leader only). None when null.
  logs::LogJanitor* janitor = nullptr;
  std::chrono::nanoseconds logSweepInterval{std::chrono::minutes(1)};
  std::chrono::nanoseconds resync{std::chrono::minutes(10)};
  /// Told of every change of a watched BenchmarkRun, on the informer's thread, besides the
  /// controller (the benchmark metrics follow the runs' status through them, the workload pod
  /// metrics their trials' configurations).
  std::vector<kube::InformerHandlers> runHandlers;
  /// Told of every change of a watched Pod (those labelled hetbench.io/run, which the log
  /// collector follows), on the informer's thread, besides the controller (the workload pod
  /// metrics).
  kube::InformerHandlers podHandlers;
  /// Told of every change of a watched BenchmarkSeries, on the informer's thread (the series
  /// metrics follow their status through them). BenchmarkSeries are watched once their resource
  /// is served; nothing else reads them from a cache.
  kube::InformerHandlers seriesHandlers;
  /// How the operator reaches SlurmClusters (their token Secrets' namespace) and how often the
  /// SlurmCluster controller probes them.
  SlurmConnectorOptions slurmConnector;
  SlurmClusterReconcilerOptions slurmClusters;
  /// How often a missing IPUJob, BenchmarkSchedule, BenchmarkSeries, BenchmarkSystem or
  /// SlurmCluster resource is looked for again (its CRD may come later).
  std::chrono::nanoseconds discoveryInterval{std::chrono::seconds(30)};
};

/// Runs the BenchmarkRun, BenchmarkSchedule and BenchmarkSeries controllers: informers on
/// BenchmarkRuns, BenchmarkSchedules, BenchmarkSeries and the Pods, Jobs and IPUJobs labelled
/// hetbench.io/run (per watched namespace), a work queue per controller, `workers` run reconcile
/// threads, one schedule thread and one series thread, started once the caches have synced and,
/// with leader election, only while this replica leads. IPUJobs, BenchmarkSchedules and
/// BenchmarkSeries are watched once their resources are served.
class Manager {
 public:
  Manager(kube::KubeClient& client, const common::Clock& clock, common::RandomSource& random,
          kube::EventRecorder& events, metrics::ControllerMetrics& metrics, ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  void start();
  /// Stops taking keys, lets the reconciles in progress finish, releases the lease, stops
  /// the informers. Idempotent.
  void stop();

  /// Every informer that the controllers read has delivered its first list (the BenchmarkSeries
  /// informers, which only feed `seriesHandlers`, are not waited for).
  bool ready() const;
  /// False once this replica lost its lease, or led and no longer certainly holds it (its
  /// renewal has not succeeded within the renew deadline, even while the elector still waits
  /// for an answer): the process should exit so that it restarts with fresh state, as
  /// controller-runtime does.
  bool healthy() const { return !lostLease_.load() && !(led_.load() && !mayWrite()); }
  /// Blocks until stop() or a lost lease.
  void wait();
  /// Whether this replica may write now: without leader election always; with it only while
  /// its lease is certainly held (kube::LeaderElector::isLeader), so that a replica that lost
  /// it, or resumes from a pause past it, writes nothing the next leader also writes. The log
  /// collector's fence; a run worker that finds it false puts its key back.
  bool mayWrite() const;

  /// How often each resource's watches were re-established, over the watched namespaces.
  std::map<std::string, std::uint64_t> watchRestarts() const;

 private:
  class Cache;
  using Reconcile =
      std::function<common::Result<ReconcileResult>(const std::string&, const std::string&)>;
  /// One controller's worker: takes keys ("namespace/name") off its queue and reconciles them.
  void work(kube::WorkQueue& queue, std::string_view controller, const Reconcile& reconcile);
  void housekeeping();
  void enqueueRun(const nlohmann::json& run);
  void enqueueOwner(const nlohmann::json& workload);
  void enqueueSchedule(const nlohmann::json& schedule);
  /// A run with judged trials, for the series of their configurations.
  void enqueueSeries(const nlohmann::json& run);
  /// What an informer watches: BenchmarkRuns, workloads labelled with their run,
  /// BenchmarkSchedules or BenchmarkSeries; it decides the label selector, the index and which
  /// queue (or, for series, which handlers) hears of it.
  enum class Watched { kRuns, kWorkloads, kSchedules, kSeries, kSystems, kClusters };
  std::unique_ptr<kube::Informer> makeInformer(const kube::GroupVersionResource& gvr,
                                               const std::string& ns, Watched watched);
  void startDiscoveredInformers();
  /// The watched runs as the log janitor needs them.
  std::vector<logs::LiveRun> liveRuns() const;

  kube::KubeClient& client_;
  const common::Clock& clock_;
  common::RandomSource& random_;
  kube::EventRecorder& events_;
  metrics::ControllerMetrics& metrics_;
  ManagerOptions options_;
  std::unique_ptr<Cache> cache_;
  std::unique_ptr<kube::WorkQueue> queue_;
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<kube::WorkQueue> scheduleQueue_;
  std::unique_ptr<ScheduleReconciler> scheduleReconciler_;
  /// Runs with judged trials, by key, for the BenchmarkSeries of their configurations.
  std::unique_ptr<kube::WorkQueue> seriesQueue_;
  std::unique_ptr<SeriesReconciler> seriesReconciler_;
  std::unique_ptr<kube::WorkQueue> slurmClusterQueue_;
  std::unique_ptr<SlurmConnector> slurmConnector_;
  std::unique_ptr<SlurmClusterReconciler> slurmClusterReconciler_;
  std::unique_ptr<kube::LeaderElector> elector_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool workersStarted_ = false;
  bool leading_ = false;
  std::atomic<bool> draining_{false};
  std::atomic<bool> lostLease_{false};
  std::atomic<bool> led_{false};  // this replica has led since it started
  std::vector<std::thread> workers_;
  std::thread electorThread_;
  std::thread housekeepingThread_;
};

}  // namespace hetbench::controller
