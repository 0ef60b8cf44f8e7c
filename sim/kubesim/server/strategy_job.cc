#include "server/api_error.h"
#include "server/strategy_kinds.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

void prepareJob(json& job, const AdmissionContext&) {
  json& spec = job["spec"];
  if (!spec.is_object()) spec = json::object();
  const std::string uid = job["metadata"].value("uid", "");
  const std::string name = job["metadata"].value("name", "");
  json& labels = spec["template"]["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  if (!spec.value("manualSelector", false)) {
    spec["selector"] = {{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}};
    labels["batch.kubernetes.io/controller-uid"] = uid;
    labels["controller-uid"] = uid;
  }
  labels["batch.kubernetes.io/job-name"] = name;
  labels["job-name"] = name;
  if (!spec.contains("parallelism")) spec["parallelism"] = 1;
  if (!spec.contains("completions") && !spec.contains("parallelism")) spec["completions"] = 1;
  if (!spec.contains("completions") && spec.value("completionMode", "") != "Indexed") {
    spec["completions"] = 1;
  }
  if (!spec.contains("backoffLimit")) spec["backoffLimit"] = 6;
  if (!spec.contains("completionMode")) spec["completionMode"] = "NonIndexed";
  if (!spec.contains("suspend")) spec["suspend"] = false;
  if (!spec.contains("podReplacementPolicy")) spec["podReplacementPolicy"] = "TerminatingOrFailed";
  defaultPodSpec(spec["template"]["spec"]);
  job["status"] = json::object();
}

void requireNonNegative(const json& spec, const char* field,
                        std::vector<common::StatusCause>& out) {
  if (!spec.contains(field) || spec[field].is_null()) return;
  if (!spec[field].is_number_integer() || spec[field].get<std::int64_t>() < 0) {
    out.push_back(common::invalidCause(std::string("spec.") + field, spec[field],
                                       "must be greater than or equal to 0"));
  }
}

std::vector<common::StatusCause> validateJob(const json& job) {
  std::vector<common::StatusCause> causes;
  const json& spec = job.value("spec", json::object());
  for (const char* f : {"parallelism", "completions", "backoffLimit", "ttlSecondsAfterFinished"}) {
    requireNonNegative(spec, f, causes);
  }
  if (spec.contains("activeDeadlineSeconds") &&
      (!spec["activeDeadlineSeconds"].is_number_integer() ||
       spec["activeDeadlineSeconds"].get<std::int64_t>() <= 0)) {
    causes.push_back(common::invalidCause("spec.activeDeadlineSeconds",
                                          spec["activeDeadlineSeconds"],
                                          "must be greater than or equal to 1"));
  }
  const std::string mode = spec.value("completionMode", "NonIndexed");
  if (mode != "NonIndexed" && mode != "Indexed") {
    causes.push_back(
        common::notSupportedCause("spec.completionMode", mode, {"NonIndexed", "Indexed"}));
  }
  if (mode == "Indexed" && (!spec.contains("completions") || spec["completions"].is_null())) {
    causes.push_back(common::requiredCause("spec.completions", "when completion mode is Indexed"));
  }
  const json& podSpec = spec.value("template", json::object()).value("spec", json::object());
  std::vector<common::StatusCause> pod = validatePodSpec(podSpec, "spec.template.spec");
  causes.insert(causes.end(), pod.begin(), pod.end());
  const std::string restart = podSpec.value("restartPolicy", "");
  if (restart != "OnFailure" && restart != "Never") {
    causes.push_back(common::notSupportedCause("spec.template.spec.restartPolicy", restart,
                                               {"OnFailure", "Never"}));
  }
  if (spec.contains("podFailurePolicy")) {
    if (restart != "Never") {
      causes.push_back(
          common::invalidCause("spec.template.spec.restartPolicy", restart,
                               "only \"Never\" is supported when podFailurePolicy is specified"));
    }
    const json& rules = spec["podFailurePolicy"].value("rules", json::array());
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string at = "spec.podFailurePolicy.rules[" + std::to_string(i) + "]";
      const std::string action = rules[i].value("action", "");
      if (action != "FailJob" && action != "Ignore" && action != "Count" && action != "FailIndex") {
        causes.push_back(common::notSupportedCause(at + ".action", action,
                                                   {"Count", "FailIndex", "FailJob", "Ignore"}));
      }
      const bool codes = rules[i].contains("onExitCodes");
      const bool conditions = rules[i].contains("onPodConditions");
      if (codes == conditions) {
        causes.push_back(common::invalidCause(
            at, nullptr, "specifying one of onExitCodes and onPodConditions is required"));
      }
      if (codes) {
        const std::string op = rules[i]["onExitCodes"].value("operator", "");
        if (op != "In" && op != "NotIn") {
          causes.push_back(
              common::notSupportedCause(at + ".onExitCodes.operator", op, {"In", "NotIn"}));
        }
      }
    }
  }
  return causes;
}

std::vector<common::StatusCause> validateJobUpdate(const json& job, const json& old) {
  std::vector<common::StatusCause> causes;
  const json& spec = job.value("spec", json::object());
  const json& was = old.value("spec", json::object());
  for (const char* field : {"selector", "completionMode", "podFailurePolicy"}) {
    if (spec.value(field, json()) != was.value(field, json())) {
      causes.push_back(common::invalidCause(std::string("spec.") + field, spec.value(field, json()),
                                            "field is immutable"));
    }
  }
  json template_ = spec.value("template", json());
  json wasTemplate = was.value("template", json());
  // The scheduling directives of a suspended Job that never started may change (what Kueue
  // does when it admits a Job and when it gives it back to its queue).
  const bool neverStarted = !old.value("status", json::object()).contains("startTime");
  if (was.value("suspend", false) && neverStarted && template_.is_object() &&
      wasTemplate.is_object()) {
    for (json* t : {&template_, &wasTemplate}) {
      json& meta = (*t)["metadata"];
      if (meta.is_object()) {
        meta.erase("labels");
        meta.erase("annotations");
      }
      json& podSpec = (*t)["spec"];
      if (podSpec.is_object()) {
        for (const char* field : {"nodeSelector", "tolerations", "schedulingGates"})
          podSpec.erase(field);
        if (podSpec.contains("affinity") && podSpec["affinity"].is_object()) {
          podSpec["affinity"].erase("nodeAffinity");
          if (podSpec["affinity"].empty()) podSpec.erase("affinity");
        }
      }
    }
  }
  if (template_ != wasTemplate) {
    causes.push_back(common::invalidCause("spec.template", spec.value("template", json()),
                                          "field is immutable"));
  }
  if (spec.value("completions", json()) != was.value("completions", json())) {
    causes.push_back(common::invalidCause("spec.completions", spec.value("completions", json()),
                                          "field is immutable"));
  }
  return causes;
}

}  // namespace

const Strategy& jobStrategy() {
  static const Strategy s = [] {
    Strategy j;
    j.prepareForCreate = prepareJob;
    j.validate = validateJob;
    j.validateUpdate = validateJobUpdate;
    j.generation = true;
    // batch/v1 Jobs orphan their pods unless the client asks otherwise.
    j.defaultPropagation = "Orphan";
    j.fieldLabels = {"status.successful"};
    return j;
  }();
  return s;
}

}  // namespace hetbench::kubesim
