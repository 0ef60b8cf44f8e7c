#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetbench/benchmark/series.h"
#include "hetbench/common/clock.h"
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
///
/// Confirmation reruns (benchmark/confirmation.h): when the trial just added is Suspect and its
/// run has spec.confirm, starts a confirmation in the series' status and creates its reruns,
/// BenchmarkRuns owned by the series; a rerun's trial is not a point of the history but a value
/// of the confirmation, which each ended rerun advances (more reruns, or a verdict). Events on
/// the series and on the suspect trial's run: Confirming when it starts, then Regressed,
/// NodeSuspect (naming the nodes), NotConfirmed or Inconclusive; reruns still under way when the
/// verdict comes are suspended, so that they free their accelerators.
class SeriesReconciler {
 public:
  SeriesReconciler(kube::KubeClient& client, const RunCache& cache, const common::Clock& clock,
                   kube::EventRecorder& events, benchmark::SeriesOptions options = {});

  /// Adds the judged trials of run `ns/name` that the series lack; for a rerun, its value to
  /// its series' confirmation.
  common::Result<ReconcileResult> reconcile(const std::string& ns, const std::string& name);

  /// Judges series `ns/name` again as its spec now says (a user set spec.acceptedAfter) and
  /// writes its status when that changes it; nothing for a series that is gone.
  common::Result<ReconcileResult> rejudge(const std::string& ns, const std::string& name);

  /// The series controller's work-queue key of a series whose spec changed: "series/NS/NAME",
  /// which no run's "NS/NAME" can be (names hold no slash).
  static std::string seriesKey(const nlohmann::json& series);

 private:
  common::Result<ReconcileResult> reconcileRerun(const std::string& ns,
                                                 const benchmark::Run& rerun);
  /// Series `ns/name`, or none when it is gone.
  common::Result<std::optional<nlohmann::json>> existingSeries(const std::string& ns,
                                                               const std::string& name);
  /// Suspends (cancels) a rerun that no running confirmation waits for any longer, unless it has
  /// ended or is suspended already.
  common::Status stopRerun(const std::string& ns, const benchmark::Run& rerun);
  /// Creates the reruns of the series' running confirmation that do not exist yet.
  common::Status createReruns(const std::string& ns, const nlohmann::json& series,
                              const benchmark::SeriesConfirmation& confirmation);
  /// The suspect trial's run, when it is still the one the confirmation is about.
  std::optional<benchmark::Run> suspectRun(const std::string& ns,
                                           const benchmark::SeriesConfirmation& confirmation) const;
  /// The Event of a confirmation's start or end, on the series and on the suspect's run.
  void noteConfirmation(const std::string& ns, const nlohmann::json& series,
                        const benchmark::SeriesConfirmation& confirmation);
  bool served();
  bool recorded(const std::string& run, const std::string& key) const;
  /// The Events of what judging the series found after `added` ("run uid/trial") came in;
  /// `suspect`: screening found the latest judged trial Suspect.
  void noteChanges(const nlohmann::json& series, const benchmark::SeriesSpec& spec,
                   const std::vector<benchmark::SeriesChange>& before,
                   const benchmark::SeriesStatus& status, const std::set<std::string>& added,
                   bool suspect);

  kube::KubeClient& client_;
  const RunCache& cache_;
  const common::Clock& clock_;
  kube::EventRecorder& events_;
  benchmark::SeriesOptions options_;
  mutable std::mutex mu_;
  bool served_ = false;
  /// By run ("namespace/name"), the "run uid/trial" of the points this process wrote or found
  /// written; a run's entry goes when a reconcile finds the run gone.
  std::map<std::string, std::set<std::string>> recorded_;
};

}  // namespace hetbench::controller
