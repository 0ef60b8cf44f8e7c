#include <algorithm>
#include <set>

#include "server/api_error.h"
#include "server/quantity.h"
#include "server/strategy_kinds.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const std::vector<std::string> kPodFieldLabels = {
    "spec.nodeName",    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
    "spec.hostNetwork", "status.phase",       "status.podIP",       "status.nominatedNodeName"};

bool isStandardResource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         name.rfind("hugepages-", 0) == 0;
}

void defaultContainer(json& c) {
  if (!c.contains("imagePullPolicy")) {
    const std::string image = c.value("image", "");
    const std::size_t slash = image.rfind('/');
    const std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
    const bool latest =
        last.find(':') == std::string::npos || last.substr(last.find(':')) == ":latest";
    c["imagePullPolicy"] =
        latest && image.find('@') == std::string::npos ? "Always" : "IfNotPresent";
  }
  if (!c.contains("terminationMessagePath")) {
    c["terminationMessagePath"] = "/dev/termination-log";
  }
  if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
  if (!c["resources"].is_object()) c["resources"] = json::object();
  if (c.contains("ports") && c["ports"].is_array()) {
    for (json& p : c["ports"]) {
      if (!p.contains("protocol")) p["protocol"] = "TCP";
    }
  }
}

std::vector<common::StatusCause> validateContainers(const json& list, const std::string& path,
                                                    bool required, std::set<std::string>& names) {
  std::vector<common::StatusCause> causes;
  if (!list.is_array() || list.empty()) {
    if (required) causes.push_back(common::requiredCause(path));
    return causes;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& c = list[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    const std::string name = c.value("name", "");
    if (name.empty()) {
      causes.push_back(common::requiredCause(at + ".name"));
    } else {
      std::vector<common::StatusCause> n = validateName(at + ".name", name, "label");
      causes.insert(causes.end(), n.begin(), n.end());
      if (!names.insert(name).second) causes.push_back(common::duplicateCause(at + ".name", name));
    }
    if (c.value("image", "").empty()) causes.push_back(common::requiredCause(at + ".image"));
    const json& resources = c.value("resources", json::object());
    const json& limits = resources.value("limits", json::object());
    const json& requests = resources.value("requests", json::object());
    for (const auto& [resource, value] : requests.items()) {
      const std::optional<std::int64_t> req = quantityMilli(value);
      const std::string field = at + ".resources.requests[" + resource + "]";
      if (!req || *req < 0) {
        causes.push_back(common::invalidCause(field, value, "must be a valid quantity"));
        continue;
      }
      if (limits.contains(resource)) {
        const std::optional<std::int64_t> lim = quantityMilli(limits[resource]);
        if (!isStandardResource(resource) && lim && *lim != *req) {
          causes.push_back(common::invalidCause(
              field, value,
              "must be equal to " + resource + " limit of " + limits[resource].dump()));
        } else if (lim && *req > *lim) {
          causes.push_back(common::invalidCause(field, value,
                                                "must be less than or equal to " + resource +
                                                    " limit of " + limits[resource].dump()));
        }
      } else if (!isStandardResource(resource)) {
        causes.push_back(
            common::requiredCause(at + ".resources.limits[" + resource + "]",
                                  "Limit must be set for non overcommitable resources"));
      }
    }
  }
  return causes;
}

// What a Pod gets beyond a template's defaults: SetDefaults_Pod (service links, requests from
// limits, "only on a v1.Pod and not a v1.PodTemplate") and the ServiceAccount admission plugin.
void preparePod(json& pod, const AdmissionContext&) {
  json& spec = pod["spec"];
  defaultPodSpec(spec);
  if (!spec.contains("serviceAccountName")) spec["serviceAccountName"] = "default";
  if (!spec.contains("enableServiceLinks")) spec["enableServiceLinks"] = true;
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      json& resources = c["resources"];
      if (!resources.contains("limits") || !resources["limits"].is_object()) continue;
      for (const auto& [name, value] : resources["limits"].items()) {
        if (!resources["requests"].contains(name)) resources["requests"][name] = value;
      }
    }
  }
  pod["status"] = {{"phase", "Pending"}, {"qosClass", "BestEffort"}};
  bool anyRequest = false;
  bool guaranteed = true;
  for (const json& c : pod["spec"]["containers"]) {
    const json& r = c.value("resources", json::object());
    const json requests = r.value("requests", json::object());
    const json limits = r.value("limits", json::object());
    if (!requests.empty() || !limits.empty()) anyRequest = true;
    for (const char* res : {"cpu", "memory"}) {
      if (!limits.contains(res) || !requests.contains(res) || limits[res] != requests[res]) {
        guaranteed = false;
      }
    }
  }
  if (anyRequest) pod["status"]["qosClass"] = guaranteed ? "Guaranteed" : "Burstable";
}

