#include "hetbench/cli/validate.h"

#include <map>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/system.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/yaml.h"
#include "hetbench/schedule/schedule_spec.h"

namespace hetbench::cli {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

/// The uid a dry run renders with: the names and labels that derive from a run's uid.
constexpr const char* kDryRunUid = "00000000-0000-0000-0000-000000000000";

std::vector<std::string> causesOf(const common::Status& status) {
  std::vector<std::string> out;
  for (const common::StatusCause& cause : status.causes())
    out.push_back(cause.field.empty() ? cause.message : cause.field + ": " + cause.message);
  if (out.empty()) out.push_back(status.message());
  return out;
}

/// The valid BenchmarkSystems of the text, by name.
using Systems = std::map<std::string, benchmark::SystemSpec>;

void checkRun(const json& object, const benchmark::RunRef& ref, const Systems& systems,
              Validation& v) {
  json spec = benchmark::frozenSpec(member(object, "spec"));
  const std::string systemName = stringMember(spec, "system");
  auto system = systems.find(systemName);
  if (system != systems.end()) {
    common::Result<json> placed = benchmark::placeOnSystem(spec, systemName, system->second);
    if (!placed.isOk()) {
      v.causes = causesOf(placed.status());
      return;
    }
    spec = std::move(placed).value();
  }
  common::Result<benchmark::AcceptedRun> accepted = benchmark::validateRun(ref, spec);
  if (!accepted.isOk()) {
    v.causes = causesOf(accepted.status());
    return;
  }
  v.valid = true;
  const std::size_t units = benchmark::planUnits(accepted.value().spec).size();
  const auto repetitions = static_cast<std::size_t>(accepted.value().spec.repetitions);
  v.summary = std::to_string(units / repetitions) + " trial(s) x " + std::to_string(repetitions) +
              " repetition(s)";
  if (system != systems.end()) v.summary += " on BenchmarkSystem " + systemName;
}

void checkSystem(const json& object, Validation& v) {
  common::Result<benchmark::SystemSpec> parsed = benchmark::parseSystemSpec(member(object, "spec"));
  if (!parsed.isOk()) {
    v.causes = causesOf(parsed.status());
    return;
  }
  v.valid = true;
  if (const std::optional<benchmark::SlurmSystem>& slurm = parsed.value().slurm) {
    v.summary = "SlurmCluster " + slurm->cluster +
                (slurm->partition.empty() ? "" : " partition " + slurm->partition);
    return;
  }
  v.summary = "Kubernetes nodes";
  const json& selector = parsed.value().kubernetes->nodeSelector;
  if (!selector.empty()) {
    std::string labels;
    for (const auto& [label, value] : selector.items())
      labels += (labels.empty() ? "" : ",") + label + "=" + value.get<std::string>();
    v.summary += " " + labels;
  }
}

void checkSchedule(const json& object, const Systems& systems, Validation& v) {
  common::Result<schedule::ScheduleSpec> parsed =
      schedule::parseScheduleSpec(member(object, "spec"), [&](const std::string& name) {
        auto it = systems.find(name);
        return it == systems.end() ? std::nullopt
                                   : std::optional<benchmark::SystemSpec>(it->second);
      });
  if (!parsed.isOk()) {
    v.causes = causesOf(parsed.status());
    return;
  }
  v.valid = true;
  v.summary = parsed.value().schedule + " (" + parsed.value().timeZone.name() + ")";
}

Validation validateDocument(const json& object, const std::string& defaultNamespace,
                            const Systems& systems) {
  Validation v;
  v.kind = stringMember(object, "kind");
  const json& meta = member(object, "metadata");
  std::string ns = stringMember(meta, "namespace");
  if (ns.empty()) ns = defaultNamespace;
  const std::string name = stringMember(meta, "name");
  const bool ours = stringMember(object, "apiVersion") == benchmark::kApiVersion;
  if (ours && v.kind == benchmark::kSystemKind) {
    // Cluster-scoped: no namespace.
    v.name = name;
    v.checked = true;
    if (name.empty()) {
      v.causes.push_back("metadata.name: Required value: name is required");
      return v;
    }
    checkSystem(object, v);
    return v;
  }
  v.name = ns + "/" + (name.empty() ? stringMember(meta, "generateName") + "*" : name);
  if (!ours || (v.kind != benchmark::kKind && v.kind != benchmark::kScheduleKind)) return v;
  v.checked = true;
  if (name.empty() && stringMember(meta, "generateName").empty()) {
    v.causes.push_back("metadata.name: Required value: name or generateName is required");
    return v;
  }
  if (v.kind == benchmark::kKind) {
    // A generated name gets five more characters: check with the longest it can be.
    const std::string longest = name.empty() ? stringMember(meta, "generateName") + "xxxxx" : name;
    checkRun(object, {ns, longest, kDryRunUid}, systems, v);
  } else {
    checkSchedule(object, systems, v);
  }
  return v;
}

}  // namespace

common::Result<std::vector<Validation>> validateManifests(std::string_view text,
                                                          const std::string& defaultNamespace) {
  common::Result<std::vector<json>> documents = common::yamlDocuments(text);
  if (!documents.isOk()) return common::invalidError("not YAML: " + documents.status().message());
  std::vector<json> objects;
  for (const json& document : documents.value()) {
    if (stringMember(document, "kind").ends_with("List") && member(document, "items").is_array()) {
      for (const json& item : document["items"]) objects.push_back(item);
    } else {
      objects.push_back(document);
    }
  }
  // The text's systems place its runs, wherever they come in it.
  Systems systems;
  for (const json& object : objects) {
    if (stringMember(object, "apiVersion") != benchmark::kApiVersion ||
        stringMember(object, "kind") != benchmark::kSystemKind) {
      continue;
    }
    common::Result<benchmark::SystemSpec> parsed =
        benchmark::parseSystemSpec(member(object, "spec"));
    if (parsed.isOk()) {
      systems.emplace(stringMember(member(object, "metadata"), "name"), std::move(parsed).value());
    }
  }
  std::vector<Validation> out;
  for (const json& object : objects)
    out.push_back(validateDocument(object, defaultNamespace, systems));
  return out;
}

std::string renderValidations(const std::string& source, const std::vector<Validation>& found) {
  std::string out;
  for (const Validation& v : found) {
    out += source + ": " + (v.kind.empty() ? "(no kind)" : v.kind) + " " + v.name + ": ";
    if (!v.checked) {
      out +=
          "not checked (not a hetbench.io/v1alpha1 BenchmarkRun, BenchmarkSchedule or "
          "BenchmarkSystem)\n";
    } else if (v.valid) {
      out += "valid (" + v.summary + ")\n";
    } else {
      out += "invalid\n";
      for (const std::string& cause : v.causes) out += "  " + cause + "\n";
    }
  }
  return out;
}

}  // namespace hetbench::cli
