#include "cluster/deployment_controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kTemplateHashLabel = "pod-template-hash";
constexpr const char* kRevision = "deployment.kubernetes.io/revision";
constexpr const char* kDesiredReplicas = "deployment.kubernetes.io/desired-replicas";
constexpr const char* kMaxReplicas = "deployment.kubernetes.io/max-replicas";
constexpr const char* kRevisionHistory = "deployment.kubernetes.io/revision-history";
constexpr std::string_view kDeploymentController = "deployment-controller";
constexpr std::string_view kReplicaSetController = "replicaset-controller";
constexpr std::string_view kScalingReplicaSet = "ScalingReplicaSet";
// The Deployment API's defaults, which kubesim does not write into stored objects.
constexpr std::int64_t kDefaultRevisionHistoryLimit = 10;
constexpr const char* kDefaultMaxSurge = "25%";
constexpr const char* kDefaultMaxUnavailable = "25%";

bool isControlledBy(const json& object, const std::string& uid) {
  for (const json& ref : object["metadata"].value("ownerReferences", json::array())) {
    if (ref.value("uid", "") == uid && ref.value("controller", false)) return true;
  }
  return false;
}

bool isTerminating(const json& object) { return object["metadata"].contains("deletionTimestamp"); }

/// A pod the ReplicaSet counts: neither finished nor being deleted.
bool isActive(const json& pod) {
  const std::string phase = pod.value("status", json::object()).value("phase", "");
  return phase != "Succeeded" && phase != "Failed" && !isTerminating(pod);
}

bool isReady(const json& pod) {
  for (const json& c : pod.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

std::int64_t replicasOf(const json& object) {
  return object.value("spec", json::object()).value("replicas", std::int64_t{1});
}

std::int64_t statusCount(const json& object, const char* field) {
  return object.value("status", json::object()).value(field, std::int64_t{0});
}

/// Sets a count the API server's JSON leaves out when zero (omitempty).
void setCount(json& status, const char* field, std::int64_t value) {
  if (value == 0) {
    status.erase(field);
  } else {
    status[field] = value;
  }
}

std::int64_t revisionOf(const json& object) {
  const json& annotations = object["metadata"].value("annotations", json::object());
  try {
    return std::stoll(annotations.value(kRevision, "0"));
  } catch (...) {
    return 0;
  }
}

/// An IntOrString of a rolling update against the replica count: percentages round up for
/// maxSurge and down for maxUnavailable, as intstr.GetScaledValueFromIntOrPercent.
std::int64_t resolve(const json& value, std::int64_t replicas, bool roundUp) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (!value.is_string()) return 0;
  std::string text = value.get<std::string>();
  if (text.empty() || text.back() != '%') {
    try {
      return std::stoll(text);
    } catch (...) {
      return 0;
    }
  }
  text.pop_back();
  std::int64_t percent = 0;
  try {
    percent = std::stoll(text);
  } catch (...) {
    return 0;
  }
  return roundUp ? (percent * replicas + 99) / 100 : percent * replicas / 100;
}

/// The pod template without the label the Deployment controller adds to its ReplicaSets'.
json withoutHashLabel(json podTemplate) {
  json& labels = podTemplate["metadata"]["labels"];
  if (labels.is_object()) labels.erase(kTemplateHashLabel);
  if (labels.is_object() && labels.empty()) podTemplate["metadata"].erase("labels");
  if (podTemplate["metadata"].is_object() && podTemplate["metadata"].empty()) {
    podTemplate.erase("metadata");
  }
  return podTemplate;
}

/// Sets a Deployment condition as deploymentutil.SetDeploymentCondition: nothing changes while
/// status and reason stay; otherwise the condition moves to the end of the list, keeping its
/// transition time when only the reason changed. `refresh` replaces it even then (the
/// ReplicaSetUpdated condition, whose update time marks the latest progress).
void setCondition(json& status, const std::string& type, const std::string& value,
                  const std::string& reason, const std::string& message, const std::string& now,
                  bool refresh = false) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json condition = {{"type", type},          {"status", value},
                    {"lastUpdateTime", now}, {"lastTransitionTime", now},
                    {"reason", reason},      {"message", message}};
  json kept = json::array();
  for (const json& c : conditions) {
    if (c.value("type", "") != type) {
      kept.push_back(c);
      continue;
    }
    if (!refresh && c.value("status", "") == value && c.value("reason", "") == reason) return;
    if (c.value("status", "") == value) condition["lastTransitionTime"] = c["lastTransitionTime"];
  }
  kept.push_back(std::move(condition));
  conditions = std::move(kept);
}

