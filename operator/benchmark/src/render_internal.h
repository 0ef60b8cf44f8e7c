#pragma once

// What render.cc and template.cc share: the workload kinds, what every object of a unit carries,
// and the rendering of a raw template. Internal to the benchmark module.

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/benchmark/render.h"

namespace hetbench::benchmark::internal {

struct KindInfo {
  WorkloadKind kind;
  std::string_view name;
  std::string_view apiVersion;
};
constexpr std::array<KindInfo, 3> kKinds = {{
    {WorkloadKind::kPod, "Pod", "v1"},
    {WorkloadKind::kJob, "Job", "batch/v1"},
    {WorkloadKind::kIpuJob, "IPUJob", "graphcore.ai/v1alpha1"},
}};

inline const KindInfo* kindNamed(std::string_view name) {
  for (const KindInfo& k : kKinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

inline const KindInfo& infoOf(WorkloadKind kind) {
  for (const KindInfo& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[0];
}

inline common::Status invalidFields(const std::string& path,
                                    std::vector<common::StatusCause> causes) {
  return common::invalidError(path + " is invalid", std::move(causes));
}

inline std::string indexed(const std::string& field, std::size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

inline bool isString(const nlohmann::json& v) { return v.is_string(); }
inline bool isIntOrString(const nlohmann::json& v) {
  return v.is_number_integer() || v.is_string();
}

// What every object of one unit carries.
struct UnitMeta {
  std::string name;
  std::string ns;
  nlohmann::json labels;
  nlohmann::json ownerReferences;
};

UnitMeta unitMeta(const RunRef& run, const RunSpec& spec, const Unit& unit);
/// metadata of a unit's object: its name, namespace, labels and owner.
nlohmann::json objectMeta(const UnitMeta& m);

/// A raw template (spec.template, substituted) as the unit's object: its kind and apiVersion
/// checked, its metadata the unit's (only the user's labels and annotations kept), the unit's
/// labels on its pod templates, and the pods it runs.
common::Result<RenderedUnit> renderTemplate(const RunRef& run, const RunSpec& spec,
                                            const Unit& unit, nlohmann::json templ,
                                            const std::string& path);

}  // namespace hetbench::benchmark::internal
