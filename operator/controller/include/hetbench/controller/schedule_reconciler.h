#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/kube/client.h"
#include "hetbench/kube/events.h"

namespace hetbench::controller {

/// The BenchmarkSchedule resource.
inline const kube::GroupVersionResource kBenchmarkSchedules{"hetbench.io", "v1alpha1",
                                                            "benchmarkschedules", true};

/// What the schedule reconciler reads instead of the API server: the informers' caches.
class ScheduleCache {
 public:
  virtual ~ScheduleCache() = default;
  virtual std::optional<nlohmann::json> schedule(const std::string& ns,
                                                 const std::string& name) const = 0;
  /// The BenchmarkRuns labelled hetbench.io/schedule=SCHEDULE.
  virtual std::vector<nlohmann::json> scheduledRuns(const std::string& ns,
                                                    const std::string& schedule) const = 0;
  /// The BenchmarkSystem of that name, which the run template is placed on when it is checked.
  virtual SystemLookup system(const std::string& /*name*/) const { return {}; }
};

/// Drives one BenchmarkSchedule as the CronJob controller drives a CronJob: creates the
/// BenchmarkRun of each slot at its time (named after the schedule and the slot, owned by the
/// schedule, so that one slot never gets two runs, across restarts too), starts only the latest
/// of several missed slots and only within startingDeadlineSeconds, applies the concurrency
/// policy, prunes finished runs beyond the history limits (never a failed run that still keeps
/// workloads for inspection), and writes the status through /status. Every time comes from the
/// injected clock; the result asks to be called again at the next slot.
class ScheduleReconciler {
 public:
  ScheduleReconciler(kube::KubeClient& client, const ScheduleCache& cache,
                     const common::Clock& clock, kube::EventRecorder& events);

  common::Result<ReconcileResult> reconcile(const std::string& ns, const std::string& name);

 private:
  kube::KubeClient& client_;
  const ScheduleCache& cache_;
  const common::Clock& clock_;
  kube::EventRecorder& events_;
};

}  // namespace hetbench::controller