/// The Deployment's annotations that its new ReplicaSet carries too: all but the controller's own
/// and kubectl's last-applied configuration (deploymentutil's annotationsToSkip).
bool copiedAnnotation(const std::string& key) {
  return key != "kubectl.kubernetes.io/last-applied-configuration" && key != kRevision &&
         key != kRevisionHistory && key != kDesiredReplicas && key != kMaxReplicas &&
         key != "deprecated.deployment.rollback.to";
}

/// Gives the Deployment's new ReplicaSet the Deployment's annotations and `revision`, as
/// deploymentutil.SetNewReplicaSetAnnotations: a revision only goes up, the one it replaces
/// (a rollback to this ReplicaSet) is kept in the revision history. True when anything changed.
bool setNewReplicaSetAnnotations(const json& deployment, json& replicaSet, std::int64_t revision) {
  json& annotations = replicaSet["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  const json before = annotations;
  const json copied = deployment["metadata"].value("annotations", json::object());
  for (const auto& [key, value] : copied.items()) {
    if (copiedAnnotation(key)) annotations[key] = value;
  }
  const std::int64_t current = revisionOf(replicaSet);
  if (current < revision) {
    if (annotations.contains(kRevision)) {
      const std::string history = annotations.value(kRevisionHistory, "");
      annotations[kRevisionHistory] =
          history.empty() ? std::to_string(current) : history + "," + std::to_string(current);
    }
    annotations[kRevision] = std::to_string(revision);
  }
  return annotations != before;
}

/// The Deployment status fields that count pods, from its ReplicaSets (calculateStatus).
struct PodCounts {
  std::int64_t specified = 0;  // the sum of the ReplicaSets' spec.replicas
  std::int64_t replicas = 0;
  std::int64_t updated = 0;
  std::int64_t ready = 0;
  std::int64_t available = 0;
};

PodCounts countPods(const std::optional<json>& current, const std::vector<json>& old) {
  PodCounts counts;
  auto add = [&counts](const json& rs) {
    counts.specified += replicasOf(rs);
    counts.replicas += statusCount(rs, "replicas");
    counts.ready += statusCount(rs, "readyReplicas");
    counts.available += statusCount(rs, "availableReplicas");
  };
  for (const json& rs : old) add(rs);
  if (current) {
    add(*current);
    counts.updated = statusCount(*current, "replicas");
  }
  return counts;
}

/// deploymentutil.DeploymentComplete: every replica updated and available, no old one left, and
/// the current spec observed.
bool isComplete(const json& deployment, const json& status) {
  const std::int64_t replicas = replicasOf(deployment);
  return status.value("updatedReplicas", std::int64_t{0}) == replicas &&
         status.value("replicas", std::int64_t{0}) == replicas &&
         status.value("availableReplicas", std::int64_t{0}) == replicas &&
         status.value("observedGeneration", std::int64_t{0}) >=
             deployment["metadata"].value("generation", std::int64_t{0});
}

/// deploymentutil.DeploymentProgressing: more pods updated, ready or available, or fewer old.
bool madeProgress(const json& before, const json& after) {
  auto count = [](const json& status, const char* field) {
    return status.value(field, std::int64_t{0});
  };
  const std::int64_t oldBefore = count(before, "replicas") - count(before, "updatedReplicas");
  const std::int64_t oldAfter = count(after, "replicas") - count(after, "updatedReplicas");
  return count(after, "updatedReplicas") > count(before, "updatedReplicas") ||
         count(after, "readyReplicas") > count(before, "readyReplicas") ||
         count(after, "availableReplicas") > count(before, "availableReplicas") ||
         oldAfter < oldBefore;
}

bool byCreation(const json& a, const json& b) {
  const std::string ta = a["metadata"].value("creationTimestamp", "");
  const std::string tb = b["metadata"].value("creationTimestamp", "");
  if (ta != tb) return ta < tb;
  return a["metadata"].value("name", "") < b["metadata"].value("name", "");
}

/// Writes the status computed from `object` when it changed, onto the stored object (which a
/// write of the controller's own may have moved on); false when the write failed (requeue).
bool writeStatus(Api& api, const ResourceType& type, const ObjectKey& key, const json& object,
                 const json& status) {
  if (status == object.value("status", json::object())) return true;
  ApiResult<json> stored = api.get(type, key.ns, key.name);
  if (!stored.isOk()) return true;  // gone: nothing to report
  json updated = *stored;
  updated["status"] = status;
  ApiResult<WriteResult> written = api.update(type, key.ns, key.name, updated, "status", {});
  if (!written.isOk() && written.error().code != 409) {
    spdlog::warn("kubesim status write failed object={}/{}/{} code={} message={}", key.storageKey,
                 key.ns, key.name, written.error().code, written.error().message);
  }
  return written.isOk();
}

}  // namespace

