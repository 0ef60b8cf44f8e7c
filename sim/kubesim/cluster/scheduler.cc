#include "cluster/scheduler.h"

#include <algorithm>

#include "hetbench/common/time.h"
#include "server/quantity.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

bool requirementMatches(const json& req, const json& labels, const std::string& nodeName,
                        bool isField) {
  const std::string key = req.value("key", "");
  const std::string op = req.value("operator", "");
  std::optional<std::string> value;
  if (isField) {
    if (key == "metadata.name") value = nodeName;
  } else if (labels.contains(key) && labels[key].is_string()) {
    value = labels[key].get<std::string>();
  }
  const json values = req.value("values", json::array());
  auto in = [&] {
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
  if (op == "In") return in();
  if (op == "NotIn") return !in();
  if (op == "Exists") return value.has_value();
  if (op == "DoesNotExist") return !value.has_value();
  if ((op == "Gt" || op == "Lt") && value && values.size() == 1) {
    try {
      const long long have = std::stoll(*value);
      const long long want = std::stoll(values[0].get<std::string>());
      return op == "Gt" ? have > want : have < want;
    } catch (...) {
      return false;
    }
  }
  return false;
}

bool affinityMatches(const json& pod, const json& labels, const std::string& nodeName) {
  const json& required = pod["spec"]
                             .value("affinity", json::object())
                             .value("nodeAffinity", json::object())
                             .value("requiredDuringSchedulingIgnoredDuringExecution", json());
  if (required.is_null()) return true;
  for (const json& term : required.value("nodeSelectorTerms", json::array())) {
    bool all = true;
    for (const json& r : term.value("matchExpressions", json::array())) {
      all = all && requirementMatches(r, labels, nodeName, false);
    }
    for (const json& r : term.value("matchFields", json::array())) {
      all = all && requirementMatches(r, labels, nodeName, true);
    }
    if (all) return true;
  }
  return false;
}

bool tolerates(const json& tolerations, const json& taint) {
  for (const json& t : tolerations) {
    const std::string effect = t.value("effect", "");
    if (!effect.empty() && effect != taint.value("effect", "")) continue;
    const std::string op = t.value("operator", "Equal");
    const std::string key = t.value("key", "");
    if (key.empty() && op == "Exists") return true;
    if (key != taint.value("key", "")) continue;
    if (op == "Exists" || t.value("value", "") == taint.value("value", "")) return true;
  }
  return false;
}

std::map<std::string, std::int64_t> containerRequests(const json& c) {
  std::map<std::string, std::int64_t> out;
  const json& resources = c.value("resources", json::object());
  for (const char* section : {"limits", "requests"}) {
    const json values = resources.value(section, json::object());
    for (const auto& [name, value] : values.items()) {
      if (std::optional<std::int64_t> q = quantityMilli(value)) out[name] = *q;
    }
  }
  return out;
}

}  // namespace

std::map<std::string, std::int64_t> podRequests(const json& pod) {
  std::map<std::string, std::int64_t> sum;
  for (const json& c : pod["spec"].value("containers", json::array())) {
    for (const auto& [name, q] : containerRequests(c)) sum[name] += q;
  }
  for (const json& c : pod["spec"].value("initContainers", json::array())) {
    for (const auto& [name, q] : containerRequests(c)) sum[name] = std::max(sum[name], q);
  }
  sum["pods"] = 1000;
  return sum;
}

