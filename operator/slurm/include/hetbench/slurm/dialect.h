#pragma once

// How each OpenAPI plugin version of slurmrestd spells requests and answers: pure functions
// from the operator's types to JSON and back, one implementation per version
// (src/dialect_v0_0_38.cc, src/dialect_v0_0_42.cc). Every field read or written is named in
// docs/slurm.md with the schema of the version's OpenAPI document it comes from.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/slurm/job.h"

namespace hetbench::slurm {

/// One HTTP answer of slurmrestd.
struct Answer {
  int status = 0;
  std::string body;
};

/// What a request was, for the meaning of an error: slurmctld refusing a submission is the
/// job's fault (Invalid), the same error elsewhere is not.
enum class Operation { kSubmit, kJob, kJobs, kCancel, kNodes, kPartitions, kPing };

/// The error an answer carries, Ok when it carries none:
/// - HTTP 401 or 403, slurmrestd's "Authentication failure", Slurm's authentication and
///   permission errors, and "Zero Bytes were transmitted or received" (slurmctld 22.05 closing
///   the connection on a token it refuses): Unauthorized;
/// - slurmrestd unable to reach slurmctld, and HTTP 502 to 504 (a proxy in front): Unavailable;
/// - "Invalid job id" (ESLURM_INVALID_JOB_ID): NotFound;
/// - a path slurmrestd does not serve (HTTP 404, the version's plugin not loaded): Invalid;
/// - any other Slurm error: Invalid for a submission, else Internal;
/// - "No change in data" (SLURM_NO_CHANGE_IN_DATA, or HTTP 304 to a job list) and, for a
///   cancellation, "Job/step already completing or completed" (ESLURM_ALREADY_DONE) are no
///   errors.
/// Messages quote Slurm's own (`error` and `description` of each entry of `errors`).
common::Status answerStatus(Operation operation, const Answer& answer);

/// Whether every Slurm error of the answer is -1, "Unspecified error": what Slurm 22.05's
/// slurmrestd answers a read with when slurmctld refused the token, and also when it could not
/// answer.
bool onlyUnspecifiedErrors(const Answer& answer);

/// A submission's outcome: the job id and slurmrestd's warnings (a field it ignored, ...).
struct Submitted {
  std::int64_t id = 0;
  std::vector<std::string> warnings;
};

/// The requests and answers of one plugin version.
class Dialect {
 public:
  virtual ~Dialect() = default;
  virtual ApiVersion version() const = 0;

  /// Paths below slurmrestd's root, "/slurm/v0.0.42/job/submit" and so on.
  std::string submitPath() const;
  std::string jobPath(std::int64_t id) const;
  /// Every job slurmctld knows; with `changedSince`, only if one changed after it (an empty
  /// answer otherwise).
  std::string jobsPath(std::optional<common::WallTime> changedSince) const;
  std::string nodesPath() const;
  std::string partitionsPath() const;
  std::string pingPath() const;

  virtual nlohmann::json submitBody(const JobRequest& request) const = 0;
  /// The job id of a 200 answer to submitBody; answerStatus's error otherwise.
  common::Result<Submitted> readSubmitted(const Answer& answer) const;
  /// The jobs of an answer to jobPath or jobsPath.
  common::Result<std::vector<JobInfo>> readJobs(Operation operation, const Answer& answer) const;
  common::Result<std::vector<NodeInfo>> readNodes(const Answer& answer) const;
  common::Result<std::vector<PartitionInfo>> readPartitions(const Answer& answer) const;
  /// Ok when slurmctld answers; an answer that pings several controllers is Ok when one does.
  common::Status readPing(const Answer& answer) const;
  /// Ok when the job is cancelled or had already ended; NotFound for a job slurmctld does not
  /// know.
  virtual common::Status readCancelled(const Answer& answer) const;

 protected:
  virtual JobInfo job(const nlohmann::json& entry) const = 0;
  /// A node's states, the one part of a node the versions spell differently.
  virtual std::vector<std::string> nodeStates(const nlohmann::json& entry) const = 0;
  virtual PartitionInfo partition(const nlohmann::json& entry) const = 0;
  /// Whether the controller of one entry of `pings` answered.
  virtual bool answers(const nlohmann::json& ping) const = 0;
  std::string prefix() const;
};

/// The dialect of `version`; it lives as long as the program.
const Dialect& dialect(ApiVersion version);

/// A Slurm state word ("RUNNING", "COMPLETING") as a JobState; kUnknown for a word that is not
/// a base state or COMPLETING.
JobState jobStateOf(std::string_view word);
/// The state of a job from its state words: COMPLETING wins over the base state it comes with
/// (the job is not finished yet), REQUEUED counts as pending, and a word of no meaning to the
/// operator (CONFIGURING, RESIZING, ...) is skipped.
JobState jobStateOf(const std::vector<std::string>& words);

}  // namespace hetbench::slurm