std::string podTemplateHash(const json& podTemplate, std::int64_t collisionCount) {
  std::uint32_t hash = 2166136261u;
  auto mix = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 16777619u;
    }
  };
  mix(podTemplate.dump());
  if (collisionCount > 0) mix(std::to_string(collisionCount));
  // rand.SafeEncodeString: each character of the decimal number mapped to a consonant or a
  // digit, so that a hash never spells a word.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string encoded = std::to_string(hash);
  for (char& c : encoded) c = kAlphabet[static_cast<unsigned char>(c) % kAlphabet.size()];
  return encoded;
}

ReplicaSetController::ReplicaSetController(Api& api, EventRecorder& events)
    : Controller(api, "replicaset"), events_(events) {
  watch("apps/replicasets");
  watch("/pods",
        [](const WatchEvent& e) { return controllersOf(e, "ReplicaSet", "apps/replicasets"); });
}

void ReplicaSetController::record(const json& replicaSet, std::string_view type,
                                  std::string_view reason, const std::string& message) {
  events_.record({EventSource::Recorder::kCoreV1, std::string(kReplicaSetController), ""},
                 objectReference(replicaSet), type, reason, message);
}

std::optional<std::chrono::milliseconds> ReplicaSetController::reconcile(const ObjectKey& key) {
  const ResourceType replicaSetType = builtinType(api_, "apps", "replicasets");
  const ResourceType podType = builtinType(api_, "", "pods");
  ApiResult<json> found = api_.get(replicaSetType, key.ns, key.name);
  if (!found.isOk()) return std::nullopt;
  const json& replicaSet = *found;
  const std::string uid = replicaSet["metadata"].value("uid", "");

  std::vector<json> active;
  for (json& p : api_.store().list("/pods", key.ns).first) {
    if (isControlledBy(p, uid) && isActive(p)) active.push_back(std::move(p));
  }
  const auto want = static_cast<std::size_t>(std::max<std::int64_t>(0, replicasOf(replicaSet)));
  // A ReplicaSet being deleted makes no pods: the garbage collector is removing them.
  if (!isTerminating(replicaSet) && active.size() < want) {
    const json& podTemplate = replicaSet["spec"].value("template", json::object());
    for (std::size_t i = active.size(); i < want; ++i) {
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
      pod["metadata"] = podTemplate.value("metadata", json::object());
      pod["spec"] = podTemplate.value("spec", json::object());
      pod["metadata"]["generateName"] = key.name + "-";
      pod["metadata"]["ownerReferences"] =
          json::array({controllerReference("apps/v1", "ReplicaSet", key.name, uid)});
      ApiResult<WriteResult> created = api_.create(podType, key.ns, pod, WriteOptions{});
      if (!created.isOk()) {
        record(replicaSet, events::kWarning, events::kFailedCreate,
               "Error creating: " + created.error().message);
        break;  // as the controller's slow start: retried at the next sync
      }
      record(replicaSet, events::kNormal, events::kSuccessfulCreate,
             "Created pod: " + created->object["metadata"].value("name", ""));
      active.push_back(created->object);
    }
  } else if (!isTerminating(replicaSet) && active.size() > want) {
    // Pods that are not ready go first, then the newest (controller.ActivePods' order, in
    // short).
    std::stable_sort(active.begin(), active.end(), [](const json& a, const json& b) {
      if (isReady(a) != isReady(b)) return !isReady(a);
      return a["metadata"].value("creationTimestamp", "") >
             b["metadata"].value("creationTimestamp", "");
    });
    const std::size_t surplus = active.size() - want;
    for (std::size_t i = 0; i < surplus; ++i) {
      const std::string victim = active[i]["metadata"].value("name", "");
      if (api_.remove(podType, key.ns, victim, DeleteOptions{}).isOk()) {
        record(replicaSet, events::kNormal, events::kSuccessfulDelete, "Deleted pod: " + victim);
      }
    }
    active.erase(active.begin(), active.begin() + static_cast<std::ptrdiff_t>(surplus));
  }

  json status = replicaSet.value("status", json::object());
  const auto ready = std::count_if(active.begin(), active.end(), isReady);
  status["replicas"] = static_cast<std::int64_t>(active.size());
  setCount(status, "fullyLabeledReplicas", static_cast<std::int64_t>(active.size()));
  setCount(status, "readyReplicas", ready);
  // minReadySeconds is not waited for: a ready pod is available at once.
  setCount(status, "availableReplicas", ready);
  setCount(status, "observedGeneration", replicaSet["metadata"].value("generation", 0LL));
  if (!writeStatus(api_, replicaSetType, key, replicaSet, status)) return 20ms;
  return std::nullopt;
}

