#include "hetbench/cli/validate.h"

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/run.h"
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

void checkRun(const json& object, const benchmark::RunRef& ref, Validation& v) {
  common::Result<benchmark::AcceptedRun> accepted =
      benchmark::validateRun(ref, benchmark::frozenSpec(member(object, "spec")));
  if (!accepted.isOk()) {
    v.causes = causesOf(accepted.status());
    return;
  }
  v.valid = true;
  const std::size_t units = benchmark::planUnits(accepted.value().spec).size();
  const auto repetitions = static_cast<std::size_t>(accepted.value().spec.repetitions);
  v.summary = std::to_string(units / repetitions) + " trial(s) x " + std::to_string(repetitions) +
              " repetition(s)";
}

void checkSchedule(const json& object, Validation& v) {
  common::Result<schedule::ScheduleSpec> parsed =
      schedule::parseScheduleSpec(member(object, "spec"));
  if (!parsed.isOk()) {
    v.causes = causesOf(parsed.status());
    return;
  }
  v.valid = true;
  v.summary = parsed.value().schedule + " (" + parsed.value().timeZone.name() + ")";
}

Validation validateDocument(const json& object, const std::string& defaultNamespace) {
  Validation v;
  v.kind = stringMember(object, "kind");
  const json& meta = member(object, "metadata");
  std::string ns = stringMember(meta, "namespace");
  if (ns.empty()) ns = defaultNamespace;
  const std::string name = stringMember(meta, "name");
  v.name = ns + "/" + (name.empty() ? stringMember(meta, "generateName") + "*" : name);
  const bool ours = stringMember(object, "apiVersion") == benchmark::kApiVersion;
  if (!ours || (v.kind != benchmark::kKind && v.kind != benchmark::kScheduleKind)) return v;
  v.checked = true;
  if (name.empty() && stringMember(meta, "generateName").empty()) {
    v.causes.push_back("metadata.name: Required value: name or generateName is required");
    return v;
  }
  if (v.kind == benchmark::kKind) {
    // A generated name gets five more characters: check with the longest it can be.
    const std::string longest = name.empty() ? stringMember(meta, "generateName") + "xxxxx" : name;
    checkRun(object, {ns, longest, kDryRunUid}, v);
  } else {
    checkSchedule(object, v);
  }
  return v;
}

}  // namespace

common::Result<std::vector<Validation>> validateManifests(std::string_view text,
                                                          const std::string& defaultNamespace) {
  common::Result<std::vector<json>> documents = common::yamlDocuments(text);
  if (!documents.isOk()) return common::invalidError("not YAML: " + documents.status().message());
  std::vector<Validation> out;
  for (const json& document : documents.value()) {
    if (stringMember(document, "kind").ends_with("List") && member(document, "items").is_array()) {
      for (const json& item : document["items"])
        out.push_back(validateDocument(item, defaultNamespace));
    } else {
      out.push_back(validateDocument(document, defaultNamespace));
    }
  }
  return out;
}

std::string renderValidations(const std::string& source, const std::vector<Validation>& found) {
  std::string out;
  for (const Validation& v : found) {
    out += source + ": " + (v.kind.empty() ? "(no kind)" : v.kind) + " " + v.name + ": ";
    if (!v.checked) {
      out += "not checked (not a hetbench.io/v1alpha1 BenchmarkRun or BenchmarkSchedule)\n";
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
