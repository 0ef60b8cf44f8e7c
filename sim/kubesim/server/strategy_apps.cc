#include "server/strategy_kinds.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

json& specOf(json& object) {
  json& spec = object["spec"];
  if (!spec.is_object()) spec = json::object();
  return spec;
}

void defaultTemplate(json& spec) {
  json& podTemplate = spec["template"];
  if (!podTemplate.is_object()) podTemplate = json::object();
  defaultPodSpec(podTemplate["spec"]);
}

// SetDefaults_Deployment (apps/v1).
void defaultDeployment(json& deployment) {
  json& spec = specOf(deployment);
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  json& strategy = spec["strategy"];
  if (!strategy.is_object()) strategy = json::object();
  if (strategy.value("type", "").empty()) strategy["type"] = "RollingUpdate";
  if (strategy["type"] == "RollingUpdate") {
    json& rollingUpdate = strategy["rollingUpdate"];
    if (!rollingUpdate.is_object()) rollingUpdate = json::object();
    for (const char* field : {"maxUnavailable", "maxSurge"}) {
      if (!rollingUpdate.contains(field) || rollingUpdate[field].is_null()) {
        rollingUpdate[field] = "25%";
      }
    }
  }
  if (!spec.contains("revisionHistoryLimit") || spec["revisionHistoryLimit"].is_null()) {
    spec["revisionHistoryLimit"] = 10;
  }
  if (!spec.contains("progressDeadlineSeconds") || spec["progressDeadlineSeconds"].is_null()) {
    spec["progressDeadlineSeconds"] = 600;
  }
  defaultTemplate(spec);
}

// SetDefaults_ReplicaSet (apps/v1).
void defaultReplicaSet(json& replicaSet) {
  json& spec = specOf(replicaSet);
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  defaultTemplate(spec);
}

}  // namespace

const Strategy& deploymentStrategy() {
  static const Strategy s = [] {
    Strategy d;
    d.applyDefaults = defaultDeployment;
    d.generation = true;
    return d;
  }();
  return s;
}

const Strategy& replicaSetStrategy() {
  static const Strategy s = [] {
    Strategy r;
    r.applyDefaults = defaultReplicaSet;
    r.generation = true;
    return r;
  }();
  return s;
}

}  // namespace hetbench::kubesim
