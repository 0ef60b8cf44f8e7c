#include "cluster/job_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kTracking = "batch.kubernetes.io/job-tracking";
constexpr const char* kIndexKey = "batch.kubernetes.io/job-completion-index";

bool conditionTrue(const json& status, const std::string& type) {
  for (const json& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  }
  return false;
}

void setCondition(json& status, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& message, const std::string& now) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (json& c : conditions) {
    if (c.value("type", "") != type) continue;
    if (c.value("status", "") == value) return;
    c = {{"type", type},       {"status", value},      {"reason", reason},
         {"message", message}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
    return;
  }
  conditions.push_back({{"type", type},
                        {"status", value},
                        {"reason", reason},
                        {"message", message},
                        {"lastProbeTime", now},
                        {"lastTransitionTime", now}});
}

bool hasTracking(const json& pod) { return hasFinalizer(pod, kTracking); }

// Removes the job-tracking finalizer through the API, whose rules then delete a pod that was
// only waiting for it.
void dropTracking(Api& api, const std::string& ns, const std::string& name) {
  updateObject(api, builtinType(api, "", "pods"), ns, name,
               [](json& pod) { return removeFinalizer(pod, kTracking); });
}

std::string phaseOf(const json& pod) {
  return pod.value("status", json::object()).value("phase", "");
}

long long indexOf(const json& pod) {
  const json& annotations = pod["metadata"].value("annotations", json::object());
  if (!annotations.contains(kIndexKey)) return -1;
  try {
    return std::stoll(annotations[kIndexKey].get<std::string>());
  } catch (...) {
    return -1;
  }
}

