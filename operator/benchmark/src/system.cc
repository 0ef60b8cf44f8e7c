#include "hetbench/benchmark/system.h"

#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/spec_reader.h"
#include "render_internal.h"

namespace hetbench::benchmark {
namespace {

using common::SpecReader;
using common::StatusCause;
using nlohmann::json;

using internal::kAmdGpu;
using internal::kIpu;
using internal::kNoAccelerator;
using internal::kNvidiaGpu;
constexpr std::size_t kMaxDescription = 1024;

void parseKubernetes(SpecReader& r, const json& k, KubernetesPlacement& out) {
  if (!r.object("spec.kubernetes", k)) return;
  if (const json& v = common::member(k, "nodeSelector"); !v.is_null()) {
    if (r.mapOf(
            "spec.kubernetes.nodeSelector", v, [](const json& e) { return e.is_string(); },
            "string")) {
      out.nodeSelector = v;
    }
  }
  if (const json& v = common::member(k, "tolerations"); !v.is_null()) {
    if (r.objects("spec.kubernetes.tolerations", v)) out.tolerations = v;
  }
  const json& a = common::member(k, "accelerator");
  if (a.is_null() || !r.object("spec.kubernetes.accelerator", a)) return;
  if (const json& v = common::member(a, "resource"); !v.is_null()) {
    if (auto s = r.oneOf("spec.kubernetes.accelerator.resource", v,
                         {kNvidiaGpu, kAmdGpu, kIpu, kNoAccelerator})) {
      out.acceleratorResource = *s;
    }
  }
  if (const json& v = common::member(a, "product"); !v.is_null()) {
    if (auto s = r.name("spec.kubernetes.accelerator.product", v)) out.acceleratorProduct = *s;
  }
  if (!out.acceleratorProduct.empty() && out.acceleratorResource != kNvidiaGpu &&
      out.acceleratorResource != kAmdGpu) {
    r.add(
        common::forbiddenCause("spec.kubernetes.accelerator.product",
                               "only nvidia.com/gpu and amd.com/gpu nodes carry a product label"));
  }
}

void parseSlurm(SpecReader& r, const json& s, SlurmSystem& out) {
  if (!r.object("spec.slurm", s)) return;
  if (const json& c = common::member(s, "cluster"); c.is_null()) {
    r.add(common::requiredCause("spec.slurm.cluster"));
  } else {
    out.cluster = r.name("spec.slurm.cluster", c).value_or("");
  }
  for (auto [key, target] : {std::pair{"partition", &out.partition},
                             std::pair{"account", &out.account}, std::pair{"qos", &out.qos}}) {
    if (const json& v = common::member(s, key); !v.is_null()) {
      *target = r.string(std::string("spec.slurm.") + key, v).value_or("");
    }
  }
  if (const json& v = common::member(s, "runtime"); !v.is_null()) {
    out.runtime = r.oneOf("spec.slurm.runtime", v, {"apptainer", "singularity"}).value_or("");
  }
  const json& a = common::member(s, "accelerator");
  if (a.is_null() || !r.object("spec.slurm.accelerator", a)) return;
  if (const json& v = common::member(a, "resource"); !v.is_null()) {
    if (auto res =
            r.oneOf("spec.slurm.accelerator.resource", v, {kNvidiaGpu, kAmdGpu, kNoAccelerator})) {
      out.acceleratorResource = *res;
    }
  }
  if (const json& v = common::member(a, "product"); !v.is_null()) {
    if (auto p = r.name("spec.slurm.accelerator.product", v)) out.acceleratorProduct = *p;
  }
  if (!out.acceleratorProduct.empty() && out.acceleratorResource != kNvidiaGpu &&
      out.acceleratorResource != kAmdGpu) {
    r.add(common::forbiddenCause("spec.slurm.accelerator.product",
                                 "a product names the GPUs of nvidia.com/gpu or amd.com/gpu"));
  }
}

// The system's labels and tolerations on a pod spec (`field` names it in the run's spec).
void placePods(json& podSpec, const std::string& field, const std::string& name,
               const KubernetesPlacement& k, std::vector<StatusCause>& causes) {
  if (!podSpec.is_object()) return;
  const std::string owner = "BenchmarkSystem " + name;
  if (!k.nodeSelector.empty()) {
    json& selector = podSpec["nodeSelector"];
    if (selector.is_null()) selector = json::object();
    if (!selector.is_object()) return;  // validation names the wrong type
    for (const auto& [label, value] : k.nodeSelector.items()) {
      const json& mine = common::member(selector, label);
      if (!mine.is_null() && mine != value) {
        causes.push_back(
            common::invalidCause(field + ".nodeSelector[" + label + "]", mine,
                                 "must be " + value.dump() + " on " + owner + ", or unset"));
        continue;
      }
      selector[label] = value;
    }
  }
  if (!k.tolerations.empty()) {
    json& tolerations = podSpec["tolerations"];
    if (tolerations.is_null()) tolerations = json::array();
    if (!tolerations.is_array()) return;
    for (const json& toleration : k.tolerations) {
      bool present = false;
      for (const json& mine : tolerations) present = present || mine == toleration;
      if (!present) tolerations.push_back(toleration);
    }
  }
}

// An accelerator field of a structured workload: the system's when the run sets none.
void placeAccelerator(json& accelerator, const char* key, const std::string& systemValue,
                      const std::string& name, std::vector<StatusCause>& causes) {
  if (systemValue.empty()) return;
  const json& mine = common::member(accelerator, key);
  // The CRD defaults a workload's accelerator resource to none: that is no choice of the run's.
  if (mine.is_null() || (std::string_view(key) == "resource" && mine == json(kNoAccelerator))) {
    accelerator[key] = systemValue;
  } else if (mine != json(systemValue)) {
    causes.push_back(common::invalidCause(
        std::string("spec.workload.accelerator.") + key, mine,
        "must be \"" + systemValue + "\" on BenchmarkSystem " + name + ", or unset"));
  }
}

// A member of an object, or nullptr (also when `object` is nullptr or not an object).
json* child(json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

}  // namespace

common::Result<SystemSpec> parseSystemSpec(const json& spec) {
  SpecReader r;
  SystemSpec out;
  if (!r.object("spec", spec)) return common::invalidStatus(std::move(r.causes()));
  if (const json& v = common::member(spec, "description"); !v.is_null()) {
    if (auto s = r.string("spec.description", v)) {
      if (s->size() > kMaxDescription) {
        r.add(common::tooLongCause("spec.description", kMaxDescription));
      }
      out.description = *s;
    }
  }
  const json& k = common::member(spec, "kubernetes");
  const json& slurm = common::member(spec, "slurm");
  if (k.is_null() == slurm.is_null()) {
    r.add(common::requiredCause("spec.kubernetes", "exactly one of kubernetes and slurm"));
  } else if (!k.is_null()) {
    out.kubernetes.emplace();
    parseKubernetes(r, k, *out.kubernetes);
  } else {
    out.slurm.emplace();
    parseSlurm(r, slurm, *out.slurm);
  }
  if (!r.causes().empty()) return common::invalidStatus(std::move(r.causes()));
  return out;
}

json toJson(const AcceptedSystem& system) {
  return json{{"name", system.name},
              {"uid", system.uid},
              {"generation", system.generation},
              {"spec", system.spec}};
}

std::optional<AcceptedSystem> acceptedSystemFromText(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !common::member(j, "name").is_string()) return std::nullopt;
  AcceptedSystem out;
  out.name = common::stringMember(j, "name");
  out.uid = common::stringMember(j, "uid");
  out.generation = common::intMember(j, "generation");
  out.spec = common::member(j, "spec");
  return out;
}

common::Result<json> placeOnSystem(json spec, const std::string& name, const SystemSpec& system) {
  std::vector<StatusCause> causes;
  json* workload = child(&spec, "workload");
  if (workload != nullptr && !workload->is_object()) workload = nullptr;
  auto placeAccelerators = [&](const std::string& resource, const std::string& product) {
    if (workload == nullptr || (resource.empty() && product.empty())) return;
    json& accelerator = (*workload)["accelerator"];
    if (accelerator.is_null()) accelerator = json::object();
    if (!accelerator.is_object()) return;
    placeAccelerator(accelerator, "resource", resource, name, causes);
    placeAccelerator(accelerator, "product", product, name, causes);
  };
  if (system.slurm) {
    const SlurmSystem& s = *system.slurm;
    if (child(&spec, "template") != nullptr) {
      causes.push_back(common::forbiddenCause(
          "spec.template", "BenchmarkSystem " + name + " is a Slurm partition: give a workload"));
    } else if (workload != nullptr) {
      json& slurm = (*workload)["slurm"];
      if (slurm.is_null()) slurm = json::object();
      if (slurm.is_object()) {
        const json& cluster = common::member(slurm, "cluster");
        if (!cluster.is_null() && cluster != json(s.cluster)) {
          causes.push_back(common::invalidCause(
              "spec.workload.slurm.cluster", cluster,
              "must be \"" + s.cluster + "\" on BenchmarkSystem " + name + ", or unset"));
        }
        slurm["cluster"] = s.cluster;
        for (auto [key, value] :
             {std::pair{"partition", &s.partition}, std::pair{"account", &s.account},
              std::pair{"qos", &s.qos}, std::pair{"runtime", &s.runtime}}) {
          if (!value->empty() && common::member(slurm, key).is_null()) slurm[key] = *value;
        }
      }
      placeAccelerators(s.acceleratorResource, s.acceleratorProduct);
    }
  } else if (system.kubernetes) {
    const KubernetesPlacement& k = *system.kubernetes;
    if (workload != nullptr) {
      placePods(*workload, "spec.workload", name, k, causes);
      placeAccelerators(k.acceleratorResource, k.acceleratorProduct);
    } else if (json* manifest = child(&spec, "template")) {
      const std::string kind = common::stringMember(*manifest, "kind");
      json* top = child(manifest, "spec");
      if (kind == "Pod" && top != nullptr) {
        placePods(*top, "spec.template.spec", name, k, causes);
      } else if (json* pods = child(child(top, "template"), "spec"); kind == "Job" && pods) {
        placePods(*pods, "spec.template.spec.template.spec", name, k, causes);
      } else if (json* workers = child(child(child(top, "workers"), "template"), "spec");
                 kind == "IPUJob" && workers) {
        placePods(*workers, "spec.template.spec.workers.template.spec", name, k, causes);
      }
    }
  }
  if (!causes.empty()) return common::invalidStatus(std::move(causes));
  return spec;
}

}  // namespace hetbench::benchmark