std::vector<std::string> nodeMisfits(const json& pod, const json& node,
                                     const std::map<std::string, std::int64_t>& used) {
  std::vector<std::string> out;
  const json& labels = node["metadata"].value("labels", json::object());
  const std::string nodeName = node["metadata"].value("name", "");
  if (node.value("spec", json::object()).value("unschedulable", false)) {
    out.push_back("node(s) were unschedulable");
    return out;
  }
  // The default filters run in this order: TaintToleration, then NodeAffinity.
  const json tolerations = pod["spec"].value("tolerations", json::array());
  for (const json& taint : node.value("spec", json::object()).value("taints", json::array())) {
    const std::string effect = taint.value("effect", "");
    if (effect == "PreferNoSchedule" || tolerates(tolerations, taint)) continue;
    out.push_back("node(s) had untolerated taint {" + taint.value("key", "") + ": " +
                  taint.value("value", "") + "}");
    return out;
  }
  bool selectorOk = true;
  const json nodeSelector = pod["spec"].value("nodeSelector", json::object());
  for (const auto& [key, value] : nodeSelector.items()) {
    if (!labels.contains(key) || labels[key] != value) selectorOk = false;
  }
  if (!selectorOk || !affinityMatches(pod, labels, nodeName)) {
    out.push_back("node(s) didn't match Pod's node affinity/selector");
    return out;
  }
  const json& allocatable =
      node.value("status", json::object()).value("allocatable", json::object());
  for (const auto& [name, want] : podRequests(pod)) {
    if (want == 0) continue;
    std::int64_t have = 0;
    if (allocatable.contains(name)) have = quantityMilli(allocatable[name]).value_or(0);
    auto u = used.find(name);
    const std::int64_t taken = u == used.end() ? 0 : u->second;
    if (taken + want > have) {
      out.push_back(name == "pods" ? "Too many pods" : "Insufficient " + name);
    }
  }
  return out;
}

std::string unschedulableMessage(std::size_t nodes,
                                 const std::vector<std::vector<std::string>>& misfits) {
  // kube-scheduler's FitError: "COUNT REASON" entries sorted as text, then DefaultPreemption's
  // verdict per node: a node short of resources only has no lower-priority pod to evict (kubesim
  // pods all have priority 0); any other failure cannot be helped by preemption.
  auto histogram = [](const std::map<std::string, int>& counts) {
    std::vector<std::string> entries;
    for (const auto& [reason, n] : counts) entries.push_back(std::to_string(n) + " " + reason);
    std::sort(entries.begin(), entries.end());
    std::string text;
    for (const std::string& e : entries) text += (text.empty() ? "" : ", ") + e;
    return text;
  };
  std::map<std::string, int> counts, preemption;
  for (const std::vector<std::string>& reasons : misfits) {
    bool resourcesOnly = true;
    for (const std::string& r : reasons) {
      ++counts[r];
      resourcesOnly = resourcesOnly && (r.rfind("Insufficient ", 0) == 0 || r == "Too many pods");
    }
    ++preemption[resourcesOnly ? "No preemption victims found for incoming pod"
                               : "Preemption is not helpful for scheduling"];
  }
  if (nodes == 0) return "no nodes available to schedule pods";
  const std::string available = "0/" + std::to_string(nodes) + " nodes are available: ";
  return available + histogram(counts) + ". preemption: " + available + histogram(preemption) + ".";
}

namespace {

// Every pod still waiting for a node.
std::vector<ObjectKey> pendingPods(const Store& store) {
  std::vector<ObjectKey> keys;
  for (const json& p : store.list("/pods", "").first) {
    if (p["spec"].value("nodeName", "").empty()) {
      keys.push_back(
          {"/pods", p["metadata"].value("namespace", ""), p["metadata"].value("name", "")});
    }
  }
  return keys;
}

}  // namespace

Scheduler::Scheduler(Api& api, EventRecorder& events)
    : Controller(api, "scheduler"), events_(events) {
  watch("/pods", [this](const WatchEvent& e) {
    // Resources freed by a finished or deleted pod may let any pending pod in.
    const std::string phase = e.object.value("status", json::object()).value("phase", "");
    if (e.type == EventType::kDeleted || phase == "Succeeded" || phase == "Failed") {
      return pendingPods(api_.store());
    }
    std::vector<ObjectKey> keys;
    // A change of status alone (the scheduler's own condition among them) cannot make a pod
    // fit, so it is no new attempt, as kube-scheduler's queue ignores it.
    const bool statusOnly = e.type == EventType::kModified && e.prevObject.is_object() &&
                            e.prevObject.value("spec", json()) == e.object.value("spec", json());
    if (!statusOnly && e.object.value("spec", json::object()).value("nodeName", "").empty()) {
      keys.push_back({"/pods", e.namespace_, e.object["metadata"].value("name", "")});
    }
    return keys;
  });
  watch("/nodes", [this](const WatchEvent&) { return pendingPods(api_.store()); });
}

