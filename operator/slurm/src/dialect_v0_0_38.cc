// slurmrestd's openapi/v0.0.38 plugin (Slurm 21.08 to 23.02), from its OpenAPI document
// (src/plugins/openapi/v0.0.38/openapi.json in Slurm's tree) and, where the document is silent,
// the plugin's source (jobs.c, nodes.c, partitions.c of Slurm 22.05).

#include <string>

#include "dialects.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::slurm::internal {
namespace {

using nlohmann::json;

class DialectV0_0_38 : public Dialect {
 public:
  ApiVersion version() const override { return ApiVersion::kV0_0_38; }

  // v0.0.38_job_submission: `script` beside `job` (v0.0.38_job_properties), whose fields are
  // sbatch's options: environment an object, nodes [min, max], time_limit minutes, gres.
  json submitBody(const JobRequest& request) const override {
    json job = sharedJobFields(request);
    json environment = json::object();
    for (const auto& [name, value] : request.environment) environment[name] = value;
    job["environment"] = environment;
    job["nodes"] = json::array({request.nodes, request.nodes});
    if (request.gpusPerNode > 0) job["gres"] = "gpu:" + std::to_string(request.gpusPerNode);
    if (request.timeLimitMinutes > 0) job["time_limit"] = request.timeLimitMinutes;
    return json{{"script", request.script}, {"job", job}};
  }

 protected:
  // v0.0.38_job_response_properties. job_state is one word (the flag when one is set); times
  // are Unix seconds, 0 when unset, and start_time is the expected start of a pending job;
  // exit_code is the batch script's wait status; time_limit is null when unlimited.
  JobInfo job(const json& entry) const override {
    JobInfo info = sharedJobInfo(entry);
    info.stateText = common::stringMember(entry, "job_state");
    info.state = jobStateOf(std::vector<std::string>{info.stateText});
    info.submitTime = unixTime(common::intMember(entry, "submit_time"));
    if (info.state != JobState::kPending) {
      info.startTime = unixTime(common::intMember(entry, "start_time"));
    }
    if (isFinished(info.state)) {
      info.endTime = unixTime(common::intMember(entry, "end_time"));
      if (const std::optional<std::int64_t> status =
              common::integralValue(common::member(entry, "exit_code"))) {
        // A wait status: the exit code in bits 8 to 15, a terminating signal in bits 0 to 6.
        const int raw = static_cast<int>(*status);
        if ((raw & 0x7f) != 0) info.signal = raw & 0x7f;
        info.exitCode = (raw >> 8) & 0xff;
      }
    }
    if (const std::optional<std::int64_t> limit =
            common::integralValue(common::member(entry, "time_limit"))) {
      info.timeLimitMinutes = static_cast<int>(*limit);
    }
    return info;
  }

  // v0.0.38_node: state one word (lower case), state_flags the rest.
  std::vector<std::string> nodeStates(const json& entry) const override {
    std::vector<std::string> states = {common::stringMember(entry, "state")};
    for (const std::string& flag : common::stringList(common::member(entry, "state_flags"))) {
      states.push_back(flag);
    }
    return states;
  }

  // v0.0.38_partition: state one word, max_time_limit minutes or -1 for unlimited.
  PartitionInfo partition(const json& entry) const override {
    PartitionInfo info;
    info.name = common::stringMember(entry, "name");
    info.states.push_back(common::stringMember(entry, "state"));
    info.nodes = common::stringMember(entry, "nodes");
    info.totalNodes = common::intMember(entry, "total_nodes");
    const std::int64_t maxTime = common::intMember(entry, "max_time_limit");
    if (maxTime >= 0 && maxTime < 0xffffffffLL) info.maxTimeMinutes = static_cast<int>(maxTime);
    return info;
  }

  // v0.0.38_ping: `ping` is "UP" or "DOWN".
  bool answers(const json& ping) const override {
    return common::stringMember(ping, "ping") == "UP";
  }
};

}  // namespace

const Dialect& dialectV0_0_38() {
  static const DialectV0_0_38 dialect;
  return dialect;
}

}  // namespace hetbench::slurm::internal
