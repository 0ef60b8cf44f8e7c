#include "hetbench/benchmark/render.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/time_limit.h"
#include "hetbench/common/ids.h"
#include "hetbench/common/spec_reader.h"
#include "json_fields.h"
#include "render_internal.h"

namespace hetbench::benchmark {
namespace {

using common::duplicateCause;
using common::forbiddenCause;
using common::invalidCause;
using common::notSupportedCause;
using common::requiredCause;
using common::SpecReader;
using common::StatusCause;
using internal::indexed;
using internal::infoOf;
using internal::invalidFields;
using internal::isGpu;
using internal::isIntOrString;
using internal::isString;
using internal::kAmdGpu;
using internal::KindInfo;
using internal::kindNamed;
using internal::kIpu;
using internal::kNoAccelerator;
using internal::kNvidiaGpu;
using internal::member;
using internal::objectMeta;
using internal::renderTemplate;
using internal::trainingArgs;
using internal::unitMeta;
using internal::UnitMeta;
using nlohmann::json;

constexpr std::string_view kNvidiaProductLabel = "nvidia.com/gpu.product";
constexpr std::string_view kAmdProductLabel = "amd.com/gpu.product-name";
constexpr std::string_view kContainerName = "benchmark";
constexpr std::string_view kCompletionIndexField =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";
constexpr std::size_t kMaxUnitNameLength = 56;
constexpr std::size_t kMaxLabelValueLength = 63;
constexpr std::size_t kRunIdLength = 5;

// Reads the accelerator's own fields; false when one of them is wrong.
bool parseAccelerator(SpecReader& r, const json& a, const std::string& field, Accelerator& out) {
  if (!r.object(field, a)) return false;
  bool ok = true;
  if (const json& v = member(a, "resource"); !v.is_null()) {
    std::optional<std::string> s =
        r.oneOf(field + ".resource", v, {kNvidiaGpu, kAmdGpu, kIpu, kNoAccelerator});
    if (s) out.resource = *s == kNoAccelerator ? "" : *s;
    ok = ok && s.has_value();
  }
  if (const json& v = member(a, "count"); !v.is_null()) {
    std::optional<std::int64_t> n = r.intOrString(field + ".count", v, 0);
    if (n) out.count = *n;
    ok = ok && n.has_value();
  }
  if (const json& v = member(a, "product"); !v.is_null()) {
    std::optional<std::string> s = r.string(field + ".product", v);
    if (s) out.product = *s;
    ok = ok && s.has_value();
  }
  return ok;
}

// The accelerator's rules that involve the workload's kind.
void checkAccelerator(SpecReader& r, const Workload& w, const std::string& field) {
  const Accelerator& a = w.accelerator;
  const json resource = a.resource.empty() ? json(kNoAccelerator) : json(a.resource);
  if (a.resource.empty() && a.count > 0) {
    r.add(invalidCause(field + ".count", a.count, "must be 0 when accelerator.resource is none"));
  }
  if (!a.product.empty() && a.resource != kNvidiaGpu && a.resource != kAmdGpu) {
    r.add(forbiddenCause(field + ".product",
                         "only nvidia.com/gpu and amd.com/gpu nodes carry a product label"));
  }
  if (w.kind != WorkloadKind::kIpuJob) return;
  if (a.resource != kIpu) {
    r.add(invalidCause(field + ".resource", resource, "kind IPUJob needs graphcore.ai/ipu"));
  } else if (a.count < 1) {
    r.add(invalidCause(field + ".count", a.count,
                       "must be greater than or equal to 1 for kind IPUJob"));
  }
}

void parseEnv(SpecReader& r, const json& env, const std::string& field, Workload& out) {
  if (!r.array(field, env)) return;
  for (std::size_t i = 0; i < env.size(); ++i) {
    const std::string at = indexed(field, i);
    if (!r.object(at, env[i])) continue;
    json var = json::object();
    if (const json& v = member(env[i], "name"); v.is_null()) {
      r.add(requiredCause(at + ".name"));
    } else if (std::optional<std::string> name = r.name(at + ".name", v)) {
      var["name"] = *name;
    }
    if (const json& v = member(env[i], "value"); !v.is_null()) {
      if (std::optional<std::string> value = r.string(at + ".value", v)) var["value"] = *value;
    }
    if (const json& v = member(env[i], "valueFrom");
        !v.is_null() && r.object(at + ".valueFrom", v)) {
      var["valueFrom"] = v;
    }
    out.env.push_back(std::move(var));
  }
}

void parseVolumes(SpecReader& r, const json& volumes, const std::string& field, Workload& out) {
  if (!r.array(field, volumes)) return;
  std::set<std::string> names;
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    const std::string at = indexed(field, i);
    const json& item = volumes[i];
    if (!r.object(at, item)) continue;
    Volume volume;
    bool ok = true;
    for (const auto& [key, target] :
         {std::pair{"name", &volume.name}, std::pair{"claimName", &volume.claimName},
          std::pair{"mountPath", &volume.mountPath}}) {
      const json& v = member(item, key);
      std::optional<std::string> s;
      if (v.is_null()) {
        r.add(requiredCause(at + "." + key));
      } else {
        s = r.name(at + "." + key, v);
      }
      if (s) *target = *s;
      ok = ok && s.has_value();
    }
    if (const json& v = member(item, "readOnly"); !v.is_null()) {
      std::optional<bool> b = r.boolean(at + ".readOnly", v);
      if (b) volume.readOnly = *b;
      ok = ok && b.has_value();
    }
    if (!volume.name.empty() && !names.insert(volume.name).second) {
      r.add(duplicateCause(at + ".name", volume.name));
      ok = false;
    }
    if (ok) out.volumes.push_back(std::move(volume));
  }
}

void parseTraining(SpecReader& r, const json& training, const std::string& field, Training& out) {
  if (!r.object(field, training)) return;
  for (const auto& [key, target] :
       {std::pair{"batchSize", &out.batchSize}, std::pair{"epochs", &out.epochs},
        std::pair{"stepsPerEpoch", &out.stepsPerEpoch}}) {
    if (const json& v = member(training, key); !v.is_null()) {
      *target = r.intOrString(field + "." + key, v, 1);
    }
  }
  if (const json& v = member(training, "precision"); !v.is_null()) {
    out.precision = r.oneOf(field + ".precision", v, {"fp32", "bf16", "fp16"}).value_or("");
  }
  if (const json& v = member(training, "data"); !v.is_null()) {
    out.data = r.string(field + ".data", v).value_or("");
  }
}

void parseResources(SpecReader& r, const json& resources, const std::string& field, Workload& out) {
  if (!r.object(field, resources)) return;
  json kept = json::object();
  for (const char* key : {"requests", "limits"}) {
    const json& v = member(resources, key);
    if (v.is_null()) continue;
    if (r.mapOf(field + "." + key, v, isIntOrString, "integer or string")) kept[key] = v;
  }
  out.resources = std::move(kept);
}

// ---- Rendering ----

json envVar(std::string_view name, std::string value) {
  return {{"name", name}, {"value", std::move(value)}};
}

// A security context: the restricted defaults (none for an IPUJob's workers, which the IPU
// operator makes privileged) with each field the workload sets put in their place.
json securityContextOf(WorkloadKind kind, json defaults, const json& fields) {
  json context = kind == WorkloadKind::kIpuJob ? json::object() : std::move(defaults);
  for (const auto& [key, value] : fields.items()) context[key] = value;
  return context;
}

json benchmarkContainer(const RunRef& run, const RunSpec& spec, const Unit& unit, const Workload& w,
                        const std::string& name) {
  json container = {{"name", kContainerName}, {"image", w.image}};
  if (!w.imagePullPolicy.empty()) container["imagePullPolicy"] = w.imagePullPolicy;
  if (w.command) container["command"] = *w.command;
  if (w.args) {
    container["args"] = *w.args;
  } else if (spec.benchmark != Benchmark::kCustom) {
    container["args"] = trainingArgs(spec.benchmark, w);
  }

  json env = json::array({envVar(kEnvRun, run.name), envVar(kEnvTrial, std::to_string(unit.trial)),
                          envVar(kEnvRepetition, std::to_string(unit.repetition)),
                          envVar(kEnvSystem, spec.system)});
  if (w.kind == WorkloadKind::kJob && w.nodes > 1) {
    env.push_back(envVar(kEnvMasterAddr, name + "-0." + name));
    env.push_back(envVar(kEnvMasterPort, std::to_string(kMasterPort)));
    env.push_back(envVar(kEnvWorldSize, std::to_string(w.nodes)));
    env.push_back({{"name", kEnvRank},
                   {"valueFrom", {{"fieldRef", {{"fieldPath", kCompletionIndexField}}}}}});
  }
  for (const json& var : w.env) env.push_back(var);
  container["env"] = std::move(env);

  json resources = w.resources.is_object() ? w.resources : json::object();
  // The IPU operator asks for an IPUJob's partition itself.
  const Accelerator& a = w.accelerator;
  if (!a.resource.empty() && a.count > 0 && w.kind != WorkloadKind::kIpuJob) {
    // Extended resources cannot be overcommitted: requests must equal limits.
    resources["limits"][a.resource] = a.count;
    resources["requests"][a.resource] = a.count;
  }
  if (!resources.empty()) container["resources"] = std::move(resources);

  if (json security =
          securityContextOf(w.kind, restrictedContainerSecurityContext(), w.securityContext);
      !security.empty()) {
    container["securityContext"] = std::move(security);
  }

  if (!w.volumes.empty()) {
    json mounts = json::array();
    for (const Volume& v : w.volumes) {
      mounts.push_back({{"name", v.name}, {"mountPath", v.mountPath}, {"readOnly", v.readOnly}});
    }
    container["volumeMounts"] = std::move(mounts);
  }
  return container;
}

json podSpecOf(const RunRef& run, const RunSpec& spec, const Unit& unit, const Workload& w,
               const std::string& name) {
  json podSpec = {{"restartPolicy", "Never"},
                  {"containers", json::array({benchmarkContainer(run, spec, unit, w, name)})}};
  json selector = w.nodeSelector.is_object() ? w.nodeSelector : json::object();
  const Accelerator& a = w.accelerator;
  if (!a.product.empty()) {
    selector[std::string(a.resource == kNvidiaGpu ? kNvidiaProductLabel : kAmdProductLabel)] =
        a.product;
  }
  if (!selector.empty()) podSpec["nodeSelector"] = std::move(selector);
  if (w.tolerations.is_array() && !w.tolerations.empty()) podSpec["tolerations"] = w.tolerations;
  if (!w.affinity.is_null()) podSpec["affinity"] = w.affinity;
  if (!w.volumes.empty()) {
    json volumes = json::array();
    for (const Volume& v : w.volumes) {
      volumes.push_back(
          {{"name", v.name},
           {"persistentVolumeClaim", {{"claimName", v.claimName}, {"readOnly", v.readOnly}}}});
    }
    podSpec["volumes"] = std::move(volumes);
  }
  // Indexed pods are named <name>-<index>; in the Service's subdomain rank 0 is <name>-0.<name>.
  if (w.kind == WorkloadKind::kJob && w.nodes > 1) podSpec["subdomain"] = name;
  if (json security =
          securityContextOf(w.kind, restrictedPodSecurityContext(), w.podSecurityContext);
      !security.empty()) {
    podSpec["securityContext"] = std::move(security);
  }
  if (!w.serviceAccountName.empty()) podSpec["serviceAccountName"] = w.serviceAccountName;
  podSpec["automountServiceAccountToken"] = w.automountServiceAccountToken;
  return podSpec;
}

json headlessService(const UnitMeta& m) {
  json selector = json::object();
  for (std::string_view key : {kRunLabel, kTrialLabel, kRepetitionLabel, kIdLabel}) {
    selector[std::string(key)] = member(m.labels, key);
  }
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", objectMeta(m)},
          {"spec",
           {{"clusterIP", "None"},
            {"selector", std::move(selector)},
            // Ranks must find each other before any of them is ready.
            {"publishNotReadyAddresses", true},
            {"ports", json::array({{{"name", "rendezvous"},
                                    {"port", kMasterPort},
                                    {"targetPort", kMasterPort},
                                    {"protocol", "TCP"}}})}}}};
}

