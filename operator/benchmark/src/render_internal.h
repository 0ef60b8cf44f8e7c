#pragma once

// What render.cc and template.cc share: the workload kinds, the accelerator resources, what every
// object of a unit carries, and the rendering of a raw template. Internal to the benchmark module
// (system.cc reads the accelerator resources too).

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetbench/benchmark/render.h"
#include "hetbench/common/spec_reader.h"

namespace hetbench::benchmark::internal {

/// The accelerator resources a structured workload may ask for ("none" for none).
inline constexpr std::string_view kNvidiaGpu = "nvidia.com/gpu";
inline constexpr std::string_view kAmdGpu = "amd.com/gpu";
inline constexpr std::string_view kIpu = "graphcore.ai/ipu";
inline constexpr std::string_view kNoAccelerator = "none";

/// Whether the resource is a GPU (NVIDIA's or AMD's).
bool isGpu(const std::string& resource);

/// The command line of hetbench-train built from a workload's training fields.
std::vector<std::string> trainingArgs(Benchmark benchmark, const Workload& w);

/// `workload.slurm` and the rules of a workload that has it (slurm_job.cc): the pod's fields
/// refused, one node, GPUs only, a command or script to run.
void parseSlurm(common::SpecReader& r, const nlohmann::json& workload, const std::string& path,
                Workload& out);

/// A Slurm workload's unit: its batch job, and the job's description as the unit's manifest.
common::Result<RenderedUnit> renderSlurmUnit(const RunRef& run, const RunSpec& spec,
                                             const Unit& unit, const Workload& w);

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
