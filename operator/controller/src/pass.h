#pragma once

// One reconcile of one BenchmarkRun (Pass), shared by reconciler.cc (acceptance, finalizer,
// observation), pass_units.cc (each unit's lifecycle and its workload) and pass_results.cc
// (metrics, verdicts and the status). The decisions are the policies' of operator/benchmark/;
// the pass reads the cluster, carries them out and writes the status. Internal to the
// controller.

#include <map>
#include <string>
#include <vector>

#include "hetbench/benchmark/cleanup.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/policy.h"
#include "hetbench/benchmark/queue.h"
#include "hetbench/benchmark/requeue.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/system.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/logs/collector.h"
#include "pass_loop.h"

namespace hetbench::controller::detail {

using benchmark::UnitPhase;
using benchmark::UnitRecord;
using benchmark::WorkloadKind;
using kube::EventType;
using nlohmann::json;

/// Whether an object's ownerReferences name `uid`.
bool ownedBy(const json& object, const std::string& uid);
/// Whether an object is being deleted (metadata.deletionTimestamp is set).
bool terminating(const json& object);

/// "trial 1 repetition 0 (gpus=4)".
std::string unitLabel(const UnitRecord& unit);

/// One reconcile of one run: the observed state, the decisions and the status to write.
class Pass : public EventBuffer {
 public:
  Pass(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
       const ReconcilerOptions& options, logs::LogTracker* logs, json object);

  common::Result<ReconcileResult> execute();
  const json& object() const { return object_; }
  std::string finishedPhase() const { return finishedPhase_; }

 private:
  common::Result<ReconcileResult> finalize();
  common::Result<ReconcileResult> reject(const std::string& reason, const std::string& message);
  /// Checks the spec to run (the accepted one, or the current one on first sight), recording
  /// it and the finalizer on first sight; a rejection when it is invalid.
  common::Result<std::optional<ReconcileResult>> accept();
  common::Status ensureAccepted(const json& accepted,
                                const std::optional<benchmark::AcceptedSystem>& system);
  /// A spec placed on the system the run was accepted on, as acceptance placed it.
  json placedAsAccepted(json spec) const;
  std::vector<UnitRecord> mergePlan(const std::vector<benchmark::Unit>& plan) const;
  common::Status startPending(std::vector<UnitRecord>& units,
                              const std::vector<benchmark::Unit>& plan);
  common::Status writeStatus(benchmark::RunStatus status);
  void observe();
  const json* workloadOf(const UnitRecord& unit) const;
  void adopt(UnitRecord& unit);
  common::Status advance(UnitRecord& unit);
  common::Result<json> readWorkload(UnitRecord& unit, WorkloadKind kind);
  void checkRunning(UnitRecord& unit, WorkloadKind kind, const json& object);
  /// Carries out what the unit's queue decides (queue.h); true when the unit is Running after it.
  bool checkQueue(UnitRecord& unit, const benchmark::QueueState& queue);
  common::Status start(UnitRecord& unit, const benchmark::Unit& planned);
  /// Creates the unit's workload; `queue` names its LocalQueue for the Event ("" for none).
  common::Result<json> createWorkload(UnitRecord& unit, const benchmark::RenderedUnit& r,
                                      const std::string& queue);
  void keepManifest(const UnitRecord& unit, const benchmark::RenderedUnit& r) const;
  common::Status stop(UnitRecord& unit, bool failure);
  common::Status cleanUp(UnitRecord& unit, bool endRecorded);
  common::Status retain(UnitRecord& unit, WorkloadKind kind, const json& object);
  common::Status applyRetention(std::vector<UnitRecord>& units);
  common::Status removeWorkload(WorkloadKind kind, const std::string& name);
  void finish(UnitRecord& unit, const benchmark::UnitEnd& end);
  std::vector<std::string> nodesOf(const UnitRecord& unit) const;
  std::vector<json> podsOf(const UnitRecord& unit) const;
  /// The unit's pods as the API server has them, for decisions a lagging cache must not take.
  common::Result<std::vector<json>> livePodsOf(const UnitRecord& unit) const;
  /// Follows the logs of the unit's pods; where they stand, all together.
  logs::PodLogs collectLogs(const UnitRecord& unit);
  /// For an ended unit whose logs have not ended: gives them up once they are overdue
  /// (benchmark::logsOverdue), and looks again a second later.
  void awaitLogs(const UnitRecord& unit);
  /// Whether units are measured: only with log collection into a log directory.
  bool measuring() const { return logs_ != nullptr && !options_.logDir.empty(); }
  /// A unit's log directory: the one it recorded when it started, or else the layout's under
  /// this run's uid.
  std::string logDirOf(const UnitRecord& unit) const;
  /// Reads a succeeded unit's metrics from its kept logs; a malformed metrics line or a
  /// required metric the logs lack fails the unit. Logs that are `incomplete` ("" when whole)
  /// are measured as they are, and the unit's message and a Warning Event say why.
  void measure(UnitRecord& unit, const std::string& incomplete);
  /// A Warning Event for each trial whose verdict has just become Regressed.
  void noteRegressions(const benchmark::RunStatus& before, benchmark::RunStatus& after);
  /// status.results (per judged trial), status.verdict, latestEffectiveThroughput, Regressed.
  void addResults(benchmark::RunStatus& status) const;
  benchmark::RunStatus buildStatus(const std::vector<UnitRecord>& units) const;
  void noteFinished(const benchmark::RunStatus& status);