RenderedUnit renderWorkload(const RunRef& run, const RunSpec& spec, const Unit& unit,
                            const Workload& w) {
  const UnitMeta m = unitMeta(run, spec, unit);
  const KindInfo& kind = infoOf(w.kind);
  RenderedUnit out;
  out.name = m.name;
  out.kind = w.kind;
  out.expectedPods = w.nodes;
  out.workload = {
      {"apiVersion", kind.apiVersion}, {"kind", kind.name}, {"metadata", objectMeta(m)}};
  json podSpec = podSpecOf(run, spec, unit, w, m.name);
  const json podTemplate = {{"metadata", {{"labels", m.labels}}}, {"spec", std::move(podSpec)}};
  switch (w.kind) {
    case WorkloadKind::kPod:
      out.workload["spec"] = podTemplate["spec"];
      break;
    case WorkloadKind::kJob: {
      json jobSpec = {{"backoffLimit", w.backoffLimit}, {"template", podTemplate}};
      if (w.nodes > 1) {
        jobSpec["completionMode"] = "Indexed";
        jobSpec["completions"] = w.nodes;
        jobSpec["parallelism"] = w.nodes;
        out.service = headlessService(m);
      }
      out.workload["spec"] = std::move(jobSpec);
      break;
    }
    case WorkloadKind::kIpuJob:
      out.workload["spec"] = {{"jobInstances", w.nodes},
                              {"ipusPerJobInstance", std::to_string(w.accelerator.count)},
                              {"workers", {{"template", podTemplate}}}};
      break;
  }
  return out;
}

}  // namespace

