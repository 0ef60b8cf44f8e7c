// slurmrestd's data_parser/v0.0.42 (Slurm 24.11 to 26.05), from its OpenAPI document
// (testsuite/python/data/openapi_specs/openapi_spec_v42.json in Slurm's tree).

#include <string>

#include "dialects.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::slurm::internal {
namespace {

using nlohmann::json;

constexpr std::int64_t kInvalidJobId = 2017;  // ESLURM_INVALID_JOB_ID
constexpr std::int64_t kAlreadyDone = 2021;   // ESLURM_ALREADY_DONE

// A v0.0.42_uint32_no_val_struct or uint64 one: {set, infinite, number}; nullopt when unset
// or infinite.
std::optional<std::int64_t> noValNumber(const json& value) {
  if (!common::boolMember(value, "set") || common::boolMember(value, "infinite")) {
    return std::nullopt;
  }
  return common::integralValue(common::member(value, "number"));
}

std::optional<common::WallTime> noValTime(const json& value) {
  const std::optional<std::int64_t> seconds = noValNumber(value);
  return seconds ? unixTime(*seconds) : std::nullopt;
}

class DialectV0_0_42 : public Dialect {
 public:
  ApiVersion version() const override { return ApiVersion::kV0_0_42; }

  // v0.0.42_job_submit_req: `job` (v0.0.42_job_desc_msg) holds the script; environment is a
  // string array of NAME=VALUE, time_limit a uint32_no_val_struct, GPUs per node the TRES
  // gres/gpu in tres_per_node (job_desc_msg has no gres field).
  json submitBody(const JobRequest& request) const override {
    json job = sharedJobFields(request);
    job["script"] = request.script;
    json environment = json::array();
    for (const auto& [name, value] : request.environment) environment.push_back(name + "=" + value);
    job["environment"] = environment;
    job["nodes"] = std::to_string(request.nodes);
    if (request.gpusPerNode > 0) {
      job["tres_per_node"] = "gres/gpu:" + std::to_string(request.gpusPerNode);
    }
    if (request.timeLimitMinutes > 0) {
      job["time_limit"] =
          json{{"set", true}, {"infinite", false}, {"number", request.timeLimitMinutes}};
    }
    return json{{"job", job}};
  }

  // v0.0.42_openapi_kill_job_resp: HTTP 200 whatever became of the job; each job's error is in
  // status[] (v0.0.42_kill_jobs_resp_job: error {string, code, message}), not in errors[].
  common::Status readCancelled(const Answer& answer) const override {
    HETBENCH_RETURN_IF_ERROR(answerStatus(Operation::kCancel, answer));
    const json body = json::parse(answer.body, nullptr, false);
    for (const json& entry : common::arrayMember(body, "status")) {
      const json& error = common::member(entry, "error");
      const std::int64_t code = common::intMember(error, "code");
      if (code == 0 || code == kAlreadyDone) continue;
      const std::string message = "slurmrestd: " + common::stringMember(error, "message");
      if (code == kInvalidJobId) return common::notFoundError(message);
      return common::internalError(message);
    }
    return common::okStatus();
  }

 protected:
  // v0.0.42_job_info: job_state a v0.0.42_job_state array (base state and flags), times
  // uint64_no_val_structs, exit_code a v0.0.42_process_exit_code_verbose {status,
  // return_code, signal {id, name}}, time_limit a uint32_no_val_struct.
  JobInfo job(const json& entry) const override {
    JobInfo info = sharedJobInfo(entry);
    const std::vector<std::string> states = common::stringList(common::member(entry, "job_state"));
    for (const std::string& state : states) {
      info.stateText += (info.stateText.empty() ? "" : ",") + state;
    }
    info.state = jobStateOf(states);
    info.submitTime = noValTime(common::member(entry, "submit_time"));
    if (info.state != JobState::kPending) {
      info.startTime = noValTime(common::member(entry, "start_time"));
    }
    if (isFinished(info.state)) {
      info.endTime = noValTime(common::member(entry, "end_time"));
      const json& exit = common::member(entry, "exit_code");
      if (const std::optional<std::int64_t> code =
              noValNumber(common::member(exit, "return_code"))) {
        info.exitCode = static_cast<int>(*code);
      }
      const json& signal = common::member(exit, "signal");
      if (const std::optional<std::int64_t> id = noValNumber(common::member(signal, "id"));
          id && *id > 0) {
        info.signal = static_cast<int>(*id);
      }
    }
    if (const std::optional<std::int64_t> limit =
            noValNumber(common::member(entry, "time_limit"))) {
      info.timeLimitMinutes = static_cast<int>(*limit);
    }
    return info;
  }

  // v0.0.42_node: state a v0.0.42_node_states array, partitions a csv_string (string array).
  std::vector<std::string> nodeStates(const json& entry) const override {
    return common::stringList(common::member(entry, "state"));
  }

  // v0.0.42_partition_info: partition.state an array, nodes {configured, total}, maximums.time
  // a uint32_no_val_struct.
  PartitionInfo partition(const json& entry) const override {
    PartitionInfo info;
    info.name = common::stringMember(entry, "name");
    info.states = common::stringList(common::member(common::member(entry, "partition"), "state"));
    const json& nodes = common::member(entry, "nodes");
    info.nodes = common::stringMember(nodes, "configured");
    info.totalNodes = common::intMember(nodes, "total");
    if (const std::optional<std::int64_t> maxTime =
            noValNumber(common::member(common::member(entry, "maximums"), "time"))) {
      info.maxTimeMinutes = static_cast<int>(*maxTime);
    }
    return info;
  }

  // v0.0.42_controller_ping: `responding` true when the controller answered.
  bool answers(const json& ping) const override { return common::boolMember(ping, "responding"); }
};

}  // namespace

const Dialect& dialectV0_0_42() {
  static const DialectV0_0_42 dialect;
  return dialect;
}

}  // namespace hetbench::slurm::internal
