#include "cluster/ipujob_controller.h"

#include <map>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Accessors that never throw, as an IPUJob's preserved fields may hold anything.
const json& field(const json& object, const char* name) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

std::string text(const json& object, const char* name, const std::string& fallback = "") {
  const json& v = field(object, name);
  return v.is_string() ? v.get<std::string>() : fallback;
}

std::int64_t integer(const json& object, const char* name, std::int64_t fallback) {
  const json& v = field(object, name);
  return v.is_number_integer() ? v.get<std::int64_t>() : fallback;
}

bool deleting(const json& pod) { return field(pod, "metadata").contains("deletionTimestamp"); }

std::string phaseOf(const json& pod) { return text(field(pod, "status"), "phase"); }

// The first non-zero exit code among the pod's terminated containers; -1 when none is known.
int exitCodeOf(const json& pod) {
  const json& statuses = field(field(pod, "status"), "containerStatuses");
  if (!statuses.is_array()) return -1;
  for (const json& cs : statuses) {
    const json& terminated = field(field(cs, "state"), "terminated");
    const std::int64_t code = integer(terminated, "exitCode", 0);
    if (code != 0) return static_cast<int>(code);
  }
  return -1;
}

struct RestartPolicy {
  std::string type = "Never";
  std::int64_t backoffLimit = 3;
};

// Graphcore documents the values but not the field's shape: a string or {type, backoffLimit}.
RestartPolicy restartPolicyOf(const json& spec) {
  RestartPolicy policy;
  const json& rp = field(spec, "restartPolicy");
  if (rp.is_string()) policy.type = rp.get<std::string>();
  if (rp.is_object()) {
    policy.type = text(rp, "type", policy.type);
    policy.backoffLimit = integer(rp, "backoffLimit", policy.backoffLimit);
  }
  return policy;
}

// Always re-creates only failed pods: a job's succeeded instance is done. ExitCode treats exit
// codes above 127 (killed by a signal) as transient, as Kubeflow's training operators do.
bool retryable(const RestartPolicy& policy, int exitCode) {
  if (policy.type == "OnFailure" || policy.type == "Always") return true;
  return policy.type == "ExitCode" && exitCode > 127;
}

void setCondition(json& status, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& message, const std::string& now) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  const json next = {{"type", type},       {"status", value},       {"reason", reason},
                     {"message", message}, {"lastUpdateTime", now}, {"lastTransitionTime", now}};
  for (json& c : conditions) {
    if (text(c, "type") != type) continue;
    if (text(c, "status") != value) c = next;
    return;
  }
  conditions.push_back(next);
}

std::string failureMessage(const std::string& podName, int exitCode) {
  return "pod " + podName + " failed" +
         (exitCode >= 0 ? " with exit code " + std::to_string(exitCode) : std::string());
}

void addEnv(json& container, const json& vars) {
  json& env = container["env"];
  if (!env.is_array()) env = json::array();
  for (const auto& [name, value] : vars.items()) env.push_back({{"name", name}, {"value", value}});
}

}  // namespace

IpuJobController::IpuJobController(Api& api) : Controller(api, "ipujob") {
  watch("graphcore.ai/ipujobs");
  watch("/pods", [](const WatchEvent& e) {
    std::vector<ObjectKey> keys;
    const json& refs = field(field(e.object, "metadata"), "ownerReferences");
    if (!refs.is_array()) return keys;
    for (const json& ref : refs) {
      if (text(ref, "kind") == "IPUJob" && field(ref, "controller") == true) {
        keys.push_back({"graphcore.ai/ipujobs", e.namespace_, text(ref, "name")});
      }
    }
    return keys;
  });
}