namespace internal {

bool isGpu(const std::string& resource) { return resource == kNvidiaGpu || resource == kAmdGpu; }

// The command line of hetbench-train when the workload does not give `args`:
//   --model <benchmark> [--batch-size N] [--epochs N] [--steps-per-epoch N] [--precision P]
//   [--data D] --device <cuda|cpu>
// One flag per training field that is set. --device is cuda when NVIDIA or AMD GPUs are
// allocated (PyTorch's ROCm build also calls its device cuda) and cpu without an accelerator;
// IPU runs get no --device, as the IPU build of the program has only one device.
std::vector<std::string> trainingArgs(Benchmark benchmark, const Workload& w) {
  std::vector<std::string> args = {"--model", toString(benchmark)};
  const Training& t = w.training;
  for (const auto& [flag, value] :
       {std::pair{"--batch-size", t.batchSize}, std::pair{"--epochs", t.epochs},
        std::pair{"--steps-per-epoch", t.stepsPerEpoch}}) {
    if (value) args.insert(args.end(), {flag, std::to_string(*value)});
  }
  if (!t.precision.empty()) args.insert(args.end(), {"--precision", t.precision});
  if (!t.data.empty()) args.insert(args.end(), {"--data", t.data});
  const Accelerator& a = w.accelerator;
  if (a.resource == kIpu) return args;
  args.insert(args.end(), {"--device", isGpu(a.resource) && a.count > 0 ? "cuda" : "cpu"});
  return args;
}

UnitMeta unitMeta(const RunRef& run, const RunSpec& spec, const Unit& unit) {
  json labels = {{std::string(kRunLabel), run.name},
                 {std::string(kTrialLabel), std::to_string(unit.trial)},
                 {std::string(kRepetitionLabel), std::to_string(unit.repetition)},
                 {std::string(kIdLabel), runId(run.uid)},
                 {std::string(kBenchmarkLabel), toString(spec.benchmark)},
                 {std::string(kSystemLabel), spec.system}};
  json owner = {{"apiVersion", kApiVersion}, {"kind", kKind},
                {"name", run.name},          {"uid", run.uid},
                {"controller", true},        {"blockOwnerDeletion", true}};
  return {unitName(run, unit), run.ns, std::move(labels), json::array({std::move(owner)})};
}

json objectMeta(const UnitMeta& m) {
  return {{"name", m.name},
          {"namespace", m.ns},
          {"labels", m.labels},
          {"ownerReferences", m.ownerReferences}};
}

}  // namespace internal

