#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"

namespace hetbench::slurm {

/// The slurmrestd OpenAPI plugin versions the client speaks: v0.0.38 (Slurm 21.08 to 23.02,
/// Debian 12's 22.05) and v0.0.42 (Slurm 24.11 to 26.05). Their job fields differ; the rest of
/// the operator sees only the types below.
enum class ApiVersion { kV0_0_38, kV0_0_42 };

/// "v0.0.38" or "v0.0.42".
std::string_view apiVersionName(ApiVersion version);
/// The version of a name as `apiVersionName` spells it; Invalid for any other.
common::Result<ApiVersion> parseApiVersion(std::string_view name);
/// Every version the client speaks, oldest first.
std::vector<ApiVersion> apiVersions();

/// A batch job to submit: one script run once on the first of `nodes` nodes, with
/// `tasksPerNode` tasks and `gpusPerNode` GPUs (GRES `gpu`) allocated on each.
struct JobRequest {
  std::string name;
  /// Free text kept with the job; the operator finds its jobs again by it.
  std::string comment;
  std::string partition;
  std::string account;  // empty: the user's default
  std::string qos;      // empty: the association's default
  std::string script;   // the whole batch script, starting with "#!"
  std::string workingDirectory;
  std::string
      standardOutput;  // a path on the nodes; stderr goes there too when standardError is ""
  std::string standardError;
  /// The job's whole environment (Slurm's submission through slurmrestd copies none).
  std::vector<std::pair<std::string, std::string>> environment;
  int nodes = 1;
  int tasksPerNode = 1;
  int gpusPerNode = 0;
  /// Whole minutes, Slurm's granularity; 0 leaves the partition's default.
  int timeLimitMinutes = 0;
};

/// A job's state, Slurm's base states plus `kCompleting` (ended, its nodes still being
/// cleaned up; the final state follows).
enum class JobState {
  kPending,
  kRunning,
  kSuspended,
  kCompleting,
  kCompleted,
  kFailed,
  kCancelled,
  kTimeout,
  kNodeFail,
  kPreempted,
  kBootFail,
  kDeadline,
  kOutOfMemory,
  kUnknown,
};

/// "PENDING", "RUNNING", ...: Slurm's spelling.
std::string_view jobStateName(JobState state);
/// Whether a job in `state` will not run again (Completing is not yet finished).
bool isFinished(JobState state);

/// What the client reads of a job. Absent times are unknown or not yet reached.
struct JobInfo {
  std::int64_t id = 0;
  std::string name;
  std::string comment;
  std::string partition;
  std::string nodes;  // the allocated nodes in Slurm's host-list form, "" while pending
  std::string user;
  std::string standardOutput;
  JobState state = JobState::kUnknown;
  /// The states as slurmrestd gave them, flags included ("RUNNING", "COMPLETING"), for messages.
  std::string stateText;
  /// Why a job is pending, or why it ended the way it did ("Resources", "ReqNodeNotAvail",
  /// "NonZeroExitCode"); "" for Slurm's "None".
  std::string reason;
  std::string reasonDetail;  // state_description, where Slurm gives one
  std::optional<common::WallTime> submitTime;
  /// The actual start, only for a job that is no longer pending (Slurm gives pending jobs an
  /// expected start in the same field).
  std::optional<common::WallTime> startTime;
  /// The actual end, only for a finished job.
  std::optional<common::WallTime> endTime;
  std::optional<int> exitCode;          // the batch script's exit status, once finished
  std::optional<int> signal;            // the signal that ended it, if one did
  std::optional<int> timeLimitMinutes;  // nullopt: unlimited
};

struct NodeInfo {
  std::string name;
  std::vector<std::string> states;  // "IDLE", "DRAIN", ... in upper case
  std::int64_t cpus = 0;
  std::string gres;  // configured generic resources, "gpu:2"
  std::vector<std::string> partitions;
  std::string reason;  // why it is down or drained
};

struct PartitionInfo {
  std::string name;
  std::vector<std::string> states;  // "UP", "DOWN", ... in upper case
  std::string nodes;                // Slurm's host-list form
  std::int64_t totalNodes = 0;
  std::optional<int> maxTimeMinutes;  // nullopt: unlimited
};

}  // namespace hetbench::slurm
