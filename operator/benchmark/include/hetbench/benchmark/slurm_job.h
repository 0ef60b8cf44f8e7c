#pragma once

// Units on a Slurm cluster (docs/slurm.md, "Runs on Slurm"): the workload's `slurm` block, the
// batch job a unit becomes, and what a job's state means for the unit. Pure.

#include <chrono>
#include <optional>
#include <string>

#include "hetbench/benchmark/policy.h"
#include "hetbench/benchmark/slurm_placement.h"
#include "hetbench/common/clock.h"
#include "hetbench/slurm/job.h"

namespace hetbench::benchmark {

/// The workload kind a Slurm unit's status names.
inline constexpr std::string_view kSlurmJobKind = "SlurmJob";

/// The comment that marks a unit's job, by which a restarted operator finds it again:
/// "hetbench.io/unit=NAMESPACE/RUN/UID/TRIAL-REPETITION".
std::string slurmJobComment(const std::string& ns, const std::string& run, const std::string& uid,
                            std::int64_t trial, std::int64_t repetition);

/// The job's time limit in whole minutes, Slurm's unit: timeLimit rounded up (at least 1), so
/// that Slurm ends the job even while the operator is down; the operator cancels it at timeLimit
/// itself when it looks first.
int slurmTimeLimitMinutes(std::chrono::nanoseconds timeLimit);

/// What a job's state means for its unit: nothing while it is pending, running, suspended or
/// completing; else how the unit ends (Succeeded on COMPLETED with exit 0; TimedOut on TIMEOUT
/// and DEADLINE; Cancelled on CANCELLED; Failed otherwise, with Slurm's state as the reason and
/// its exit code, signal and reason in the message).
std::optional<UnitEnd> slurmJobEnd(const slurm::JobInfo& job);

/// Whether a job still pending at `now`, submitted at `submitted`, has waited past
/// startTimeout: then Failed with Slurm's pending reason as the unit's reason.
UnitDecision checkSlurmStart(const slurm::JobInfo& job, common::WallTime submitted,
                             std::chrono::nanoseconds startTimeout, common::WallTime now);

}  // namespace hetbench::benchmark