std::optional<std::chrono::milliseconds> Scheduler::reconcile(const ObjectKey& key) {
  std::optional<json> pod = api_.store().get("/pods", key.ns, key.name);
  if (!pod || !(*pod)["spec"].value("nodeName", "").empty() ||
      (*pod)["metadata"].contains("deletionTimestamp")) {
    return std::nullopt;
  }
  if ((*pod)["spec"].value("schedulerName", "default-scheduler") != "default-scheduler") {
    return std::nullopt;
  }
  const json& gates = (*pod)["spec"].value("schedulingGates", json::array());
  const bool gated = gates.is_array() && !gates.empty();
  auto [nodes, nodesRv] = api_.store().list("/nodes", "");
  (void)nodesRv;
  std::vector<std::vector<std::string>> misfits;
  std::string chosen;
  // A gated pod is not tried at all (PreEnqueue): it waits, with its own condition, until the
  // last gate goes, which changes its spec and brings it back here.
  if (!gated) {
    auto [pods, podsRv] = api_.store().list("/pods", "");
    (void)podsRv;
    std::map<std::string, std::map<std::string, std::int64_t>> used;
    for (const json& p : pods) {
      const std::string node = p["spec"].value("nodeName", "");
      const std::string phase = p.value("status", json::object()).value("phase", "");
      if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
      for (const auto& [name, q] : podRequests(p)) used[node][name] += q;
    }
    for (const json& node : nodes) {
      const std::string name = node["metadata"].value("name", "");
      std::vector<std::string> reasons = nodeMisfits(*pod, node, used[name]);
      if (reasons.empty()) {
        chosen = name;
        break;
      }
      misfits.push_back(std::move(reasons));
    }
  }
  const std::string now = common::formatRfc3339(api_.clock().now());
  const std::string uid = (*pod)["metadata"].value("uid", "");
  const EventSource source{EventSource::Recorder::kEventsV1, std::string(events::kScheduler),
                           std::string(events::kScheduler) + "-kubesim"};
  if (!chosen.empty()) {
    // Recorded before the binding is written, as the kubelet acts on the binding at once and its
    // Events must not come first; this scheduler is the only one that binds.
    events_.record(source, objectReference(*pod), events::kNormal, events::kScheduled,
                   "Successfully assigned " + key.ns + "/" + key.name + " to " + chosen,
                   events::kActionBinding);
  }
  // The scheduler writes the binding and the condition straight to storage, as the binding
  // subresource does; a pod replaced in between (another uid) is left alone.
  auto setCondition = [&](json& p, json condition) {
    json& conditions = p["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    for (json& c : conditions) {
      if (c.value("type", "") == "PodScheduled") {
        if (c.value("status", "") == condition["status"] &&
            c.value("message", "") == condition.value("message", ""))
          return;
        c = std::move(condition);
        return;
      }
    }
    conditions.push_back(std::move(condition));
  };
  bool unschedulable = false;  // the attempt's verdict was written (the pod is still there)
  (void)api_.store().mutate(
      "/pods", key.ns, key.name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current || (*current)["metadata"].value("uid", "") != uid ||
            !(*current)["spec"].value("nodeName", "").empty()) {
          return current;
        }
        unschedulable = chosen.empty() && !gated;
        json next = *current;
        if (gated) {
          setCondition(next,
                       {{"type", "PodScheduled"},
                        {"status", "False"},
                        {"lastProbeTime", nullptr},
                        {"lastTransitionTime", now},
                        {"reason", "SchedulingGated"},
                        {"message", "Scheduling is blocked due to non-empty scheduling gates"}});
        } else if (!chosen.empty()) {
          next["spec"]["nodeName"] = chosen;
          setCondition(next, {{"type", "PodScheduled"},
                              {"status", "True"},
                              {"lastProbeTime", nullptr},
                              {"lastTransitionTime", now}});
        } else {
          setCondition(next, {{"type", "PodScheduled"},
                              {"status", "False"},
                              {"lastProbeTime", nullptr},
                              {"lastTransitionTime", now},
                              {"reason", "Unschedulable"},
                              {"message", unschedulableMessage(nodes.size(), misfits)}});
        }
        return std::optional<json>(std::move(next));
      });
  if (unschedulable) {
    events_.record(source, objectReference(*pod), events::kWarning, events::kFailedScheduling,
                   unschedulableMessage(nodes.size(), misfits), events::kActionScheduling);
  }
  if (chosen.empty() && !gated) return 5s;
  return std::nullopt;
}

}  // namespace hetbench::kubesim