DeploymentController::DeploymentController(Api& api, EventRecorder& events)
    : Controller(api, "deployment"), events_(events) {
  watch("apps/deployments");
  watch("apps/replicasets",
        [](const WatchEvent& e) { return controllersOf(e, "Deployment", "apps/deployments"); });
  // A Recreate rollout waits for the old pods to be gone: a deleted pod wakes its Deployment.
  watch("/pods", [this](const WatchEvent& e) {
    std::vector<ObjectKey> keys;
    if (e.type != EventType::kDeleted) return keys;
    for (const ObjectKey& rs : controllersOf(e, "ReplicaSet", "apps/replicasets")) {
      ApiResult<json> found = api_.get(builtinType(api_, "apps", "replicasets"), rs.ns, rs.name);
      if (!found.isOk()) continue;
      WatchEvent owner = e;
      owner.object = *found;
      for (ObjectKey& key : controllersOf(owner, "Deployment", "apps/deployments")) {
        keys.push_back(std::move(key));
      }
    }
    return keys;
  });
}

void DeploymentController::record(const json& deployment, std::string_view type,
                                  std::string_view reason, const std::string& message) {
  events_.record({EventSource::Recorder::kCoreV1, std::string(kDeploymentController), ""},
                 objectReference(deployment), type, reason, message);
}

bool DeploymentController::scale(const json& deployment, json& replicaSet, std::int64_t replicas,
                                 std::int64_t maxSurge) {
  const std::int64_t from = replicasOf(replicaSet);
  const std::int64_t desired = replicasOf(deployment);
  const json& annotations = replicaSet["metadata"].value("annotations", json::object());
  // deploymentutil.SetReplicasAnnotations: what the Deployment wanted when it last scaled this.
  const bool annotated = annotations.value(kDesiredReplicas, "") == std::to_string(desired) &&
                         annotations.value(kMaxReplicas, "") == std::to_string(desired + maxSurge);
  if (from == replicas && annotated) return false;
  json written;
  const bool ok = updateObject(api_, builtinType(api_, "apps", "replicasets"),
                               replicaSet["metadata"].value("namespace", ""),
                               replicaSet["metadata"].value("name", ""), [&](json& object) {
                                 object["spec"]["replicas"] = replicas;
                                 json& a = object["metadata"]["annotations"];
                                 a[kDesiredReplicas] = std::to_string(desired);
                                 a[kMaxReplicas] = std::to_string(desired + maxSurge);
                                 written = object;
                                 return true;
                               });
  if (!ok) return false;
  replicaSet["spec"]["replicas"] = replicas;
  replicaSet["metadata"]["annotations"] = written["metadata"]["annotations"];
  if (from == replicas) return false;
  record(deployment, events::kNormal, kScalingReplicaSet,
         std::string(replicas > from ? "Scaled up" : "Scaled down") + " replica set " +
             replicaSet["metadata"].value("name", "") + " from " + std::to_string(from) + " to " +
             std::to_string(replicas));
  return true;
}