json restrictedPodSecurityContext() {
  return {{"runAsNonRoot", true}, {"seccompProfile", {{"type", "RuntimeDefault"}}}};
}

json restrictedContainerSecurityContext() {
  return {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", json::array({"ALL"})}}}};
}

std::string runId(const std::string& uid) {
  // FNV-1a (64 bit) of the uid, written as base-27 digits over kShortIdAlphabet, least
  // significant first: stable across restarts and builds, 27^5 (about 14 million) values.
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : uid) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  std::string id;
  for (std::size_t i = 0; i < kRunIdLength; ++i) {
    id += common::kShortIdAlphabet[hash % common::kShortIdAlphabet.size()];
    hash /= common::kShortIdAlphabet.size();
  }
  return id;
}

std::string unitName(const RunRef& run, const Unit& unit) {
  const std::string suffix = "-t" + std::to_string(unit.trial) + "-r" +
                             std::to_string(unit.repetition) + "-" + runId(run.uid);
  std::string prefix;
  for (const char c : run.name) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    prefix += keep ? lower : '-';
  }
  prefix.erase(0, prefix.find_first_not_of('-'));
  // A Service name is an RFC 1035 label, which starts with a letter.
  if (!prefix.empty() && prefix[0] >= '0' && prefix[0] <= '9') prefix.insert(0, "r");
  const std::size_t room =
      suffix.size() < kMaxUnitNameLength ? kMaxUnitNameLength - suffix.size() : 0;
  if (prefix.size() > room) prefix.resize(room);
  while (!prefix.empty() && prefix.back() == '-') prefix.pop_back();
  return prefix.empty() ? suffix.substr(1) : prefix + suffix;
}