// The first podFailurePolicy rule that matches a failed pod: its action and message.
std::optional<std::pair<std::string, std::string>> matchFailurePolicy(const json& policy,
                                                                      const json& pod) {
  const json& rules = policy.value("rules", json::array());
  const std::string podName =
      pod["metadata"].value("namespace", "") + "/" + pod["metadata"].value("name", "");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string action = rule.value("action", "");
    if (rule.contains("onExitCodes")) {
      const json& on = rule["onExitCodes"];
      const std::string only = on.value("containerName", "");
      const json values = on.value("values", json::array());
      for (const json& cs :
           pod.value("status", json::object()).value("containerStatuses", json::array())) {
        if (!only.empty() && cs.value("name", "") != only) continue;
        const json& t = cs.value("state", json::object()).value("terminated", json());
        if (t.is_null()) continue;
        const int code = t.value("exitCode", 0);
        if (code == 0) continue;
        const bool in = std::find(values.begin(), values.end(), code) != values.end();
        if (in == (on.value("operator", "In") == "In")) {
          return std::make_pair(action, "Container " + cs.value("name", "") + " for pod " +
                                            podName + " failed with exit code " +
                                            std::to_string(code) + " matching " + action +
                                            " rule at index " + std::to_string(i));
        }
      }
    }
    for (const json& want : rule.value("onPodConditions", json::array())) {
      for (const json& c : pod.value("status", json::object()).value("conditions", json::array())) {
        if (c.value("type", "") == want.value("type", "") &&
            c.value("status", "") == want.value("status", "True")) {
          return std::make_pair(action, "Pod " + podName + " has condition " +
                                            want.value("type", "") + " matching " + action +
                                            " rule at index " + std::to_string(i));
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string formatIndexes(const std::set<long long>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    long long first = *it, last = *it;
    auto next = std::next(it);
    while (next != indexes.end() && *next == last + 1) {
      last = *next;
      ++next;
    }
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
    it = next;
  }
  return out;
}

std::set<long long> parseIndexes(const std::string& text) {
  std::set<long long> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string part = text.substr(start, comma - start);
    try {
      const std::size_t dash = part.find('-');
      const long long a = std::stoll(part.substr(0, dash));
      const long long b = dash == std::string::npos ? a : std::stoll(part.substr(dash + 1));
      for (long long i = a; i <= b && i - a < 1000000; ++i) out.insert(i);
    } catch (...) {
    }
    start = comma + 1;
  }
  return out;
}

JobController::JobController(Api& api, EventRecorder& events, std::chrono::milliseconds podBackoff)
    : Controller(api, "job"), events_(events), podBackoff_(podBackoff) {
  watch("batch/jobs");
  watch("/pods", [](const WatchEvent& e) { return controllersOf(e, "Job", "batch/jobs"); });
}

void JobController::record(const json& job, std::string_view type, std::string_view reason,
                           const std::string& message) {
  events_.record({EventSource::Recorder::kCoreV1, std::string(events::kJobController), ""},
                 objectReference(job), type, reason, message);
}

// As the Job controller's orphan pod handling: pods whose controlling Job is gone keep no
// job-tracking finalizer, or a deleted Job's pods could never go.
void JobController::releaseOrphans(const ObjectKey& key) {
  for (const json& p : api_.store().list("/pods", key.ns).first) {
    bool orphan = false;
    for (const json& ref : p["metadata"].value("ownerReferences", json::array())) {
      orphan = orphan || (ref.value("kind", "") == "Job" && ref.value("controller", false) &&
                          ref.value("name", "") == key.name);
    }
    if (!orphan || !hasTracking(p)) continue;
    dropTracking(api_, key.ns, p["metadata"].value("name", ""));
  }
}

std::optional<std::chrono::milliseconds> JobController::reconcile(const ObjectKey& key) {
  const ResourceType jobType = builtinType(api_, "batch", "jobs");
  const ResourceType podType = builtinType(api_, "", "pods");
  ApiResult<json> found = api_.get(jobType, key.ns, key.name);
  if (!found.isOk()) {
    releaseOrphans(key);
    return std::nullopt;
  }
  json job = *found;
  const std::string uid = job["metadata"].value("uid", "");
  const json& spec = job["spec"];
  json status = job.value("status", json::object());
  const common::WallTime wallNow = api_.clock().now();
  const std::string now = common::formatRfc3339(wallNow);

  std::vector<json> pods;
  for (json& p : api_.store().list("/pods", key.ns).first) {
    for (const json& ref : p["metadata"].value("ownerReferences", json::array())) {
      if (ref.value("uid", "") == uid && ref.value("controller", false)) {
        pods.push_back(std::move(p));
        break;
      }
    }
  }
  auto releasePods = [&](const std::vector<json>& list) {
    for (const json& p : list) {
      if (hasTracking(p)) dropTracking(api_, key.ns, p["metadata"].value("name", ""));
    }
  };

  if (conditionTrue(status, "Complete") || conditionTrue(status, "Failed")) {
    releasePods(pods);
    if (!spec.contains("ttlSecondsAfterFinished")) return std::nullopt;
    std::string finished = status.value("completionTime", "");
    for (const json& c : status.value("conditions", json::array())) {
      if ((c.value("type", "") == "Failed" || c.value("type", "") == "Complete") &&
          finished.empty()) {
        finished = c.value("lastTransitionTime", "");
      }
    }
    common::Result<common::WallTime> at = common::parseRfc3339(finished);
    if (!at.isOk()) return std::nullopt;
    const auto expiry =
        *at + std::chrono::seconds(spec["ttlSecondsAfterFinished"].get<std::int64_t>());
    if (wallNow < expiry) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(expiry - wallNow) + 10ms;
    }
    DeleteOptions options;
    options.propagationPolicy = "Background";
    options.preconditionUid = uid;
    (void)api_.remove(jobType, key.ns, key.name, options);
    return std::nullopt;
  }

  // Count finished pods that still carry the tracking finalizer, exactly once.
  const bool indexed = spec.value("completionMode", "NonIndexed") == "Indexed";
  std::set<long long> completed = parseIndexes(status.value("completedIndexes", ""));
  std::int64_t succeeded = status.value("succeeded", 0);
  std::int64_t failed = status.value("failed", 0);
  std::optional<std::string> failJob;
  std::vector<json> counted;
  std::vector<json> active, terminating;
  std::int64_t restarts = 0, ready = 0;
  std::string lastFailure;
  for (const json& p : pods) {
    const std::string phase = phaseOf(p);
    if (phase == "Succeeded" || phase == "Failed") {
      if (!hasTracking(p)) continue;
      counted.push_back(p);
      if (phase == "Succeeded") {
        ++succeeded;
        if (indexed && indexOf(p) >= 0) completed.insert(indexOf(p));
        continue;
      }
      lastFailure = now;
      std::optional<std::pair<std::string, std::string>> rule;
      if (spec.contains("podFailurePolicy")) rule = matchFailurePolicy(spec["podFailurePolicy"], p);
      if (rule && rule->first == "Ignore") continue;
      if (rule && rule->first == "FailJob") failJob = rule->second;
      ++failed;
    } else if (p["metadata"].contains("deletionTimestamp")) {
      terminating.push_back(p);
    } else {
      active.push_back(p);
      for (const json& cs :
           p.value("status", json::object()).value("containerStatuses", json::array())) {
        restarts += cs.value("restartCount", 0);
      }
      for (const json& c : p.value("status", json::object()).value("conditions", json::array())) {
        if (c.value("type", "") == "Ready" && c.value("status", "") == "True") ++ready;
      }
    }
  }
  status["succeeded"] = succeeded;
  status["failed"] = failed;
  if (indexed) status["completedIndexes"] = formatIndexes(completed);
  if (!lastFailure.empty()) status["lastFailureTime"] = lastFailure;

  auto deletePods = [&](const std::vector<json>& list) {
    for (const json& p : list) {
      DeleteOptions options;
      options.propagationPolicy = "Background";
      const std::string name = p["metadata"].value("name", "");
      if (api_.remove(podType, key.ns, name, options).isOk()) {
        record(job, events::kNormal, events::kSuccessfulDelete, "Deleted pod: " + name);
      }
    }
  };
  // Events about the Job's own state, recorded once its status says so (a write that loses a
  // conflict is redone, and must not record them twice).
  std::vector<std::array<std::string, 3>> transitions;

  std::optional<std::chrono::milliseconds> again;
  const std::int64_t completions = spec.value("completions", std::int64_t{-1});
  const std::int64_t parallelism = spec.value("parallelism", std::int64_t{1});
  if (spec.value("suspend", false)) {
    // Pods removed by a suspension are not failures: they leave tracking uncounted.
    releasePods(active);
    deletePods(active);
    if (!conditionTrue(status, "Suspended")) {
      transitions.push_back(
          {std::string(events::kNormal), std::string(events::kSuspended), "Job suspended"});
    }
    setCondition(status, "Suspended", "True", "JobSuspended", "Job suspended", now);
    status.erase("startTime");
    active.clear();
  } else {
    if (conditionTrue(status, "Suspended")) {
      setCondition(status, "Suspended", "False", "JobResumed", "Job resumed", now);
      transitions.push_back(
          {std::string(events::kNormal), std::string(events::kResumed), "Job resumed"});
    }
    if (!status.contains("startTime")) status["startTime"] = now;
    std::optional<std::pair<std::string, std::string>> failure;
    if (failJob) {
      failure = std::make_pair("PodFailurePolicy", *failJob);
    } else if (failed + (spec["template"]["spec"].value("restartPolicy", "") == "OnFailure"
                             ? restarts
                             : 0) >
               spec.value("backoffLimit", std::int64_t{6})) {
      failure =
          std::make_pair("BackoffLimitExceeded", "Job has reached the specified backoff limit");
    } else if (spec.contains("activeDeadlineSeconds")) {
      common::Result<common::WallTime> started =
          common::parseRfc3339(status["startTime"].get<std::string>());
      const auto deadline =
          *started + std::chrono::seconds(spec["activeDeadlineSeconds"].get<std::int64_t>());
      if (started.isOk() && wallNow >= deadline) {
        failure =
            std::make_pair("DeadlineExceeded", "Job was active longer than specified deadline");
      } else if (started.isOk()) {
        again = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - wallNow) + 10ms;
      }
    }
    const bool done =
        indexed ? static_cast<std::int64_t>(completed.size()) >= completions
                : (completions >= 0 ? succeeded >= completions : succeeded > 0 && active.empty());
    if (failure || conditionTrue(status, "FailureTarget")) {
      if (failure)
        setCondition(status, "FailureTarget", "True", failure->first, failure->second, now);
      deletePods(active);
      for (const json& c : status["conditions"]) {
        if (c.value("type", "") == "FailureTarget")
          failure = std::make_pair(c.value("reason", ""), c.value("message", ""));
      }
      if (active.empty() && terminating.empty()) {
        setCondition(status, "Failed", "True", failure->first, failure->second, now);
        transitions.push_back({std::string(events::kWarning), failure->first, failure->second});
      } else {
        again = 50ms;
      }
      active.clear();
    } else if (done || conditionTrue(status, "SuccessCriteriaMet")) {
      setCondition(status, "SuccessCriteriaMet", "True", "CompletionsReached",
                   "Reached expected number of succeeded pods", now);
      deletePods(active);
      if (active.empty() && terminating.empty()) {
        setCondition(status, "Complete", "True", "CompletionsReached",
                     "Reached expected number of succeeded pods", now);
        status["completionTime"] = now;
        transitions.push_back(
            {std::string(events::kNormal), std::string(events::kCompleted), "Job completed"});
      } else {
        again = 50ms;
      }
      active.clear();
    } else {
      // Failed pods are replaced after an exponential delay, as the Job controller does.
      std::chrono::milliseconds delay = 0ms;
      if (failed > 0) {
        delay = podBackoff_;
        for (std::int64_t i = 1; i < failed && delay < 6min; ++i) delay *= 2;
        delay = std::min<std::chrono::milliseconds>(delay, 6min);
        common::Result<common::WallTime> last =
            common::parseRfc3339(status.value("lastFailureTime", now));
        if (last.isOk() && wallNow < *last + delay) {
          again =
              std::chrono::duration_cast<std::chrono::milliseconds>(*last + delay - wallNow) + 10ms;
          delay = -1ms;
        }
      }
      std::vector<long long> toCreate;
      if (delay >= 0ms) {
        if (indexed) {
          std::set<long long> running;
          for (const json& p : active) running.insert(indexOf(p));
          for (long long i = 0;
               i < completions &&
               static_cast<std::int64_t>(running.size() + toCreate.size()) < parallelism;
               ++i) {
            if (!completed.count(i) && !running.count(i)) toCreate.push_back(i);
          }
        } else {
          std::int64_t want = parallelism;
          if (completions >= 0) want = std::min(want, completions - succeeded);
          for (std::int64_t i = static_cast<std::int64_t>(active.size()); i < want; ++i)
            toCreate.push_back(-1);
        }
      }
      for (long long index : toCreate) {
        json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
        pod["metadata"] = spec["template"].value("metadata", json::object());
        pod["spec"] = spec["template"]["spec"];
        json& meta = pod["metadata"];
        meta["generateName"] = key.name + "-" + (index >= 0 ? std::to_string(index) + "-" : "");
        meta["labels"]["batch.kubernetes.io/job-name"] = key.name;
        meta["labels"]["job-name"] = key.name;
        meta["labels"]["batch.kubernetes.io/controller-uid"] = uid;
        meta["labels"]["controller-uid"] = uid;
        meta["ownerReferences"] =
            json::array({controllerReference("batch/v1", "Job", key.name, uid)});
        meta["finalizers"] = json::array({kTracking});
        if (index >= 0) {
          meta["labels"][kIndexKey] = std::to_string(index);
          meta["annotations"][kIndexKey] = std::to_string(index);
          pod["spec"]["hostname"] = key.name + "-" + std::to_string(index);
          for (const char* list : {"containers", "initContainers"}) {
            if (!pod["spec"].contains(list)) continue;
            for (json& c : pod["spec"][list]) {
              c["env"].push_back({{"name", "JOB_COMPLETION_INDEX"},
                                  {"valueFrom",
                                   {{"fieldRef",
                                     {{"fieldPath", std::string("metadata.annotations['") +
                                                        kIndexKey + "']"}}}}}});
            }
          }
        }
        ApiResult<WriteResult> created = api_.create(podType, key.ns, pod, WriteOptions{});
        if (created.isOk()) {
          active.push_back(created->object);
          record(job, events::kNormal, events::kSuccessfulCreate,
                 "Created pod: " + created->object["metadata"].value("name", ""));
        } else {
          record(job, events::kWarning, events::kFailedCreate,
                 "Error creating: " + created.error().message);
        }
      }
    }
  }
  status["active"] = static_cast<std::int64_t>(active.size());
  status["ready"] = ready;
  status["terminating"] = static_cast<std::int64_t>(terminating.size());
  status["uncountedTerminatedPods"] = json::object();
  if (status != job.value("status", json::object())) {
    job["status"] = status;
    ApiResult<WriteResult> written =
        api_.update(jobType, key.ns, key.name, job, "status", WriteOptions{});
    if (!written.isOk()) {
      if (written.error().code != 409) {
        spdlog::warn("kubesim job status write failed job={}/{} code={} message={}", key.ns,
                     key.name, written.error().code, written.error().message);
      }
      return 20ms;  // read again
    }
  }
  for (const auto& [type, reason, message] : transitions) record(job, type, reason, message);
  releasePods(counted);
  return again;
}

}  // namespace hetbench::kubesim
