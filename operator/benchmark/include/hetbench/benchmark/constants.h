#pragma once

#include <cstddef>
#include <string_view>

namespace hetbench::benchmark {

inline constexpr std::string_view kGroup = "hetbench.io";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kApiVersion = "hetbench.io/v1alpha1";
inline constexpr std::string_view kKind = "BenchmarkRun";
inline constexpr std::string_view kPlural = "benchmarkruns";

inline constexpr std::string_view kScheduleKind = "BenchmarkSchedule";
inline constexpr std::string_view kSchedulePlural = "benchmarkschedules";

inline constexpr std::string_view kSeriesKind = "BenchmarkSeries";
inline constexpr std::string_view kSeriesPlural = "benchmarkseries";
inline constexpr std::string_view kSystemKind = "BenchmarkSystem";
inline constexpr std::string_view kSystemPlural = "benchmarksystems";

/// On a run a BenchmarkSchedule created: the schedule's name, and the slot the run is for
/// (RFC 3339), which names the run and survives the schedule's status.
inline constexpr std::string_view kScheduleLabel = "hetbench.io/schedule";
inline constexpr std::string_view kScheduledTimeAnnotation = "hetbench.io/scheduled-time";

/// On a confirmation rerun (docs/metrics.md, "Confirmation reruns"): the series it confirms a
/// trial of, the run of that trial, and where it is placed (kSameNodes or kOtherNodes).
inline constexpr std::string_view kSeriesLabel = "hetbench.io/series";
inline constexpr std::string_view kConfirmsLabel = "hetbench.io/confirms";
inline constexpr std::string_view kPlacementLabel = "hetbench.io/placement";
inline constexpr std::string_view kSameNodes = "same";
inline constexpr std::string_view kOtherNodes = "other";

/// Labels on every workload object (and on the pods of Job and IPUJob templates).
inline constexpr std::string_view kRunLabel = "hetbench.io/run";  // the run's name
inline constexpr std::string_view kTrialLabel = "hetbench.io/trial";
inline constexpr std::string_view kRepetitionLabel = "hetbench.io/repetition";
inline constexpr std::string_view kIdLabel = "hetbench.io/id";  // shortId of the run's uid
inline constexpr std::string_view kRetainedLabel = "hetbench.io/retained";
inline constexpr std::string_view kBenchmarkLabel = "hetbench.io/benchmark";
inline constexpr std::string_view kSystemLabel = "hetbench.io/system";

/// On the run: the spec the controller accepted, as JSON, so that a later edit cannot change
/// a run that has started (only `suspend` may change).
inline constexpr std::string_view kAcceptedSpecAnnotation = "hetbench.io/accepted-spec";
/// On the run: the BenchmarkSystem it was placed on at acceptance (name, uid, generation and
/// spec, as JSON); the accepted spec already holds the placement.
inline constexpr std::string_view kAcceptedSystemAnnotation = "hetbench.io/accepted-system";
/// On a retained workload: when it failed (RFC 3339), for retainFor and maxRetained.
inline constexpr std::string_view kFailedAtAnnotation = "hetbench.io/failed-at";

/// Makes deleting a run stop its log streams and delete all its workloads first.
inline constexpr std::string_view kFinalizer = "hetbench.io/cleanup";

/// Environment given to every benchmark container.
inline constexpr std::string_view kEnvRun = "HETBENCH_RUN";
inline constexpr std::string_view kEnvTrial = "HETBENCH_TRIAL";
inline constexpr std::string_view kEnvRepetition = "HETBENCH_REPETITION";
inline constexpr std::string_view kEnvSystem = "HETBENCH_SYSTEM";
/// Multi-node runs: the rank-0 pod's address and the rendezvous port, the number of pods and
/// each pod's rank (the Indexed Job's completion index).
inline constexpr std::string_view kEnvMasterAddr = "MASTER_ADDR";
inline constexpr std::string_view kEnvMasterPort = "MASTER_PORT";
inline constexpr std::string_view kEnvWorldSize = "WORLD_SIZE";
inline constexpr std::string_view kEnvRank = "RANK";
inline constexpr int kMasterPort = 29500;

/// The most (trial, repetition) units one run may plan, so that its status stays far below
/// etcd's object size limit.
inline constexpr std::size_t kMaxUnits = 1000;
/// Matrix parameters per run, the bytes of a parameter's name, and the bytes one trial's
/// parameters take as JSON: every unit record and trial result of the status repeats them.
inline constexpr std::size_t kMaxMatrixParameters = 16;
inline constexpr std::size_t kMaxParameterNameBytes = 63;
inline constexpr std::size_t kMaxTrialParameterBytes = 1024;
/// Entries of spec.references (each gives every trial result a check).
inline constexpr std::size_t kMaxReferences = 64;
/// The most bytes of a unit's reason, and of a unit's or a condition's message, that the
/// status keeps: text from the cluster (a pod's termination message, an API error) and from
/// logs has no bound of its own. Longer text is cut at a rune boundary and ends in "...".
inline constexpr std::size_t kMaxStatusReasonBytes = 128;
inline constexpr std::size_t kMaxStatusMessageBytes = 1024;

/// Condition types of a run's and a schedule's status.
namespace condition {
inline constexpr std::string_view kAccepted = "Accepted";
inline constexpr std::string_view kRunning = "Running";
inline constexpr std::string_view kComplete = "Complete";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kRegressed = "Regressed";
}  // namespace condition

// Kueue's contract (kueue.sigs.k8s.io, "Run a Kubernetes Job" and "Run Plain Pods"): the label
// that submits a Job or a Pod to a LocalQueue, the scheduling gate a queued Pod waits behind, and
// the Pod condition Kueue sets before it deletes a Pod it stops.
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kAdmissionGate = "kueue.x-k8s.io/admission";
inline constexpr std::string_view kTerminationTargetCondition = "TerminationTarget";

/// The reasons of Events, conditions and units, as CamelCase words.
namespace reason {
// Runs: Events.
inline constexpr std::string_view kAccepted = "Accepted";
inline constexpr std::string_view kInvalidSpec = "InvalidSpec";
inline constexpr std::string_view kSpecImmutable = "SpecImmutable";
inline constexpr std::string_view kCreated = "Created";
inline constexpr std::string_view kTrialSucceeded = "TrialSucceeded";
inline constexpr std::string_view kTrialFailed = "TrialFailed";
inline constexpr std::string_view kTrialTimedOut = "TrialTimedOut";
inline constexpr std::string_view kTrialCancelled = "TrialCancelled";
inline constexpr std::string_view kRetained = "Retained";
inline constexpr std::string_view kRetentionExpired = "RetentionExpired";
inline constexpr std::string_view kRunSucceeded = "RunSucceeded";
inline constexpr std::string_view kRunFailed = "RunFailed";
inline constexpr std::string_view kRunCancelled = "RunCancelled";
inline constexpr std::string_view kRegressed = "Regressed";
inline constexpr std::string_view kTrialInvalid = "TrialInvalid";
// On a BenchmarkSeries (and, for confirmations, on the suspect trial's run; a confirmed
// regression is kRegressed).
inline constexpr std::string_view kChangePoint = "ChangePoint";
inline constexpr std::string_view kTrialSuspect = "TrialSuspect";
inline constexpr std::string_view kConfirming = "Confirming";
inline constexpr std::string_view kNodeSuspect = "NodeSuspect";
inline constexpr std::string_view kNotConfirmed = "NotConfirmed";
inline constexpr std::string_view kInconclusive = "Inconclusive";
inline constexpr std::string_view kLogIncomplete = "LogIncomplete";
// Runs: conditions.
inline constexpr std::string_view kBelowReference = "BelowReference";
inline constexpr std::string_view kNoRegression = "NoRegression";
inline constexpr std::string_view kNoFailure = "NoFailure";
inline constexpr std::string_view kUnitsRunning = "UnitsRunning";
inline constexpr std::string_view kAllSucceeded = "AllSucceeded";
// Units (status.trials[].reason).
inline constexpr std::string_view kCompleted = "Completed";
inline constexpr std::string_view kUnitFailed = "Failed";
inline constexpr std::string_view kUnknownWorkload = "UnknownWorkload";
inline constexpr std::string_view kWorkloadDeleted = "WorkloadDeleted";
inline constexpr std::string_view kInvalidWorkload = "InvalidWorkload";
inline constexpr std::string_view kNameConflict = "NameConflict";
inline constexpr std::string_view kResourceNotServed = "ResourceNotServed";
inline constexpr std::string_view kCreateFailed = "CreateFailed";
inline constexpr std::string_view kInvalidMetrics = "InvalidMetrics";
inline constexpr std::string_view kMetricMissing = "MetricMissing";
inline constexpr std::string_view kQueued = "Queued";
inline constexpr std::string_view kAdmitted = "Admitted";
inline constexpr std::string_view kQueueTimeout = "QueueTimeout";
inline constexpr std::string_view kEvicted = "Evicted";
inline constexpr std::string_view kSubmitted = "Submitted";
inline constexpr std::string_view kSubmitRefused = "SubmitRefused";
inline constexpr std::string_view kJobLost = "JobLost";
inline constexpr std::string_view kSlurmUnreachable = "SlurmUnreachable";
// Schedules: Events and conditions.
inline constexpr std::string_view kScheduled = "Scheduled";
inline constexpr std::string_view kMissedSchedule = "MissedSchedule";
inline constexpr std::string_view kRunAlreadyActive = "RunAlreadyActive";
inline constexpr std::string_view kReplacedRun = "ReplacedRun";
inline constexpr std::string_view kSuccessfulCreate = "SuccessfulCreate";
inline constexpr std::string_view kSuccessfulDelete = "SuccessfulDelete";
inline constexpr std::string_view kFailedCreate = "FailedCreate";
}  // namespace reason

}  // namespace hetbench::benchmark
