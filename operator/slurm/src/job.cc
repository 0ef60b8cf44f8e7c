#include "hetbench/slurm/job.h"

#include <string>

namespace hetbench::slurm {

std::string_view apiVersionName(ApiVersion version) {
  switch (version) {
    case ApiVersion::kV0_0_38:
      return "v0.0.38";
    case ApiVersion::kV0_0_42:
      return "v0.0.42";
  }
  return "unknown";
}

std::vector<ApiVersion> apiVersions() { return {ApiVersion::kV0_0_38, ApiVersion::kV0_0_42}; }

common::Result<ApiVersion> parseApiVersion(std::string_view name) {
  std::string supported;
  for (ApiVersion version : apiVersions()) {
    if (name == apiVersionName(version)) return version;
    if (!supported.empty()) supported += ", ";
    supported += apiVersionName(version);
  }
  return common::invalidError("unsupported slurmrestd OpenAPI version \"" + std::string(name) +
                              "\": supported: " + supported);
}

std::string_view jobStateName(JobState state) {
  switch (state) {
    case JobState::kPending:
      return "PENDING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kSuspended:
      return "SUSPENDED";
    case JobState::kCompleting:
      return "COMPLETING";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
    case JobState::kTimeout:
      return "TIMEOUT";
    case JobState::kNodeFail:
      return "NODE_FAIL";
    case JobState::kPreempted:
      return "PREEMPTED";
    case JobState::kBootFail:
      return "BOOT_FAIL";
    case JobState::kDeadline:
      return "DEADLINE";
    case JobState::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case JobState::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

bool isFinished(JobState state) {
  switch (state) {
    case JobState::kPending:
    case JobState::kRunning:
    case JobState::kSuspended:
    case JobState::kCompleting:
    case JobState::kUnknown:
      return false;
    case JobState::kCompleted:
    case JobState::kFailed:
    case JobState::kCancelled:
    case JobState::kTimeout:
    case JobState::kNodeFail:
    case JobState::kPreempted:
    case JobState::kBootFail:
    case JobState::kDeadline:
    case JobState::kOutOfMemory:
      return true;
  }
  return false;
}

}  // namespace hetbench::slurm