common::Result<Workload> parseWorkload(const nlohmann::json& workload, const std::string& path) {
  SpecReader r;
  if (!r.object(path, workload)) return invalidFields(path, std::move(r.causes()));
  Workload out;
  const auto at = [&](std::string_view key) { return path + "." + std::string(key); };

  bool kindOk = true;
  if (const json& v = member(workload, "kind"); !v.is_null()) {
    std::optional<std::string> s = r.oneOf(at("kind"), v, {"Pod", "Job", "IPUJob"});
    if (s) out.kind = kindNamed(*s)->kind;
    kindOk = s.has_value();
  }
  if (const json& v = member(workload, "image"); v.is_null()) {
    r.add(requiredCause(at("image")));
  } else {
    out.image = r.name(at("image"), v).value_or("");
  }
  if (const json& v = member(workload, "command"); !v.is_null()) {
    out.command = r.strings(at("command"), v);
  }
  if (const json& v = member(workload, "args"); !v.is_null()) out.args = r.strings(at("args"), v);
  if (const json& v = member(workload, "imagePullPolicy"); !v.is_null()) {
    out.imagePullPolicy =
        r.oneOf(at("imagePullPolicy"), v, {"Always", "IfNotPresent", "Never"}).value_or("");
  }
  bool acceleratorOk = true;
  if (const json& v = member(workload, "accelerator"); !v.is_null()) {
    acceleratorOk = parseAccelerator(r, v, at("accelerator"), out.accelerator);
  }
  bool nodesOk = true;
  if (const json& v = member(workload, "nodes"); !v.is_null()) {
    std::optional<std::int64_t> n = r.intOrString(at("nodes"), v, 1);
    if (n) out.nodes = *n;
    nodesOk = n.has_value();
  }
  const json& backoffLimit = member(workload, "backoffLimit");
  if (!backoffLimit.is_null()) {
    out.backoffLimit = r.intOrString(at("backoffLimit"), backoffLimit, 0).value_or(0);
  }
  if (const json& v = member(workload, "nodeSelector"); !v.is_null()) {
    if (r.mapOf(at("nodeSelector"), v, isString, "string")) out.nodeSelector = v;
  }
  if (const json& v = member(workload, "tolerations"); !v.is_null()) {
    if (r.objects(at("tolerations"), v)) out.tolerations = v;
  }
  if (const json& v = member(workload, "affinity"); !v.is_null()) {
    if (r.object(at("affinity"), v)) out.affinity = v;
  }
  if (const json& v = member(workload, "resources"); !v.is_null()) {
    parseResources(r, v, at("resources"), out);
  }
  if (const json& v = member(workload, "env"); !v.is_null()) parseEnv(r, v, at("env"), out);
  if (const json& v = member(workload, "volumes"); !v.is_null()) {
    parseVolumes(r, v, at("volumes"), out);
  }
  if (const json& v = member(workload, "training"); !v.is_null()) {
    parseTraining(r, v, at("training"), out.training);
  }
  for (const auto& [key, target] : {std::pair{"podSecurityContext", &out.podSecurityContext},
                                    std::pair{"securityContext", &out.securityContext}}) {
    if (const json& v = member(workload, key); !v.is_null() && r.object(at(key), v)) *target = v;
  }
  if (const json& v = member(workload, "serviceAccountName"); !v.is_null()) {
    out.serviceAccountName = r.name(at("serviceAccountName"), v).value_or("");
  }
  if (const json& v = member(workload, "automountServiceAccountToken"); !v.is_null()) {
    out.automountServiceAccountToken =
        r.boolean(at("automountServiceAccountToken"), v).value_or(false);
  }

  internal::parseSlurm(r, workload, path, out);

  // Rules across fields, judged only on fields that parsed.
  if (kindOk && acceleratorOk) checkAccelerator(r, out, at("accelerator"));
  if (kindOk && nodesOk && out.kind == WorkloadKind::kPod && out.nodes > 1 && !out.slurm) {
    r.add(invalidCause(at("nodes"), out.nodes, "must be 1 for kind Pod; kind Job runs several"));
  }
  if (kindOk && !backoffLimit.is_null() && out.kind != WorkloadKind::kJob) {
    r.add(forbiddenCause(at("backoffLimit"), "only kind Job retries failed pods"));
  }
  if (!r.causes().empty()) return invalidFields(path, std::move(r.causes()));
  return out;
}