std::optional<json> DeploymentController::createReplicaSet(const json& deployment,
                                                           std::int64_t replicas,
                                                           std::int64_t maxSurge,
                                                           std::int64_t revision) {
  const ResourceType replicaSetType = builtinType(api_, "apps", "replicasets");
  const json& metadata = deployment["metadata"];
  const std::string name = metadata.value("name", "");
  const std::string ns = metadata.value("namespace", "");
  const json& spec = deployment["spec"];
  const json& podTemplate = spec.value("template", json::object());
  const json status = deployment.value("status", json::object());
  const std::int64_t collisionCount = status.value("collisionCount", std::int64_t{0});
  const std::string hash = podTemplateHash(podTemplate, collisionCount);
  const std::int64_t desired = replicasOf(deployment);
  json rs = {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}};
  rs["metadata"] = {
      {"name", name + "-" + hash},
      {"labels", podTemplate.value("metadata", json::object()).value("labels", json::object())},
      {"annotations",
       {{kDesiredReplicas, std::to_string(desired)},
        {kMaxReplicas, std::to_string(desired + maxSurge)}}},
      {"ownerReferences", json::array({controllerReference("apps/v1", "Deployment", name,
                                                           metadata.value("uid", ""))})}};
  rs["metadata"]["labels"][kTemplateHashLabel] = hash;
  setNewReplicaSetAnnotations(deployment, rs, revision);
  rs["spec"] = {{"replicas", replicas},
                {"selector", spec.value("selector", json::object())},
                {"template", podTemplate}};
  rs["spec"]["selector"]["matchLabels"][kTemplateHashLabel] = hash;
  rs["spec"]["template"]["metadata"]["labels"][kTemplateHashLabel] = hash;
  if (spec.contains("minReadySeconds")) rs["spec"]["minReadySeconds"] = spec["minReadySeconds"];
  ApiResult<WriteResult> written = api_.create(replicaSetType, ns, rs, WriteOptions{});
  if (!written.isOk()) {
    if (written.error().code == 409) {
      // A ReplicaSet of that name with another template: the next hash (collisionCount).
      json updated = status;
      updated["collisionCount"] = collisionCount + 1;
      writeStatus(api_, builtinType(api_, "apps", "deployments"), {"apps/deployments", ns, name},
                  deployment, updated);
    } else {
      spdlog::warn("kubesim replicaset create failed deployment={}/{} code={} message={}", ns, name,
                   written.error().code, written.error().message);
    }
    return std::nullopt;
  }
  if (replicas > 0) {
    record(deployment, events::kNormal, kScalingReplicaSet,
           "Scaled up replica set " + written->object["metadata"].value("name", "") +
               " from 0 to " + std::to_string(replicas));
  }
  return written->object;
}