  // Units on Slurm (pass_slurm.cc).
  static bool isSlurm(const UnitRecord& unit);
  /// The file a unit's job writes, in the SlurmCluster's shared output directory.
  std::string slurmOutputName(const UnitRecord& unit) const;
  /// The connection to a SlurmCluster, made once per pass; null (the trouble noted) when it
  /// cannot be made.
  const SlurmConnection* slurmConnection(const std::string& cluster);
  /// Notes what went wrong with Slurm, for the SlurmReachable condition, and looks again soon.
  void slurmTrouble(const common::Status& status);
  /// Copies what the job's output has beyond the kept log into the log directory.
  void followSlurmOutput(const UnitRecord& unit, const SlurmConnection& connection);
  /// Starts a Slurm unit: adopts its job if one exists, else submits it.
  common::Status startSlurm(UnitRecord& unit, const benchmark::RenderedUnit& r);
  /// Follows a started Slurm unit's job: its end, startTimeout, timeLimit and suspend (which
  /// cancel it), its output.
  void advanceSlurm(UnitRecord& unit);
  /// Measures an ended Slurm unit once its end is recorded.
  void cleanUpSlurm(UnitRecord& unit, bool endRecorded);
  /// Cancels the jobs of the run's Slurm units that have not ended (a deleted run).
  common::Status cancelSlurmJobs();
  /// The SlurmReachable condition of a run with Slurm units.
  void noteSlurm(benchmark::RunStatus& status);

  kube::KubeClient& client_;
  const RunCache& cache_;
  const common::Clock& clock_;
  const ReconcilerOptions& options_;
  logs::LogTracker* logs_;
  json object_;
  benchmark::Run run_;
  std::string id_;
  common::WallTime now_;
  benchmark::AcceptedRun accepted_;
  std::vector<json> pods_;
  std::map<std::string, json> jobs_;
  std::map<std::string, json> ipuJobs_;
  std::map<std::string, json> podsByName_;
  benchmark::Deadlines deadlines_;
  std::string finishedPhase_;
  bool slurmUsed_ = false;
  std::optional<common::Status> slurmTrouble_;
  std::map<std::string, common::Result<SlurmConnection>> slurmConnections_;
  std::map<std::string, std::vector<slurm::JobInfo>> slurmJobs_;
};

}  // namespace hetbench::controller::detail
