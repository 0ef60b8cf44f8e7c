#include "hetbench/benchmark/slurm_job.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"
#include "render_internal.h"

namespace hetbench::benchmark {
namespace internal {
namespace {

using common::forbiddenCause;
using common::invalidCause;
using common::member;
using common::SpecReader;
using nlohmann::json;

// The workload fields that describe a pod and mean nothing to a Slurm job.
constexpr std::string_view kPodOnly[] = {"imagePullPolicy",
                                         "backoffLimit",
                                         "nodeSelector",
                                         "tolerations",
                                         "affinity",
                                         "resources",
                                         "volumes",
                                         "podSecurityContext",
                                         "securityContext",
                                         "serviceAccountName",
                                         "automountServiceAccountToken"};

constexpr std::string_view kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// A word for sh, in single quotes.
std::string shellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

void parseSlurm(SpecReader& r, const json& workload, const std::string& path, Workload& out) {
  const json& v = member(workload, "slurm");
  if (v.is_null()) return;
  const std::string field = path + ".slurm";
  if (!r.object(field, v)) return;
  SlurmPlacement s;
  if (const json& c = member(v, "cluster"); c.is_null()) {
    r.add(common::requiredCause(field + ".cluster"));
  } else {
    s.cluster = r.name(field + ".cluster", c).value_or("");
  }
  for (auto [key, target] : {std::pair{"partition", &s.partition}, std::pair{"account", &s.account},
                             std::pair{"qos", &s.qos}}) {
    if (const json& value = member(v, key); !value.is_null()) {
      *target = r.string(field + "." + key, value).value_or("");
    }
  }
  if (const json& n = member(v, "tasksPerNode"); !n.is_null()) {
    s.tasksPerNode = r.intOrString(field + ".tasksPerNode", n, 1).value_or(1);
  }
  if (const json& script = member(v, "script"); !script.is_null()) {
    s.script = r.string(field + ".script", script).value_or("");
    if (s.script.rfind("#!", 0) != 0) {
      r.add(invalidCause(field + ".script", "(script)", "must start with #! and an interpreter"));
    }
  }
  if (const json& runtime = member(v, "runtime"); !runtime.is_null()) {
    s.runtime = r.oneOf(field + ".runtime", runtime, {"apptainer", "singularity"}).value_or("");
  }

  // What a pod has and a Slurm job has not; kind Pod is the API server's default.
  if (out.kind != WorkloadKind::kPod) {
    r.add(forbiddenCause(path + ".kind", "a Slurm job is of no Kubernetes kind"));
  }
  for (std::string_view key : kPodOnly) {
    if (!member(workload, key).is_null()) {
      r.add(forbiddenCause(path + "." + std::string(key), "a Slurm job has no such field"));
    }
  }
  for (std::size_t i = 0; i < out.env.size(); ++i) {
    if (!member(out.env[i], "valueFrom").is_null()) {
      r.add(forbiddenCause(path + ".env[" + std::to_string(i) + "].valueFrom",
                           "a Slurm job's environment takes values only"));
    }
  }
  if (out.accelerator.resource == kIpu) {
    r.add(invalidCause(path + ".accelerator.resource", kIpu,
                       "a Slurm job asks for GPUs (GRES gpu) only"));
  }
  if (!s.script.empty() && (out.command || out.args)) {
    r.add(
        forbiddenCause(path + ".slurm.script", "replaces command and args: give one or the other"));
  }
  if (s.script.empty() && s.runtime.empty() && !out.command) {
    r.add(common::requiredCause(path + ".command",
                                "without slurm.runtime the image has no entrypoint on Slurm; "
                                "give command, or slurm.script"));
  }
  out.slurm = std::move(s);
}

common::Result<RenderedUnit> renderSlurmUnit(const RunRef& run, const RunSpec& spec,
                                             const Unit& unit, const Workload& w) {
  const SlurmPlacement& s = *w.slurm;
  SlurmJobPlan plan;
  plan.cluster = s.cluster;
  slurm::JobRequest& job = plan.request;
  job.name = unitName(run, unit);
  job.comment = slurmJobComment(run.ns, run.name, run.uid, unit.trial, unit.repetition);
  job.partition = s.partition;
  job.account = s.account;
  job.qos = s.qos;
  job.nodes = static_cast<int>(w.nodes);
  job.tasksPerNode = static_cast<int>(s.tasksPerNode);
  job.gpusPerNode = w.accelerator.resource.empty() ? 0 : static_cast<int>(w.accelerator.count);
  job.timeLimitMinutes = slurmTimeLimitMinutes(spec.timeLimit);

  bool pathSet = false;
  job.environment = {{std::string(kEnvRun), run.name},
                     {std::string(kEnvTrial), std::to_string(unit.trial)},
                     {std::string(kEnvRepetition), std::to_string(unit.repetition)},
                     {std::string(kEnvSystem), spec.system}};
  for (const json& var : w.env) {
    const std::string name = common::stringMember(var, "name");
    pathSet = pathSet || name == "PATH";
    job.environment.emplace_back(name, common::stringMember(var, "value"));
  }
  if (!pathSet) job.environment.emplace_back("PATH", std::string(kDefaultPath));
  if (w.nodes > 1) {
    // As a multi-node Job's pods get them; MASTER_ADDR and RANK are each node's (below).
    job.environment.emplace_back(std::string(kEnvMasterPort), std::to_string(kMasterPort));
    job.environment.emplace_back(std::string(kEnvWorldSize), std::to_string(w.nodes));
  }

  if (!s.script.empty()) {
    job.script = s.script;
  } else {
    std::vector<std::string> words;
    if (!s.runtime.empty()) {
      words = {s.runtime, w.command ? "exec" : "run"};
      if (isGpu(w.accelerator.resource) && w.accelerator.count > 0) {
        words.push_back(w.accelerator.resource == kAmdGpu ? "--rocm" : "--nv");
      }
      words.push_back(w.image);
    }
    if (w.command) words.insert(words.end(), w.command->begin(), w.command->end());
    if (w.args) {
      words.insert(words.end(), w.args->begin(), w.args->end());
    } else if (spec.benchmark != Benchmark::kCustom) {
      const std::vector<std::string> flags = trainingArgs(spec.benchmark, w);
      words.insert(words.end(), flags.begin(), flags.end());
    }
    job.script = "#!/bin/sh\n# Written by hetbench for " + run.ns + "/" + run.name + " trial " +
                 std::to_string(unit.trial) + " repetition " + std::to_string(unit.repetition) +
                 ".\n";
    if (w.nodes > 1) {
      // One launcher per node through srun, as one pod per node: its rank is its task's, the
      // master the node the script runs on.
      job.script +=
          "exec srun --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c "
          "'export MASTER_ADDR=$SLURM_LAUNCH_NODE_IPADDR RANK=$SLURM_PROCID; exec \"$@\"' sh";
    } else {
      job.script += "exec";
    }
    for (const std::string& word : words) job.script += " " + shellQuote(word);
    job.script += "\n";
  }

  RenderedUnit out;
  out.name = job.name;
  out.expectedPods = 0;
  out.slurm = plan;
  // The manifest kept with the unit's logs: what is submitted, but for the output paths.
  json environment = json::object();
  for (const auto& [name, value] : job.environment) environment[name] = value;
  out.workload = {{"kind", kSlurmJobKind},
                  {"cluster", plan.cluster},
                  {"name", job.name},
                  {"comment", job.comment},
                  {"partition", job.partition},
                  {"account", job.account},
                  {"qos", job.qos},
                  {"nodes", job.nodes},
                  {"tasksPerNode", job.tasksPerNode},
                  {"gpusPerNode", job.gpusPerNode},
                  {"timeLimitMinutes", job.timeLimitMinutes},
                  {"environment", environment},
                  {"script", job.script}};
  return out;
}

}  // namespace internal

std::string slurmJobComment(const std::string& ns, const std::string& run, const std::string& uid,
                            std::int64_t trial, std::int64_t repetition) {
  return "hetbench.io/unit=" + ns + "/" + run + "/" + uid + "/" + std::to_string(trial) + "-" +
         std::to_string(repetition);
}

int slurmTimeLimitMinutes(std::chrono::nanoseconds timeLimit) {
  const auto minutes = std::chrono::ceil<std::chrono::minutes>(timeLimit);
  return std::max(1, static_cast<int>(minutes.count()));
}

std::optional<UnitEnd> slurmJobEnd(const slurm::JobInfo& job) {
  if (!slurm::isFinished(job.state)) return std::nullopt;
  const std::string id = "Slurm job " + std::to_string(job.id);
  std::string detail;
  if (job.exitCode) detail += "exit code " + std::to_string(*job.exitCode);
  if (job.signal)
    detail += (detail.empty() ? "" : ", ") + std::string("signal ") + std::to_string(*job.signal);
  if (!job.reason.empty()) detail += (detail.empty() ? "" : ", ") + job.reason;
  if (!job.reasonDetail.empty()) detail += ": " + job.reasonDetail;
  const std::string state(slurm::jobStateName(job.state));
  const std::string message = id + " " + state + (detail.empty() ? "" : " (" + detail + ")");
  switch (job.state) {
    case slurm::JobState::kCompleted:
      if (job.exitCode.value_or(0) == 0)
        return UnitEnd{UnitPhase::kSucceeded, std::string(reason::kCompleted), message};
      return UnitEnd{UnitPhase::kFailed, std::string(reason::kUnitFailed), message};
    case slurm::JobState::kTimeout:
    case slurm::JobState::kDeadline:
      return UnitEnd{UnitPhase::kTimedOut, "SlurmTimeLimit", message};
    case slurm::JobState::kCancelled:
      return UnitEnd{UnitPhase::kCancelled, "SlurmCancelled", message};
    default:
      break;
  }
  // FAILED, NODE_FAIL, OUT_OF_MEMORY, ...: Slurm's state, in CamelCase, is the reason.
  std::string reasonWord;
  bool upper = true;
  for (char c : state) {
    if (c == '_') {
      upper = true;
      continue;
    }
    reasonWord += upper ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    upper = false;
  }
  return UnitEnd{UnitPhase::kFailed, "Slurm" + reasonWord, message};
}

UnitDecision checkSlurmStart(const slurm::JobInfo& job, common::WallTime submitted,
                             std::chrono::nanoseconds startTimeout, common::WallTime now) {
  if (job.state != slurm::JobState::kPending) return {};
  const common::WallTime deadline = submitted + startTimeout;
  if (now < deadline) return {std::nullopt, deadline};
  const std::string why = job.reason.empty() ? "Pending" : job.reason;
  return {UnitEnd{UnitPhase::kFailed, why,
                  "Slurm job " + std::to_string(job.id) + " still pending after startTimeout " +
                      common::formatDuration(startTimeout) + ": " + why +
                      (job.reasonDetail.empty() ? "" : " (" + job.reasonDetail + ")")},
          std::nullopt};
}

}  // namespace hetbench::benchmark