common::Result<Workload> trialWorkload(const RunSpec& spec, const Params& params) {
  const std::string path = "spec.workload";
  if (!spec.workload) return invalidFields("spec", {requiredCause(path, "not a template")});
  HETBENCH_ASSIGN_OR_RETURN(const json substituted, substituteParams(*spec.workload, params, path));
  return parseWorkload(substituted, path);
}

namespace {

// The cluster's own bound on the unit's workload (time_limit.h), where each kind takes it: the
// Job as a whole (its Pending pods too), a Pod once it is on a node, an IPUJob's worker pods once
// they are. A smaller bound the user's template sets is kept.
RenderedUnit boundedByDeadline(RenderedUnit out, std::chrono::nanoseconds timeLimit) {
  json& spec = out.workload["spec"];
  json& podSpec = out.kind == WorkloadKind::kIpuJob ? spec["workers"]["template"]["spec"] : spec;
  json& deadline = podSpec["activeDeadlineSeconds"];
  const std::int64_t seconds = activeDeadlineSeconds(timeLimit);
  if (!deadline.is_number_integer() || deadline.get<std::int64_t>() > seconds) deadline = seconds;
  return out;
}

}  // namespace

common::Result<RenderedUnit> renderUnit(const RunRef& run, const RunSpec& spec, const Unit& unit) {
  if (run.name.size() > kMaxLabelValueLength) {
    return invalidFields(
        "metadata.name",
        {invalidCause("metadata.name", run.name,
                      "must be no more than 63 characters, as it is the value of label " +
                          std::string(kRunLabel))});
  }
  if (spec.workload.has_value() == spec.templ.has_value()) {
    return invalidFields("spec",
                         {requiredCause("spec.workload", "exactly one of workload and template")});
  }
  if (spec.workload) {
    HETBENCH_ASSIGN_OR_RETURN(const Workload workload, trialWorkload(spec, unit.params));
    if (workload.slurm) return internal::renderSlurmUnit(run, spec, unit, workload);
    return boundedByDeadline(renderWorkload(run, spec, unit, workload), spec.timeLimit);
  }
  const std::string path = "spec.template";
  HETBENCH_ASSIGN_OR_RETURN(json substituted, substituteParams(*spec.templ, unit.params, path));
  HETBENCH_ASSIGN_OR_RETURN(RenderedUnit rendered,
                            renderTemplate(run, spec, unit, std::move(substituted), path));
  return boundedByDeadline(std::move(rendered), spec.timeLimit);
}

}  // namespace hetbench::benchmark
