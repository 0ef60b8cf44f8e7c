#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "hetbench/benchmark/series.h"
#include "hetbench/common/status.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"

namespace hetbench::controller {

/// The BenchmarkSeries resource.
inline const kube::GroupVersionResource kBenchmarkSeries{"hetbench.io", "v1alpha1",
                                                         "benchmarkseries", true};

/// Keeps the history of every configuration (docs/metrics.md, "History per configuration"):
/// for each judged trial of a BenchmarkRun, adds a point to the BenchmarkSeries of the trial's
/// configuration (created on its first point, never owned by a run, so that it outlives the runs
/// a schedule prunes), judges the series again (benchmark::judgeSeries) and writes its status
/// through /status, guarded by its resourceVersion so that replicas and restarts never add a
/// point twice or lose one. Records a ChangePoint Event on the series for each new change point
/// (Warning when it is worse) and a TrialSuspect Warning when the trial just added is Suspect.
/// A cluster without the BenchmarkSeries CRD keeps no series (looked up again at each
/// reconcile until it is served).
class SeriesReconciler {
 public:
  SeriesReconciler(kube::KubeClient& client, const RunCache& cache, kube::EventRecorder& events,
                   benchmark::SeriesOptions options = {});

  /// Adds the judged trials of run `ns/name` that the series lack.
  common::Result<ReconcileResult> reconcile(const std::string& ns, const std::string& name);

 private:
  bool served();
  bool recorded(const std::string& run, const std::string& key) const;
  /// The Events of what judging the series found after `added` ("run uid/trial") came in.
  void noteChanges(const nlohmann::json& series, const benchmark::SeriesSpec& spec,
                   const std::vector<benchmark::SeriesChange>& before,
                   const benchmark::SeriesStatus& status, const std::set<std::string>& added);

  kube::KubeClient& client_;
  const RunCache& cache_;
  kube::EventRecorder& events_;
  benchmark::SeriesOptions options_;
  mutable std::mutex mu_;
  bool served_ = false;
  /// By run ("namespace/name"), the "run uid/trial" of the points this process wrote or found
  /// written; a run's entry goes when a reconcile finds the run gone.
  std::map<std::string, std::set<std::string>> recorded_;
};

}  // namespace hetbench::controller