std::optional<std::chrono::milliseconds> DeploymentController::reconcile(const ObjectKey& key) {
  const ResourceType deploymentType = builtinType(api_, "apps", "deployments");
  const ResourceType replicaSetType = builtinType(api_, "apps", "replicasets");
  ApiResult<json> found = api_.get(deploymentType, key.ns, key.name);
  if (!found.isOk() || isTerminating(*found)) return std::nullopt;
  const json& deployment = *found;
  const std::string uid = deployment["metadata"].value("uid", "");
  const json& spec = deployment["spec"];
  const json& podTemplate = spec.value("template", json::object());
  const std::int64_t replicas = replicasOf(deployment);
  const json before = deployment.value("status", json::object());

  // The new ReplicaSet has the Deployment's template (FindNewReplicaSet: the oldest such);
  // every other one it controls is old.
  std::vector<json> owned;
  for (json& rs : api_.store().list("apps/replicasets", key.ns).first) {
    if (isControlledBy(rs, uid)) owned.push_back(std::move(rs));
  }
  std::sort(owned.begin(), owned.end(), byCreation);
  std::optional<json> current;
  std::vector<json> old;  // oldest first, the order in which they are scaled down
  std::int64_t maxOldRevision = 0;
  for (json& rs : owned) {
    if (!current && withoutHashLabel(rs["spec"].value("template", json::object())) ==
                        withoutHashLabel(podTemplate)) {
      current = std::move(rs);
    } else {
      maxOldRevision = std::max(maxOldRevision, revisionOf(rs));
      old.push_back(std::move(rs));
    }
  }
  const std::int64_t revision = maxOldRevision + 1;

  const json strategy = spec.value("strategy", json::object());
  const bool recreate = strategy.value("type", "RollingUpdate") == "Recreate";
  const json rolling = strategy.value("rollingUpdate", json::object());
  std::int64_t maxSurge = 0;
  std::int64_t maxUnavailable = 0;
  if (!recreate) {
    maxSurge = resolve(rolling.value("maxSurge", json(kDefaultMaxSurge)), replicas, true);
    maxUnavailable =
        resolve(rolling.value("maxUnavailable", json(kDefaultMaxUnavailable)), replicas, false);
    // deploymentutil.ResolveFenceposts: a rollout must be able to move.
    if (maxSurge == 0 && maxUnavailable == 0) maxUnavailable = 1;
    maxUnavailable = std::min(maxUnavailable, replicas);  // deploymentutil.MaxUnavailable
  }

  // A ReplicaSet that becomes the new one again (a rollback) takes the next revision.
  if (current && setNewReplicaSetAnnotations(deployment, *current, revision)) {
    const json annotations = (*current)["metadata"]["annotations"];
    updateObject(api_, replicaSetType, key.ns, (*current)["metadata"].value("name", ""),
                 [&](json& object) {
                   object["metadata"]["annotations"] = annotations;
                   return true;
                 });
  }

  bool created = false;
  if (!spec.value("paused", false)) {
    if (recreate) {
      // rolloutRecreate: old ReplicaSets to zero, then wait until none of their pods is left
      // (terminating ones included), then the new ReplicaSet at full size.
      bool scaledDown = false;
      for (json& rs : old) scaledDown = scale(deployment, rs, 0, maxSurge) || scaledDown;
      bool oldPodsRunning = false;
      if (!scaledDown) {
        for (const json& pod : api_.store().list("/pods", key.ns).first) {
          const std::string phase = pod.value("status", json::object()).value("phase", "");
          if (phase == "Succeeded" || phase == "Failed") continue;
          for (const json& rs : old) {
            oldPodsRunning = oldPodsRunning || isControlledBy(pod, rs["metadata"].value("uid", ""));
          }
        }
      }
      if (!scaledDown && !oldPodsRunning) {
        if (!current) {
          current = createReplicaSet(deployment, replicas, maxSurge, revision);
          if (!current) return 1s;
          created = true;
        } else {
          scale(deployment, *current, replicas, maxSurge);
        }
      }
    } else if (!current) {
      // rolloutRolling: a new ReplicaSet as large as maxSurge leaves room for.
      const std::int64_t specified = countPods(std::nullopt, old).specified;
      current = createReplicaSet(
          deployment, std::clamp<std::int64_t>(replicas + maxSurge - specified, 0, replicas),
          maxSurge, revision);
      if (!current) return 1s;
      created = true;
    } else {
      // reconcileNewReplicaSet: up by what maxSurge allows; a sync that scales it stops there.
      const std::int64_t newSpecified = replicasOf(*current);
      const std::int64_t specified = countPods(current, old).specified;
      bool scaled = false;
      if (newSpecified > replicas) {
        scaled = scale(deployment, *current, replicas, maxSurge);
      } else if (newSpecified < replicas && specified < replicas + maxSurge) {
        scaled =
            scale(deployment, *current,
                  std::min(replicas, newSpecified + replicas + maxSurge - specified), maxSurge);
      } else {
        scale(deployment, *current, newSpecified, maxSurge);  // the annotations only
      }
      if (!scaled) reconcileOldReplicaSets(deployment, *current, old, maxSurge, maxUnavailable);
    }
  }

  // cleanupDeployment, once the last rollout completed: old ReplicaSets beyond the history
  // limit, lowest revision first, each only when it has no pods left.
  if (spec.value("paused", false) || isComplete(deployment, before)) {
    std::vector<json> alive;
    for (const json& rs : old) {
      if (!isTerminating(rs)) alive.push_back(rs);
    }
    std::sort(alive.begin(), alive.end(),
              [](const json& a, const json& b) { return revisionOf(a) < revisionOf(b); });
    const std::int64_t surplus = static_cast<std::int64_t>(alive.size()) -
                                 spec.value("revisionHistoryLimit", kDefaultRevisionHistoryLimit);
    for (std::int64_t i = 0; i < surplus; ++i) {
      const json& rs = alive[static_cast<std::size_t>(i)];
      if (replicasOf(rs) != 0 || statusCount(rs, "replicas") != 0 ||
          rs["metadata"].value("generation", std::int64_t{0}) >
              statusCount(rs, "observedGeneration")) {
        continue;
      }
      const std::string name = rs["metadata"].value("name", "");
      if (!api_.remove(replicaSetType, key.ns, name, DeleteOptions{}).isOk()) {
        spdlog::debug("kubesim old replicaset not deleted replicaset={}/{}", key.ns, name);
      }
    }
  }

  if (current) {
    const std::string currentRevision = std::to_string(revisionOf(*current));
    updateObject(api_, deploymentType, key.ns, key.name, [&](json& object) {
      json& annotations = object["metadata"]["annotations"];
      if (annotations.is_object() && annotations.value(kRevision, "") == currentRevision) {
        return false;
      }
      annotations[kRevision] = currentRevision;
      return true;
    });
  }

  // calculateStatus, then syncRolloutStatus's conditions.
  const PodCounts counts = countPods(current, old);
  json status = before;
  status["observedGeneration"] = deployment["metadata"].value("generation", 0LL);
  setCount(status, "replicas", counts.replicas);
  setCount(status, "updatedReplicas", counts.updated);
  setCount(status, "readyReplicas", counts.ready);
  setCount(status, "availableReplicas", counts.available);
  setCount(status, "unavailableReplicas",
           std::max<std::int64_t>(0, counts.specified - counts.available));
  const std::string now = common::formatRfc3339(api_.clock().now());
  if (counts.available >= replicas - maxUnavailable) {
    setCondition(status, "Available", "True", "MinimumReplicasAvailable",
                 "Deployment has minimum availability.", now);
  } else {
    setCondition(status, "Available", "False", "MinimumReplicasUnavailable",
                 "Deployment does not have minimum availability.", now);
  }
  const std::string subject =
      current ? "ReplicaSet \"" + (*current)["metadata"].value("name", "") + "\""
              : "Deployment \"" + key.name + "\"";
  if (created) {
    setCondition(status, "Progressing", "True", "NewReplicaSetCreated",
                 "Created new replica set \"" + (*current)["metadata"].value("name", "") + "\"",
                 now);
  } else if (current && isComplete(deployment, status)) {
    setCondition(status, "Progressing", "True", "NewReplicaSetAvailable",
                 subject + " has successfully progressed.", now);
  } else if (madeProgress(before, status)) {
    setCondition(status, "Progressing", "True", "ReplicaSetUpdated", subject + " is progressing.",
                 now, true);
  }
  if (!writeStatus(api_, deploymentType, key, deployment, status)) return 20ms;
  return std::nullopt;
}

