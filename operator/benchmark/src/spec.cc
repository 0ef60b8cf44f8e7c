#include "hetbench/benchmark/spec.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/plan.h"
#include "hetbench/benchmark/queue.h"
#include "hetbench/common/duration.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/spec_reader.h"

namespace hetbench::benchmark {
namespace {

constexpr std::int64_t kMaxWarmupEpochs = 1000;

using common::StatusCause;
using nlohmann::json;

constexpr std::int64_t kMaxRepetitions = 100;
constexpr std::size_t kMaxSystemLength = 63;
// Values nested deeper are refused before anything walks them recursively (copies included).
constexpr std::size_t kMaxNesting = 100;

constexpr Benchmark kBenchmarks[] = {Benchmark::kResnet50, Benchmark::kCosmoflow,
                                     Benchmark::kDeepcam, Benchmark::kCustom};

const json* member(const json& object, const char* key) {
  return common::presentMember(object, key);
}

bool isAsciiLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlphanumeric(char c) { return isAsciiLetter(c) || isAsciiDigit(c); }

// ^[A-Za-z_][A-Za-z0-9_]*$
bool isParameterName(std::string_view name) {
  if (name.empty() || isAsciiDigit(name.front())) return false;
  for (char c : name) {
    if (!isAlphanumeric(c) && c != '_') return false;
  }
  return true;
}

// ^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$, a label value that is not empty.
bool isLabelValue(std::string_view value) {
  if (value.empty() || !isAlphanumeric(value.front()) || !isAlphanumeric(value.back())) {
    return false;
  }
  for (char c : value) {
    if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

using Reader = common::SpecReader;

void readSystem(Reader& r, const json& spec, RunSpec& out) {
  const json* v = member(spec, "system");
  if (v == nullptr) {
    r.add(common::requiredCause("spec.system"));
    return;
  }
  std::optional<std::string> system = r.string("spec.system", *v);
  if (!system) return;
  if (system->empty()) {
    r.add(common::requiredCause("spec.system"));
  } else if (system->size() > kMaxSystemLength) {
    r.add(common::tooLongCause("spec.system", kMaxSystemLength));
  } else if (!isLabelValue(*system)) {
    r.add(common::invalidCause("spec.system", *system,
                               "must consist of alphanumeric characters, '-', '_' or '.', and "
                               "must start and end with an alphanumeric character"));
  } else {
    out.system = *system;
  }
}

// Exactly one of workload and template, each an object of bounded depth. Their fields are
// parsed per trial, after substitution (render.h).
void readWorkload(Reader& r, const json& spec, RunSpec& out) {
  const json* workload = member(spec, "workload");
  const json* templ = member(spec, "template");
  if (workload == nullptr && templ == nullptr) {
    r.add(
        common::requiredCause("spec.workload", "exactly one of workload and template is required"));
  }
  if (workload != nullptr && r.object("spec.workload", *workload) != nullptr &&
      r.shallow("spec.workload", *workload, kMaxNesting)) {
    out.workload = *workload;
  }
  if (templ != nullptr && workload != nullptr) {
    r.add(common::forbiddenCause("spec.template", "may not be set together with workload"));
  } else if (templ != nullptr && r.object("spec.template", *templ) != nullptr &&
             r.shallow("spec.template", *templ, kMaxNesting)) {
    out.templ = *templ;
  }
}

// Returns whether the matrix is valid; `declared` receives every parameter name, valid or not,
// so that a bad parameter is not reported again by each reference to it.
bool readMatrix(Reader& r, const json& spec, RunSpec& out, Params& declared) {
  const json* v = member(spec, "matrix");
  if (v == nullptr) return true;
  const json* matrix = r.object("spec.matrix", *v);
  if (matrix == nullptr) return false;
  bool valid = true;
  // nlohmann::json objects iterate in key order: the parameters come out sorted by name.
  for (const auto& [name, item] : matrix->items()) {
    if (item.is_null()) continue;
    declared[name];
    const std::string field = "spec.matrix." + name;
    if (!isParameterName(name)) {
      r.add(common::invalidCause("spec.matrix", name,
                                 "a parameter name must start with a letter or '_' and "
                                 "contain only letters, digits and '_'"));
      valid = false;
    } else if (name.size() > kMaxParameterNameBytes) {
      r.add(common::tooLongCause(field, kMaxParameterNameBytes));
      valid = false;
    }
    const json* values = r.array(field, item);
    if (values == nullptr) {
      valid = false;
      continue;
    }
    if (values->empty()) {
      r.add(common::requiredCause(field, "must list at least one value"));
      valid = false;
      continue;
    }
    MatrixParameter parameter{name, {}};
    std::set<std::string> seen;
    for (std::size_t i = 0; i < values->size(); ++i) {
      const std::string itemField = field + "[" + std::to_string(i) + "]";
      const json& value = (*values)[i];
      std::string text;
      if (value.is_string()) {
        text = value.get<std::string>();
      } else if (value.is_number_integer()) {
        text = value.dump();
      } else if (const std::optional<std::int64_t> n = common::integralValue(value);
                 n && std::fabs(value.get<double>()) < 9223372036854775808.0) {
        text = std::to_string(*n);  // an integral float such as 4.0 (not one beyond int64)
      } else {
        r.add(common::schemaTypeCause(itemField, value, "integer or string"));
        valid = false;
        continue;
      }
      if (!seen.insert(text).second) {
        r.add(common::duplicateCause(itemField, value));
        valid = false;
        continue;
      }
      parameter.values.push_back(std::move(text));
    }
    out.matrix.push_back(std::move(parameter));
  }
  if (declared.size() > kMaxMatrixParameters) {
    r.add(common::tooManyCause("spec.matrix", static_cast<std::int64_t>(declared.size()),
                               kMaxMatrixParameters));
    valid = false;
  }
  return valid;
}

// The largest trial takes each parameter's longest value: its parameters as JSON (as the
// status writes them, strings quoted and escaped) must fit kMaxTrialParameterBytes.
void checkTrialBytes(Reader& r, const RunSpec& out) {
  std::size_t bytes = 2;  // {}
  for (const MatrixParameter& parameter : out.matrix) {
    std::size_t longest = 0;
    for (const std::string& value : parameter.values) {
      longest = std::max(longest, json(value).dump().size());
    }
    bytes += json(parameter.name).dump().size() + 2 + longest;  // "name":value,
  }
  if (bytes <= kMaxTrialParameterBytes) return;
  r.add({"spec.matrix", "FieldValueTooLong",
         "Too long: the largest trial's parameters take " + std::to_string(bytes) +
             " bytes as JSON, and may take at most " + std::to_string(kMaxTrialParameterBytes) +
             " (the status repeats them for every repetition and result)"});
}

// Every $(params.NAME) in the workload or template must name a matrix parameter.
void checkReferences(Reader& r, const RunSpec& out, const Params& declared) {
  const std::pair<const std::optional<json>*, const char*> parts[] = {
      {&out.workload, "spec.workload"}, {&out.templ, "spec.template"}};
  for (const auto& [part, path] : parts) {
    if (!part->has_value()) continue;
    const common::Result<json> substituted = substituteParams(**part, declared, path);
    if (!substituted.isOk()) {
      const common::Status status = substituted.status();
      for (const StatusCause& cause : status.causes()) r.add(cause);
    }
  }
}

void readCleanup(Reader& r, const json& spec, Cleanup& out) {
  const json* v = member(spec, "cleanup");
  if (v == nullptr) return;
  const json* cleanup = r.object("spec.cleanup", *v);
  if (cleanup == nullptr) return;
  constexpr CleanupAction onSuccess[] = {CleanupAction::kDelete, CleanupAction::kRetain};
  constexpr CleanupAction onFailure[] = {CleanupAction::kRetain, CleanupAction::kDelete};
  if (const json* f = member(*cleanup, "onSuccess")) {
    out.onSuccess = r.oneOf("spec.cleanup.onSuccess", *f, onSuccess).value_or(out.onSuccess);
  }
  if (const json* f = member(*cleanup, "onFailure")) {
    out.onFailure = r.oneOf("spec.cleanup.onFailure", *f, onFailure).value_or(out.onFailure);
  }
  if (const json* f = member(*cleanup, "retainFor")) {
    out.retainFor = r.duration("spec.cleanup.retainFor", *f).value_or(out.retainFor);
  }
  if (const json* f = member(*cleanup, "maxRetained")) {
    out.maxRetained = r.integerIn("spec.cleanup.maxRetained", *f, 0).value_or(out.maxRetained);
  }
}

void readConfirm(Reader& r, const json& spec, RunSpec& out) {
  const json* v = member(spec, "confirm");
  if (v == nullptr) return;
  const json* confirm = r.object("spec.confirm", *v);
  if (confirm == nullptr) return;
  Confirm c;
  if (const json* f = member(*confirm, "reruns")) {
    c.reruns = r.integerIn("spec.confirm.reruns", *f, 1, kMaxConfirmReruns).value_or(c.reruns);
  }
  if (const json* f = member(*confirm, "otherNode")) {
    c.otherNode = r.boolean("spec.confirm.otherNode", *f).value_or(c.otherNode);
  }
  if (out.templ) {
    r.add(common::forbiddenCause("spec.confirm",
                                 "reruns are placed through spec.workload's affinity; a template's "
                                 "placement is its own"));
  }
  out.confirm = c;
}

void readQueue(Reader& r, const json& spec, RunSpec& out) {
  if (const json* v = member(spec, "queueName")) {
    std::optional<std::string> queue = r.string("spec.queueName", *v);
    if (queue && !queue->empty() && !isQueueName(*queue)) {
      r.add(common::invalidCause("spec.queueName", *queue, std::string(kQueueNameRule)));
    } else if (queue) {
      out.queueName = *queue;
    }
  }
  if (const json* v = member(spec, "queueTimeout")) {
    out.queueTimeout = r.duration("spec.queueTimeout", *v).value_or(out.queueTimeout);
  }
}

void readResultsFields(Reader& r, const json& spec, RunSpec& out) {
  if (const json* v = member(spec, "metrics")) {
    if (const json* metrics = r.array("spec.metrics", *v)) {
      bool valid = true;
      for (std::size_t i = 0; i < metrics->size(); ++i) {
        const std::string field = "spec.metrics[" + std::to_string(i) + "]";
        valid = r.object(field, (*metrics)[i]) != nullptr && valid;
      }
      if (valid && r.shallow("spec.metrics", *metrics, kMaxNesting)) out.metrics = *metrics;
    }
  }
  if (const json* v = member(spec, "references")) {
    const json* references = r.object("spec.references", *v);
    if (references != nullptr && references->size() > kMaxReferences) {
      r.add(common::tooManyCause("spec.references", static_cast<std::int64_t>(references->size()),
                                 kMaxReferences));
    } else if (references != nullptr && r.shallow("spec.references", *references, kMaxNesting)) {
      out.references = *references;
    }
  }
}

// Trials × repetitions, saturating at the first product above kMaxUnits; the exact count when
// it is known.
void checkUnits(Reader& r, const RunSpec& out) {
  std::uint64_t units = static_cast<std::uint64_t>(out.repetitions);
  bool exact = true;
  for (const MatrixParameter& parameter : out.matrix) {
    const std::uint64_t n = parameter.values.size();
    if (n != 0 && units > std::numeric_limits<std::uint64_t>::max() / n) {
      exact = false;
      break;
    }
    units *= n;
  }
  if (exact && units <= kMaxUnits) return;
  r.add({"spec.matrix", "FieldValueTooMany",
         "Too many: " + (exact ? std::to_string(units) + ": " : std::string()) +
             "must have at most " + std::to_string(kMaxUnits) + " units (trials × repetitions)"});
}

}  // namespace

std::string toString(CleanupAction a) { return a == CleanupAction::kDelete ? "Delete" : "Retain"; }

std::string toString(Benchmark b) {
  switch (b) {
    case Benchmark::kResnet50:
      return "resnet50";
    case Benchmark::kCosmoflow:
      return "cosmoflow";
    case Benchmark::kDeepcam:
      return "deepcam";
    case Benchmark::kCustom:
      return "custom";
  }
  return "unknown";
}

std::string toString(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::kPod:
      return "Pod";
    case WorkloadKind::kJob:
      return "Job";
    case WorkloadKind::kIpuJob:
      return "IPUJob";
  }
  return "unknown";
}

common::Result<RunSpec> parseRunSpec(const json& spec) {
  Reader r;
  if (spec.is_null()) {
    r.add(common::requiredCause("spec"));
    return common::invalidStatus(std::move(r.causes()));
  }
  if (r.object("spec", spec) == nullptr) return common::invalidStatus(std::move(r.causes()));

  RunSpec out;
  if (const json* v = member(spec, "benchmark")) {
    out.benchmark = r.oneOf("spec.benchmark", *v, kBenchmarks).value_or(out.benchmark);
  } else {
    r.add(common::requiredCause("spec.benchmark"));
  }
  readSystem(r, spec, out);
  readWorkload(r, spec, out);
  Params declared;
  const bool matrixValid = readMatrix(r, spec, out, declared);
  checkReferences(r, out, declared);
  bool repetitionsValid = true;
  if (const json* v = member(spec, "repetitions")) {
    const std::optional<std::int64_t> n = r.integerIn("spec.repetitions", *v, 1, kMaxRepetitions);
    repetitionsValid = n.has_value();
    out.repetitions = n.value_or(out.repetitions);
  }
  if (const json* v = member(spec, "parallelism")) {
    out.parallelism = r.integerIn("spec.parallelism", *v, 1).value_or(out.parallelism);
  }
  if (const json* v = member(spec, "timeLimit")) {
    out.timeLimit = r.duration("spec.timeLimit", *v).value_or(out.timeLimit);
  }
  if (const json* v = member(spec, "startTimeout")) {
    out.startTimeout = r.duration("spec.startTimeout", *v).value_or(out.startTimeout);
  }
  if (const json* v = member(spec, "suspend")) {
    out.suspend = r.boolean("spec.suspend", *v).value_or(out.suspend);
  }
  if (const json* v = member(spec, "warmupEpochs")) {
    out.warmupEpochs = r.integerIn("spec.warmupEpochs", *v, 0, kMaxWarmupEpochs);
  }
  readCleanup(r, spec, out.cleanup);
  readConfirm(r, spec, out);
  readQueue(r, spec, out);
  readResultsFields(r, spec, out);
  if (matrixValid && repetitionsValid) checkUnits(r, out);
  if (matrixValid) checkTrialBytes(r, out);

  if (!r.causes().empty()) return common::invalidStatus(std::move(r.causes()));
  return out;
}

}  // namespace hetbench::benchmark
