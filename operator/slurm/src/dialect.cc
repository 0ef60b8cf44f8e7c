#include "hetbench/slurm/dialect.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>

#include "dialects.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::slurm {
namespace {

using common::Status;
using nlohmann::json;

// Slurm's error numbers (slurm/slurm_errno.h; the same from 22.05 to 26.05).
constexpr std::int64_t kCommunicationsFirst = 1001;  // SLURM_COMMUNICATIONS_CONNECTION_ERROR
constexpr std::int64_t kCommunicationsLast = 1003;   // SLURM_COMMUNICATIONS_RECEIVE_ERROR
constexpr std::int64_t kProtocolAuthentication = 1007;
constexpr std::int64_t kControllerFirst = 1800;  // SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR
constexpr std::int64_t kControllerLast = 1803;   // SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR
constexpr std::int64_t kNoChangeInData = 1900;
constexpr std::int64_t kAccessDenied = 2002;
constexpr std::int64_t kUserIdMissing = 2010;
constexpr std::int64_t kInvalidJobId = 2017;
constexpr std::int64_t kAlreadyDone = 2021;
constexpr std::int64_t kSocketTimeout = 5004;  // SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT
// SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT: slurmctld closed the connection unanswered, as Slurm
// 22.05's does for a token it refuses.
constexpr std::int64_t kZeroBytes = 5005;
constexpr std::int64_t kAuthFirst = 6000;  // ESLURM_AUTH_CRED_INVALID and the rest
constexpr std::int64_t kAuthLast = 6999;

bool isSuccess(int status) { return status >= 200 && status < 300; }

std::string httpText(const Answer& answer) {
  std::string text = "HTTP " + std::to_string(answer.status);
  std::string body = answer.body;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  if (!body.empty()) text += ": " + common::quote(body);
  return text;
}

struct SlurmError {
  std::int64_t number = 0;
  std::string text;
};

std::vector<SlurmError> slurmErrors(const json& body) {
  std::vector<SlurmError> out;
  for (const json& entry : common::arrayMember(body, "errors")) {
    SlurmError e;
    // The name of the number varies in Slurm 22.05's answers: error_number (the OpenAPI
    // document's), error_code (a submission's), errno (nodes and partitions).
    for (const char* name : {"error_number", "error_code", "errno"}) {
      if (common::member(entry, name).is_number_integer()) {
        e.number = common::intMember(entry, name);
        break;
      }
    }
    const std::string error = common::stringMember(entry, "error");
    const std::string description = common::stringMember(entry, "description");
    e.text = description.empty() ? error
             : error.empty()     ? description
                                 : description + " (" + error + ")";
    if (e.number == kZeroBytes) {
      e.text +=
          " (slurmctld closed the connection unanswered, as Slurm 22.05 does for a token it "
          "refuses)";
    }
    if (e.text.empty()) e.text = "error " + std::to_string(e.number);
    out.push_back(std::move(e));
  }
  return out;
}

bool ignorable(Operation operation, std::int64_t number) {
  return number == kNoChangeInData || (operation == Operation::kCancel && number == kAlreadyDone);
}

common::StatusCode codeOf(Operation operation, std::int64_t number) {
  if ((number >= kCommunicationsFirst && number <= kCommunicationsLast) ||
      (number >= kControllerFirst && number <= kControllerLast) || number == kSocketTimeout) {
    return common::StatusCode::kUnavailable;
  }
  if (number == kProtocolAuthentication || number == kAccessDenied || number == kUserIdMissing ||
      number == kZeroBytes || (number >= kAuthFirst && number <= kAuthLast)) {
    return common::StatusCode::kUnauthorized;
  }
  if (number == kInvalidJobId) return common::StatusCode::kNotFound;
  return operation == Operation::kSubmit ? common::StatusCode::kInvalid
                                         : common::StatusCode::kInternal;
}

Status httpStatus(const Answer& answer) {
  if (answer.status == 401 || answer.status == 403 ||
      answer.body.find("Authentication failure") != std::string::npos) {
    return common::unauthorizedError("slurmrestd refused the credentials: " + httpText(answer));
  }
  if (answer.status == 404) {
    return common::invalidError(
        "slurmrestd does not serve this path (is its OpenAPI plugin for this version loaded?): " +
        httpText(answer));
  }
  if (answer.status >= 500) return common::unavailableError("slurmrestd: " + httpText(answer));
  return common::internalError("slurmrestd: " + httpText(answer));
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool onlyUnspecifiedErrors(const Answer& answer) {
  const json body = json::parse(answer.body, nullptr, false);
  const std::vector<SlurmError> errors = slurmErrors(body);
  return !errors.empty() && std::all_of(errors.begin(), errors.end(),
                                        [](const SlurmError& e) { return e.number == -1; });
}

Status answerStatus(Operation operation, const Answer& answer) {
  // Slurm 22.05's slurmrestd answers a job list unchanged since update_time so.
  if (operation == Operation::kJobs && answer.status == 304) return common::okStatus();
  const json body = json::parse(answer.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    if (isSuccess(answer.status)) {
      return common::internalError("slurmrestd answered with a body that is not a JSON object: " +
                                   httpText(answer));
    }
    return httpStatus(answer);
  }
  std::string message;
  common::StatusCode code = common::StatusCode::kOk;
  bool ignored = false;
  for (const SlurmError& e : slurmErrors(body)) {
    if (ignorable(operation, e.number)) {
      ignored = true;
      continue;
    }
    if (code == common::StatusCode::kOk) code = codeOf(operation, e.number);
    if (!message.empty()) message += "; ";
    message += e.text;
  }
  if (code != common::StatusCode::kOk) return Status(code, "slurmrestd: " + message);
  if (isSuccess(answer.status) || ignored) return common::okStatus();
  return httpStatus(answer);
}

std::string Dialect::prefix() const {
  return "/slurm/" + std::string(apiVersionName(version())) + "/";
}
std::string Dialect::submitPath() const { return prefix() + "job/submit"; }
std::string Dialect::jobPath(std::int64_t id) const {
  return prefix() + "job/" + std::to_string(id);
}
std::string Dialect::jobsPath(std::optional<common::WallTime> changedSince) const {
  std::string path = prefix() + "jobs/";
  if (changedSince) {
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(changedSince->time_since_epoch()).count();
    path += "?update_time=" + std::to_string(seconds);
  }
  return path;
}
std::string Dialect::nodesPath() const { return prefix() + "nodes/"; }
std::string Dialect::partitionsPath() const { return prefix() + "partitions/"; }
std::string Dialect::pingPath() const { return prefix() + "ping/"; }

common::Result<Submitted> Dialect::readSubmitted(const Answer& answer) const {
  HETBENCH_RETURN_IF_ERROR(answerStatus(Operation::kSubmit, answer));
  const json body = json::parse(answer.body, nullptr, false);
  const std::optional<std::int64_t> id = common::integralValue(common::member(body, "job_id"));
  if (!id || *id <= 0) {
    return common::internalError("slurmrestd accepted the job but gave no job_id: " +
                                 httpText(answer));
  }
  Submitted submitted;
  submitted.id = *id;
  for (const json& warning : common::arrayMember(body, "warnings")) {
    const std::string text = common::stringMember(warning, "description");
    if (!text.empty()) submitted.warnings.push_back(text);
  }
  const std::string userMessage = common::stringMember(body, "job_submit_user_msg");
  if (!userMessage.empty()) submitted.warnings.push_back(userMessage);
  return submitted;
}

common::Result<std::vector<JobInfo>> Dialect::readJobs(Operation operation,
                                                       const Answer& answer) const {
  HETBENCH_RETURN_IF_ERROR(answerStatus(operation, answer));
  const json body = json::parse(answer.body, nullptr, false);
  std::vector<JobInfo> jobs;
  for (const json& entry : common::arrayMember(body, "jobs")) jobs.push_back(job(entry));
  if (operation == Operation::kJob && jobs.empty()) {
    return common::notFoundError("slurmrestd knows no such job");
  }
  return jobs;
}

common::Result<std::vector<NodeInfo>> Dialect::readNodes(const Answer& answer) const {
  HETBENCH_RETURN_IF_ERROR(answerStatus(Operation::kNodes, answer));
  const json body = json::parse(answer.body, nullptr, false);
  std::vector<NodeInfo> nodes;
  for (const json& entry : common::arrayMember(body, "nodes")) {
    // v0.0.38_node and v0.0.42_node: the same names, but for the states.
    NodeInfo info;
    info.name = common::stringMember(entry, "name");
    info.states = nodeStates(entry);
    info.cpus = common::intMember(entry, "cpus");
    info.gres = common::stringMember(entry, "gres");
    info.partitions = common::stringList(common::member(entry, "partitions"));
    info.reason = common::stringMember(entry, "reason");
    for (std::string& state : info.states) state = upper(state);
    nodes.push_back(std::move(info));
  }
  return nodes;
}

common::Result<std::vector<PartitionInfo>> Dialect::readPartitions(const Answer& answer) const {
  HETBENCH_RETURN_IF_ERROR(answerStatus(Operation::kPartitions, answer));
  const json body = json::parse(answer.body, nullptr, false);
  std::vector<PartitionInfo> partitions;
  for (const json& entry : common::arrayMember(body, "partitions")) {
    PartitionInfo info = partition(entry);
    for (std::string& state : info.states) state = upper(state);
    partitions.push_back(std::move(info));
  }
  return partitions;
}

Status Dialect::readPing(const Answer& answer) const {
  HETBENCH_RETURN_IF_ERROR(answerStatus(Operation::kPing, answer));
  const json body = json::parse(answer.body, nullptr, false);
  const json& pings = common::arrayMember(body, "pings");
  if (pings.empty()) return common::unavailableError("slurmrestd pinged no slurmctld");
  std::vector<std::string> silent;
  for (const json& ping : pings) {
    if (!answers(ping)) silent.push_back(common::stringMember(ping, "hostname"));
  }
  if (silent.size() == pings.size()) {
    std::string names;
    for (const std::string& name : silent) names += (names.empty() ? "" : ", ") + name;
    return common::unavailableError("slurmctld does not answer slurmrestd's ping: " + names);
  }
  return common::okStatus();
}

Status Dialect::readCancelled(const Answer& answer) const {
  return answerStatus(Operation::kCancel, answer);
}

JobState jobStateOf(std::string_view word) {
  static const std::pair<std::string_view, JobState> kStates[] = {
      {"PENDING", JobState::kPending},           {"RUNNING", JobState::kRunning},
      {"SUSPENDED", JobState::kSuspended},       {"COMPLETING", JobState::kCompleting},
      {"COMPLETED", JobState::kCompleted},       {"FAILED", JobState::kFailed},
      {"CANCELLED", JobState::kCancelled},       {"TIMEOUT", JobState::kTimeout},
      {"NODE_FAIL", JobState::kNodeFail},        {"PREEMPTED", JobState::kPreempted},
      {"BOOT_FAIL", JobState::kBootFail},        {"DEADLINE", JobState::kDeadline},
      {"OUT_OF_MEMORY", JobState::kOutOfMemory},
  };
  for (const auto& [name, state] : kStates) {
    if (word == name) return state;
  }
  return JobState::kUnknown;
}

JobState jobStateOf(const std::vector<std::string>& words) {
  bool completing = false;
  bool waiting = false;
  JobState base = JobState::kUnknown;
  JobState lone = JobState::kUnknown;
  for (const std::string& raw : words) {
    const std::string word = upper(raw);
    if (word == "COMPLETING" || word == "STAGE_OUT") {
      completing = true;
    } else if (word == "REQUEUED" || word == "REQUEUE_HOLD" || word == "REQUEUE_FED" ||
               word == "RESV_DEL_HOLD" || word == "SPECIAL_EXIT" || word == "CONFIGURING" ||
               word == "POWER_UP_NODE") {
      // Requeued and held, or given nodes that are still booting: its script has not started.
      waiting = true;
    } else if (word == "RESIZING" || word == "SIGNALING") {
      lone = JobState::kRunning;
    } else if (word == "STOPPED") {
      lone = JobState::kSuspended;
    } else if (const JobState state = jobStateOf(word);
               state != JobState::kUnknown && base == JobState::kUnknown) {
      base = state;
    }
  }
  if (completing) return JobState::kCompleting;
  if (waiting) return JobState::kPending;
  return base != JobState::kUnknown ? base : lone;
}

namespace internal {

json sharedJobFields(const JobRequest& request) {
  json job = json::object();
  job["name"] = request.name;
  if (!request.comment.empty()) job["comment"] = request.comment;
  if (!request.partition.empty()) job["partition"] = request.partition;
  if (!request.account.empty()) job["account"] = request.account;
  if (!request.qos.empty()) job["qos"] = request.qos;
  if (!request.workingDirectory.empty())
    job["current_working_directory"] = request.workingDirectory;
  if (!request.standardOutput.empty()) job["standard_output"] = request.standardOutput;
  if (!request.standardError.empty()) job["standard_error"] = request.standardError;
  job["tasks_per_node"] = request.tasksPerNode;
  job["tasks"] = request.nodes * request.tasksPerNode;
  // A second attempt would write a second run's output into the unit's log.
  job["requeue"] = false;
  return job;
}

JobInfo sharedJobInfo(const json& entry) {
  JobInfo info;
  info.id = common::intMember(entry, "job_id");
  info.name = common::stringMember(entry, "name");
  info.comment = common::stringMember(entry, "comment");
  info.partition = common::stringMember(entry, "partition");
  info.nodes = common::stringMember(entry, "nodes");
  info.user = common::stringMember(entry, "user_name");
  info.standardOutput = common::stringMember(entry, "standard_output");
  info.reason = common::stringMember(entry, "state_reason");
  if (info.reason == "None") info.reason.clear();
  info.reasonDetail = common::stringMember(entry, "state_description");
  return info;
}

}  // namespace internal

const Dialect& dialect(ApiVersion version) {
  switch (version) {
    case ApiVersion::kV0_0_38:
      return internal::dialectV0_0_38();
    case ApiVersion::kV0_0_42:
      return internal::dialectV0_0_42();
  }
  return internal::dialectV0_0_42();
}

}  // namespace hetbench::slurm
