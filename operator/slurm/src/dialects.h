#pragma once

// The dialects of the versions, for dialect() (internal).

#include <chrono>
#include <optional>

#include "hetbench/common/clock.h"
#include "hetbench/slurm/dialect.h"

namespace hetbench::slurm::internal {

const Dialect& dialectV0_0_38();
const Dialect& dialectV0_0_42();

/// The fields of a job description that both versions spell alike: name, comment, partition,
/// account, qos, the working directory and output paths, tasks, and no requeue.
nlohmann::json sharedJobFields(const JobRequest& request);

/// What both versions' job answers spell alike: id, name, comment, partition, nodes, user,
/// output, and the state reason and its description ("None" read as none).
JobInfo sharedJobInfo(const nlohmann::json& entry);

/// A Unix time in seconds; nullopt for 0, Slurm's "not set".
inline std::optional<common::WallTime> unixTime(std::int64_t seconds) {
  if (seconds <= 0) return std::nullopt;
  return common::WallTime(std::chrono::seconds(seconds));
}

}  // namespace hetbench::slurm::internal