std::vector<common::StatusCause> validatePod(const json& pod) {
  return validatePodSpec(pod.value("spec", json::object()), "spec");
}

// Scheduling gates may only be removed; while a pod is gated, its node selector may gain
// entries (what Kueue does when it admits a pod). Clears both from `a` and `b` when the update
// keeps to that, for the comparison that follows.
std::vector<common::StatusCause> checkGatedFields(json& a, json& b) {
  const json gates = a.value("schedulingGates", json::array());
  const json wasGates = b.value("schedulingGates", json::array());
  for (const json& gate : gates) {
    if (std::find(wasGates.begin(), wasGates.end(), gate) == wasGates.end()) {
      return {common::forbiddenCause("spec.schedulingGates",
                                     "only deletion is allowed, but found new scheduling gate '" +
                                         gate.value("name", "") + "'")};
    }
  }
  a.erase("schedulingGates");
  b.erase("schedulingGates");
  if (!wasGates.is_array() || wasGates.empty()) return {};
  const json selector = a.value("nodeSelector", json::object());
  const json wasSelector = b.value("nodeSelector", json::object());
  for (const auto& [key, value] : wasSelector.items()) {
    if (!selector.contains(key) || selector[key] != value) {
      return {common::invalidCause("spec.nodeSelector", selector,
                                   "only additions to spec.nodeSelector are allowed (no "
                                   "mutations or deletions)")};
    }
  }
  a.erase("nodeSelector");
  b.erase("nodeSelector");
  return {};
}

// Pods may change little after creation; the API server's message lists what may.
std::vector<common::StatusCause> validatePodUpdate(const json& pod, const json& old) {
  json a = pod.value("spec", json::object());
  json b = old.value("spec", json::object());
  if (std::vector<common::StatusCause> gated = checkGatedFields(a, b); !gated.empty()) {
    return gated;
  }
  for (json* spec : {&a, &b}) {
    for (const char* list : {"containers", "initContainers"}) {
      if (spec->contains(list) && (*spec)[list].is_array()) {
        for (json& c : (*spec)[list]) c.erase("image");
      }
    }
    spec->erase("activeDeadlineSeconds");
    spec->erase("tolerations");
    spec->erase("terminationGracePeriodSeconds");
  }
  if (a == b) return {};
  return {common::forbiddenCause(
      "spec",
      "pod updates may not change fields other than `spec.containers[*].image`,"
      "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
      "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
      "set to 1 if it was previously negative)")};
}

}  // namespace

void defaultPodSpec(json& spec) {
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
  if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("securityContext")) spec["securityContext"] = json::object();
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (json& c : spec[list]) defaultContainer(c);
    }
  }
}

std::vector<common::StatusCause> validatePodSpec(const json& spec, const std::string& path) {
  std::set<std::string> names;
  std::vector<common::StatusCause> causes =
      validateContainers(spec.value("containers", json()), path + ".containers", true, names);
  std::vector<common::StatusCause> init = validateContainers(
      spec.value("initContainers", json()), path + ".initContainers", false, names);
  causes.insert(causes.end(), init.begin(), init.end());
  const std::string restart = spec.value("restartPolicy", "Always");
  if (restart != "Always" && restart != "OnFailure" && restart != "Never") {
    causes.push_back(common::notSupportedCause(path + ".restartPolicy", restart,
                                               {"Always", "OnFailure", "Never"}));
  }
  if (spec.contains("activeDeadlineSeconds") &&
      (!spec["activeDeadlineSeconds"].is_number_integer() ||
       spec["activeDeadlineSeconds"].get<std::int64_t>() <= 0)) {
    causes.push_back(common::invalidCause(path + ".activeDeadlineSeconds",
                                          spec["activeDeadlineSeconds"],
                                          "must be between 1 and 2147483647, inclusive"));
  }
  return causes;
}

const Strategy& podStrategy() {
  static const Strategy s = [] {
    Strategy p;
    p.prepareForCreate = preparePod;
    p.validate = validatePod;
    p.validateUpdate = validatePodUpdate;
    p.fieldLabels = kPodFieldLabels;
    p.returnDeletedObject = true;
    return p;
  }();
  return s;
}

}  // namespace hetbench::kubesim
