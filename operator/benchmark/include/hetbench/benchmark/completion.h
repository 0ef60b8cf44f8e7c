#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/benchmark/spec.h"

namespace hetbench::benchmark {

/// Where a workload stands, read from its own status only.
struct WorkloadState {
  enum class Phase { kWaiting, kRunning, kSucceeded, kFailed };
  Phase phase = Phase::kWaiting;
  std::string reason;   // CamelCase, e.g. BackoffLimitExceeded, OOMKilled, Error
  std::string message;  // for people, e.g. "container train exited with code 3"
};

/// Pod: status.phase, Unknown counting as Running (the pod was placed and may still run); a
/// failed pod's reason is its status.reason, else that of the first container that exited
/// non-zero (or of the first that terminated), with its exit code in the message. Job: the
/// Complete or Failed condition once True (so backoffLimit, activeDeadlineSeconds and
/// podFailurePolicy are the Job controller's to apply); a Job that is not finished is Running
/// once a pod of it is ready or has finished (status.ready, succeeded or failed > 0) or it has
/// a FailureTarget or SuccessCriteriaMet condition, and Waiting while its pods are only
/// pending, as a Pod is. IPUJob: status.state (Completed, Failed with the Failed condition's
/// reason and message, Running; anything else Waiting).
WorkloadState workloadState(WorkloadKind kind, const nlohmann::json& object);

/// Whether a unit's pods have started, and if not, why.
struct StartCheck {
  bool started = false;
  std::string reason;  // when not started: Unschedulable, ImagePullBackOff, ErrImagePull,
                       // CrashLoopBackOff, CreateContainerConfigError, ... or PodsNotStarted
  std::string message;
};

/// Started when at least `expectedPods` pods are Running, Succeeded or Failed and none is
/// stuck; pods being deleted are left out. A stuck pod (PodScheduled=False, or a container
/// waiting in a reason other than ContainerCreating/PodInitializing) gives the reason,
/// Unschedulable first, then image pull errors, then CrashLoopBackOff, then any other waiting
/// reason (among equals, the pod first by name), with its message. A finished pod is never
/// stuck: what its end means is workloadState's to say.
StartCheck startCheck(const std::vector<nlohmann::json>& pods, std::int64_t expectedPods);

}  // namespace hetbench::benchmark
