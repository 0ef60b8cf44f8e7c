// Raw templates (spec.template): the unit's object from the user's own Pod, Job or IPUJob.

#include <optional>
#include <string>

#include "hetbench/common/spec_reader.h"
#include "json_fields.h"
#include "render_internal.h"

namespace hetbench::benchmark::internal {
namespace {

using common::notSupportedCause;
using common::requiredCause;
using common::SpecReader;
using nlohmann::json;

// Merges the unit's labels into `object`'s metadata.labels (created if absent).
void addLabels(SpecReader& r, json& object, const std::string& field, const json& labels) {
  json& metadata = object["metadata"];
  if (metadata.is_null()) metadata = json::object();
  if (!r.object(field + ".metadata", metadata)) return;
  json& existing = metadata["labels"];
  if (existing.is_null()) existing = json::object();
  if (!r.mapOf(field + ".metadata.labels", existing, isString, "string")) return;
  existing.update(labels);
}

// A positive integer field of a template's spec; `fallback` when absent.
std::optional<std::int64_t> templateCount(SpecReader& r, const json& spec, const char* key,
                                          const std::string& field,
                                          std::optional<std::int64_t> fallback) {
  const json& v = member(spec, key);
  if (v.is_null()) {
    if (!fallback) r.add(requiredCause(field));
    return fallback;
  }
  if (!v.is_number_integer()) {
    r.add(common::schemaTypeCause(field, v, "integer"));
    return std::nullopt;
  }
  return r.intOrString(field, v, 1);
}

// The template's kind, checked with its apiVersion; nullptr (with causes) when either is wrong.
const KindInfo* templateKind(SpecReader& r, const json& templ, const std::string& path) {
  const json& kindValue = member(templ, "kind");
  const json& apiVersion = member(templ, "apiVersion");
  const KindInfo* kind = nullptr;
  if (kindValue.is_null()) {
    r.add(requiredCause(path + ".kind"));
  } else if (std::optional<std::string> name = r.string(path + ".kind", kindValue)) {
    kind = kindNamed(*name);
    if (kind == nullptr) {
      r.add(notSupportedCause(path + ".kind", kindValue, {"Pod", "Job", "IPUJob"}));
    }
  }
  if (kind != nullptr && apiVersion.is_null()) {
    r.add(requiredCause(path + ".apiVersion"));
  } else if (kind != nullptr && (!apiVersion.is_string() ||
                                 apiVersion.get_ref<const std::string&>() != kind->apiVersion)) {
    r.add(notSupportedCause(path + ".apiVersion", apiVersion, {std::string(kind->apiVersion)}));
  }
  return kind;
}

// The unit's metadata: only the user's labels and annotations survive; name, namespace and
// owner are the unit's.
json templateMetadata(SpecReader& r, const json& templ, const std::string& path,
                      const UnitMeta& m) {
  json metadata = objectMeta(m);
  const json& given = member(templ, "metadata");
  if (given.is_null() || !r.object(path + ".metadata", given)) return metadata;
  if (const json& labels = member(given, "labels");
      !labels.is_null() && r.mapOf(path + ".metadata.labels", labels, isString, "string")) {
    json merged = labels;
    merged.update(m.labels);
    metadata["labels"] = std::move(merged);
  }
  if (const json& annotations = member(given, "annotations");
      !annotations.is_null() &&
      r.mapOf(path + ".metadata.annotations", annotations, isString, "string")) {
    metadata["annotations"] = annotations;
  }
  return metadata;
}

std::int64_t podSpecOf(SpecReader& r, json& objectSpec, const std::string& specPath) {
  json& policy = objectSpec["restartPolicy"];
  if (policy.is_null()) {
    policy = "Never";
  } else if (policy != "Never" && policy != "OnFailure") {
    r.add(notSupportedCause(specPath + ".restartPolicy", policy, {"Never", "OnFailure"}));
  }
  return 1;
}

std::int64_t jobSpecOf(SpecReader& r, json& objectSpec, const std::string& specPath,
                       const json& labels) {
  json& podTemplate = objectSpec["template"];
  if (podTemplate.is_null()) {
    r.add(requiredCause(specPath + ".template"));
  } else if (r.object(specPath + ".template", podTemplate)) {
    addLabels(r, podTemplate, specPath + ".template", labels);
  }
  // Kubernetes runs min(parallelism, completions) pods at once.
  const std::optional<std::int64_t> parallelism =
      templateCount(r, objectSpec, "parallelism", specPath + ".parallelism", 1);
  const json& completions = member(objectSpec, "completions");
  std::int64_t pods = parallelism.value_or(1);
  if (completions.is_number_integer() && completions.get<std::int64_t>() < pods)
    pods = completions.get<std::int64_t>();
  return pods;
}

std::int64_t ipuJobSpecOf(SpecReader& r, json& objectSpec, const std::string& specPath,
                          const json& labels) {
  json& workers = objectSpec["workers"];
  const std::string workersPath = specPath + ".workers";
  if (workers.is_null()) {
    r.add(requiredCause(workersPath));
  } else if (r.object(workersPath, workers)) {
    json& podTemplate = workers["template"];
    if (podTemplate.is_null()) {
      r.add(requiredCause(workersPath + ".template"));
    } else if (r.object(workersPath + ".template", podTemplate)) {
      addLabels(r, podTemplate, workersPath + ".template", labels);
    }
  }
  return templateCount(r, objectSpec, "jobInstances", specPath + ".jobInstances", std::nullopt)
      .value_or(1);
}

}  // namespace

common::Result<RenderedUnit> renderTemplate(const RunRef& run, const RunSpec& spec,
                                            const Unit& unit, json templ, const std::string& path) {
  SpecReader r;
  if (!r.object(path, templ)) return invalidFields(path, std::move(r.causes()));
  const KindInfo* kind = templateKind(r, templ, path);
  if (!r.causes().empty()) return invalidFields(path, std::move(r.causes()));

  const UnitMeta m = unitMeta(run, spec, unit);
  templ["metadata"] = templateMetadata(r, templ, path, m);
  templ.erase("status");

  RenderedUnit out;
  out.name = m.name;
  out.kind = kind->kind;
  const std::string specPath = path + ".spec";
  json& objectSpec = templ["spec"];
  if (objectSpec.is_null()) {
    r.add(requiredCause(specPath));
  } else if (r.object(specPath, objectSpec)) {
    switch (kind->kind) {
      case WorkloadKind::kPod:
        out.expectedPods = podSpecOf(r, objectSpec, specPath);
        break;
      case WorkloadKind::kJob:
        out.expectedPods = jobSpecOf(r, objectSpec, specPath, m.labels);
        break;
      case WorkloadKind::kIpuJob:
        out.expectedPods = ipuJobSpecOf(r, objectSpec, specPath, m.labels);
        break;
    }
  }
  if (!r.causes().empty()) return invalidFields(path, std::move(r.causes()));
  out.workload = std::move(templ);
  return out;
}

}  // namespace hetbench::benchmark::internal
