#pragma once

// Units submitted to a Kueue LocalQueue (spec.queueName; docs/api.md "Queues (Kueue)"): how the
// workload is submitted, where it stands with its queue, and what that means for the unit.
// Kueue decides when a queued workload starts; the time it waits is bounded by
// spec.queueTimeout, and startTimeout and timeLimit count from its admission.

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "hetbench/benchmark/policy.h"
#include "hetbench/benchmark/render.h"
#include "hetbench/common/clock.h"

namespace hetbench::benchmark {

/// Whether `name` can name a LocalQueue in the queue label: a DNS-1123 subdomain (a LocalQueue's
/// name) of at most 63 characters (a label value).
bool isQueueName(std::string_view name);
/// What isQueueName asks, for error messages.
inline constexpr std::string_view kQueueNameRule =
    "a LocalQueue's name: at most 63 lower case alphanumeric characters, '-' or '.', starting "
    "and ending with an alphanumeric character";

/// Whether Kueue integrates workloads of `kind`: Pods and Jobs, not IPUJobs.
bool queueable(WorkloadKind kind);

/// Submits a rendered unit of a queueable kind to the LocalQueue `queue` as Kueue's integrations
/// expect: the label kQueueNameLabel on the workload; a Job is created suspended (Kueue admits it
/// by resuming it and may set its pod template's node selector and tolerations first); a Pod
/// carries the scheduling gate kAdmissionGate, which Kueue's webhook would add too and removes at
/// admission, so that the pod cannot be scheduled before admission even where the webhook does
/// not reach the namespace.
void submitToQueue(RenderedUnit& unit, const std::string& queue);

/// Where a workload stands with its queue, read from the workload alone.
enum class QueueStage {
  kNone,      // not submitted to a queue
  kWaiting,   // not admitted: a suspended Job, or a Pod behind the admission gate
  kAdmitted,  // admitted (running or finished)
  kStopped,   // a Pod that Kueue stopped (TerminationTarget=True), about to be deleted
};

struct QueueState {
  QueueStage stage = QueueStage::kNone;
  /// When a Job was admitted: its status.startTime, which the Job controller sets on resuming.
  std::optional<common::WallTime> admittedAt;
  std::string message;  // why Kueue stopped a Pod: the condition's reason and message
};

/// A Job with the queue label is waiting while spec.suspend is true and it has not finished
/// (Complete or Failed); a Pod with the label is stopped once its TerminationTarget condition is
/// True, else waiting while the admission gate is on it. An IPUJob is never queued.
QueueState queueState(WorkloadKind kind, const nlohmann::json& object);

/// What a Queued or Running unit's queue state means for it.
struct QueueDecision {
  std::optional<UnitEnd> end;
  std::optional<common::WallTime> recheckAt;
  /// A Queued unit was admitted at this time: it is Running from then on.
  std::optional<common::WallTime> admittedAt;

  bool operator==(const QueueDecision&) const = default;
};

/// Queued and waiting: Failed (QueueTimeout) from `queuedSince` + `queueTimeout` on, else look
/// again then. Queued and admitted: admitted at the Job's admission time, else `now`. Running,
/// and waiting again (Kueue suspended the Job it had admitted: preemption or another eviction;
/// Kueue would resume it once readmitted, so the attempt is lost either way) or stopped (a Pod):
/// Failed (Evicted). Queued and stopped: Failed (Evicted). Anything else: nothing to do.
QueueDecision checkQueue(UnitPhase phase, const QueueState& state, common::WallTime queuedSince,
                         std::chrono::nanoseconds queueTimeout, common::WallTime now);

}  // namespace hetbench::benchmark