std::optional<std::chrono::milliseconds> IpuJobController::reconcile(const ObjectKey& key) {
  const std::optional<ResourceType> jobType = api_.typeOf("graphcore.ai", "ipujobs");
  if (!jobType) return std::nullopt;
  const ResourceType podType = builtinType(api_, "", "pods");
  ApiResult<json> found = api_.get(*jobType, key.ns, key.name);
  if (!found.isOk() || deleting(*found)) return std::nullopt;
  json job = *found;
  const std::string uid = text(job["metadata"], "uid");
  const json spec = field(job, "spec");
  const std::int64_t instances = integer(spec, "jobInstances", 0);
  const std::string ipus = text(spec, "ipusPerJobInstance");
  const json& podTemplate = field(field(spec, "workers"), "template");
  if (instances < 1 || ipus.empty() || !field(podTemplate, "spec").is_object()) return std::nullopt;
  const json& launcherCommand = field(field(spec, "launcher"), "command");
  const bool hasLauncher = launcherCommand.is_array() && !launcherCommand.empty();
  const json original = field(job, "status").is_object() ? job["status"] : json::object();
  json status = original;
  const std::string now = common::formatRfc3339(api_.clock().now());

  std::map<std::string, json> pods;
  for (json& p : api_.store().list("/pods", key.ns).first) {
    const json& refs = field(p["metadata"], "ownerReferences");
    if (!refs.is_array()) continue;
    for (const json& ref : refs) {
      if (text(ref, "uid") == uid && field(ref, "controller") == true) {
        std::string name = text(p["metadata"], "name");
        pods[std::move(name)] = std::move(p);
        break;
      }
    }
  }
  auto removePod = [&](const std::string& name) {
    DeleteOptions options;
    options.propagationPolicy = "Background";
    (void)api_.remove(podType, key.ns, name, options);
  };
  // Running pods hold IPUs, so they go when the job ends; cleanPodPolicy says what else goes.
  auto cleanUp = [&] {
    const std::string policy = text(spec, "cleanPodPolicy", "None");
    for (const auto& [name, p] : pods) {
      if (deleting(p)) continue;
      const bool worker = text(field(p["metadata"], "labels"), kIpuJobRoleLabel) == "worker";
      const std::string phase = phaseOf(p);
      if ((phase != "Succeeded" && phase != "Failed") || policy == "All" ||
          (policy == "Workers" && worker)) {
        removePod(name);
      }
    }
  };
  const std::string state = text(status, "state");
  if (state == "Completed" || state == "Failed") {
    cleanUp();
    return std::nullopt;
  }

  if (!status.contains("startTime")) status["startTime"] = now;
  setCondition(status, "Created", "True", "IPUJobCreated", "IPUJob " + key.name + " is created",
               now);
  const RestartPolicy policy = restartPolicyOf(spec);
  std::int64_t restarts = integer(status, "restartCount", 0);
  std::optional<std::pair<std::string, std::string>> failure;
  // A failed pod is deleted to be re-created while the policy allows, else it fails the job.
  auto judgeFailure = [&](const std::string& name, const json& pod, const std::string& reason) {
    const int code = exitCodeOf(pod);
    if (retryable(policy, code) && restarts < policy.backoffLimit) {
      ++restarts;
      removePod(name);
      return true;
    }
    if (!failure) {
      failure = std::make_pair(retryable(policy, code) ? "BackoffLimitExceeded" : reason,
                               failureMessage(name, code));
    }
    return false;
  };

  std::int64_t active = 0, running = 0, succeeded = 0, failed = 0;
  std::vector<std::int64_t> missing;
  std::vector<std::string> workerNames;
  for (std::int64_t i = 0; i < instances; ++i) {
    const std::string name = key.name + "-worker-" + std::to_string(i);
    workerNames.push_back(name);
    auto it = pods.find(name);
    if (it == pods.end()) {
      missing.push_back(i);
      continue;
    }
    const std::string phase = phaseOf(it->second);
    if (deleting(it->second)) {
      ++active;
    } else if (phase == "Succeeded") {
      ++succeeded;
    } else if (phase == "Failed") {
      if (judgeFailure(name, it->second, "WorkerFailed")) {
        ++active;
      } else {
        ++failed;
      }
    } else {
      ++active;
      if (phase == "Running") ++running;
    }
  }

  const std::string launcherName = key.name + "-launcher";
  std::string launcherStatus = "Pending";
  bool launcherMissing = false;
  if (hasLauncher) {
    auto it = pods.find(launcherName);
    if (it == pods.end()) {
      launcherMissing = true;
    } else if (!deleting(it->second)) {
      const std::string phase = phaseOf(it->second);
      if (phase == "Failed") {
        launcherStatus =
            judgeFailure(launcherName, it->second, "LauncherFailed") ? "Pending" : "Failed";
      } else if (phase == "Succeeded" || phase == "Running") {
        launcherStatus = phase;
      }
    }
  }

  const bool done = hasLauncher ? launcherStatus == "Succeeded" : succeeded == instances;
  if (!failure && !done) {
    for (std::int64_t i : missing) {
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
      pod["metadata"] =
          field(podTemplate, "metadata").is_object() ? podTemplate["metadata"] : json::object();
      pod["spec"] = podTemplate["spec"];
      json& meta = pod["metadata"];
      meta.erase("generateName");
      meta["name"] = workerNames[static_cast<std::size_t>(i)];
      if (!meta["labels"].is_object()) meta["labels"] = json::object();
      meta["labels"][kIpuJobNameLabel] = key.name;
      meta["labels"][kIpuJobRoleLabel] = "worker";
      meta["labels"][kIpuJobIndexLabel] = std::to_string(i);
      meta["ownerReferences"] =
          json::array({controllerReference(jobType->apiVersion(), "IPUJob", key.name, uid)});
      json& podSpec = pod["spec"];
      // Graphcore's examples all say Never; a pod's own default (Always) would never finish.
      if (!podSpec["restartPolicy"].is_string()) podSpec["restartPolicy"] = "Never";
      podSpec["hostname"] = meta["name"];
      json env = {{"IPUJOB_NAME", key.name},
                  {"IPUJOB_INSTANCE_INDEX", std::to_string(i)},
                  {"IPUJOB_INSTANCES", std::to_string(instances)},
                  {"IPUJOB_IPUS_PER_INSTANCE", ipus},
                  {"IPUOF_VIPU_API_PARTITION_ID", "p-" + key.name + "-" + std::to_string(i)}};
      const std::string replicas = text(spec, "modelReplicasPerWorker");
      if (!replicas.empty()) env["IPUJOB_MODEL_REPLICAS_PER_WORKER"] = replicas;
      bool first = true;
      if (!podSpec["containers"].is_array()) continue;
      for (json& c : podSpec["containers"]) {
        if (!c.is_object()) continue;
        addEnv(c, env);
        // The partition belongs to the pod: its first container asks for all of its IPUs.
        if (first) {
          if (!c["resources"].is_object()) c["resources"] = json::object();
          if (!c["resources"]["limits"].is_object()) c["resources"]["limits"] = json::object();
          c["resources"]["limits"][kIpuResource] = ipus;
          first = false;
        }
      }
      ApiResult<WriteResult> created = api_.create(podType, key.ns, pod, WriteOptions{});
      if (created.isOk()) ++active;
    }
    if (launcherMissing && running == instances) {
      json container = {{"name", "launcher"}, {"command", launcherCommand}};
      const json& containers = field(podTemplate["spec"], "containers");
      if (containers.is_array() && !containers.empty()) {
        container["image"] = text(containers[0], "image", "graphcore/tools");
      }
      std::string workers;
      for (const std::string& w : workerNames) workers += (workers.empty() ? "" : ",") + w;
      addEnv(container, {{"IPUJOB_NAME", key.name},
                         {"IPUJOB_INSTANCES", std::to_string(instances)},
                         {"IPUJOB_WORKERS", workers}});
      json pod = {
          {"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", launcherName},
            {"labels", {{kIpuJobNameLabel, key.name}, {kIpuJobRoleLabel, "launcher"}}},
            {"ownerReferences",
             json::array({controllerReference(jobType->apiVersion(), "IPUJob", key.name, uid)})}}},
          {"spec", {{"restartPolicy", "Never"}, {"containers", json::array({container})}}}};
      (void)api_.create(podType, key.ns, pod, WriteOptions{});
    }
  }

  const bool finished = failure || done;
  auto stopRunning = [&](const std::string& reason, const std::string& message) {
    for (const json& c : status.value("conditions", json::array())) {
      if (text(c, "type") == "Running") {
        setCondition(status, "Running", "False", reason, message, now);
        return;
      }
    }
  };
  if (failure) {
    status["state"] = "Failed";
    status["lastMessage"] = failure->second;
    stopRunning(failure->first, failure->second);
    setCondition(status, "Failed", "True", failure->first, failure->second, now);
  } else if (done) {
    status["state"] = "Completed";
    status["lastMessage"] = "All instances done";
    stopRunning("IPUJobCompleted", "All instances done");
    setCondition(status, "Completed", "True", "IPUJobCompleted", "All instances done", now);
  } else if (running > 0 || succeeded > 0) {
    const std::string message =
        std::to_string(running) + " of " + std::to_string(instances) + " instances running";
    status["state"] = "Running";
    status["lastMessage"] = message;
    setCondition(status, "Running", "True", "IPUJobRunning", message, now);
  } else {
    status["state"] = "Pending";
    status["lastMessage"] = "Waiting for " + std::to_string(instances) + " instances to start";
  }
  if (finished) status["completionTime"] = now;
  if (hasLauncher) status["launcherStatus"] = launcherStatus;
  status["workersStatus"] = {
      {"active", finished ? 0 : active}, {"succeeded", succeeded}, {"failed", failed}};
  status["restartCount"] = restarts;
  if (status != original) {
    job["status"] = status;
    ApiResult<WriteResult> written =
        api_.update(*jobType, key.ns, key.name, job, "status", WriteOptions{});
    if (!written.isOk()) return 20ms;  // a conflict: read again
  }
  if (finished) cleanUp();
  return std::nullopt;
}

}  // namespace hetbench::kubesim