void DeploymentController::reconcileOldReplicaSets(const json& deployment, const json& current,
                                                   std::vector<json>& old, std::int64_t maxSurge,
                                                   std::int64_t maxUnavailable) {
  const PodCounts counts = countPods(current, old);
  if (counts.specified == replicasOf(current)) return;  // no old pod specified
  const std::int64_t minAvailable = replicasOf(deployment) - maxUnavailable;
  const std::int64_t newUnavailable =
      replicasOf(current) - statusCount(current, "availableReplicas");
  const std::int64_t maxScaledDown = counts.specified - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return;
  // cleanupUnhealthyReplicas: unavailable old pods go first, so that they cannot block the
  // rollout.
  std::int64_t scaledDown = 0;
  for (json& rs : old) {
    if (scaledDown >= maxScaledDown) break;
    const std::int64_t unhealthy = replicasOf(rs) - statusCount(rs, "availableReplicas");
    if (replicasOf(rs) == 0 || unhealthy <= 0) continue;
    const std::int64_t down = std::min(maxScaledDown - scaledDown, unhealthy);
    if (scale(deployment, rs, replicasOf(rs) - down, maxSurge)) scaledDown += down;
  }
  // scaleDownOldReplicaSetsForRollingUpdate: then available ones, down to minAvailable.
  const std::int64_t available = counts.available;
  if (available <= minAvailable) return;
  const std::int64_t budget = available - minAvailable;
  std::int64_t done = 0;
  for (json& rs : old) {
    if (done >= budget) break;
    if (replicasOf(rs) == 0) continue;
    const std::int64_t down = std::min(replicasOf(rs), budget - done);
    if (scale(deployment, rs, replicasOf(rs) - down, maxSurge)) done += down;
  }
}

}  // namespace hetbench::kubesim
