#include "hetbench/benchmark/validate.h"

#include <algorithm>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/plan.h"
#include "hetbench/benchmark/queue.h"
#include "hetbench/benchmark/status_budget.h"
#include "hetbench/common/field_errors.h"

namespace hetbench::benchmark {
namespace {

constexpr std::size_t kMaxCausesInMessage = 5;
// A cause shows the offending value in full, as the API server does; a condition shows at most
// this much of each.
constexpr std::size_t kMaxCauseBytesInMessage = 512;
constexpr std::size_t kMaxNameLength = 63;

std::vector<std::string> requiredMetrics(const AcceptedRun& run) {
  std::vector<std::string> out = results::requiredMetrics(run.metricSpecs);
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& [name, reference] : run.references) add(name);
  if (run.spec.benchmark != Benchmark::kCustom && run.metricSpecs.empty())
    add(std::string(results::kEffectiveThroughput));
  return out;
}

}  // namespace

Configuration configurationOf(const std::string& ns, const RunSpec& spec, const Params& params) {
  Configuration c;
  c.ns = ns;
  c.benchmark = toString(spec.benchmark);
  c.system = spec.system;
  c.accelerators = "0";
  if (!spec.workload) return c;
  common::Result<Workload> workload = trialWorkload(spec, params);
  if (!workload.isOk()) return c;
  const Workload& w = workload.value();
  c.accelerator = w.accelerator.product.empty() ? w.accelerator.resource : w.accelerator.product;
  c.accelerators = std::to_string(w.accelerator.count * w.nodes);
  c.nodes = std::to_string(w.nodes);
  if (w.training.batchSize) c.batchSize = std::to_string(*w.training.batchSize);
  c.precision = w.training.precision;
  if (w.slurm) c.target = "slurm";
  return c;
}

common::Result<AcceptedRun> parseRun(const nlohmann::json& spec) {
  AcceptedRun run;
  HETBENCH_ASSIGN_OR_RETURN(run.spec, parseRunSpec(spec));
  HETBENCH_ASSIGN_OR_RETURN(run.metricSpecs, results::parseMetricSpecs(run.spec.metrics));
  HETBENCH_ASSIGN_OR_RETURN(
      run.references,
      results::parseReferences(run.spec.references, results::metricUnits(run.metricSpecs)));
  run.required = requiredMetrics(run);
  return run;
}

common::Result<AcceptedRun> validateRun(const RunRef& ref, const nlohmann::json& spec) {
  if (ref.name.size() > kMaxNameLength) {
    return common::invalidStatus({common::invalidCause(
        "metadata.name", ref.name,
        "must be no more than 63 characters (it labels the run's workloads)")});
  }
  HETBENCH_ASSIGN_OR_RETURN(AcceptedRun run, parseRun(spec));
  const std::vector<Unit> units = planUnits(run.spec);
  std::vector<std::int64_t> podsPerUnit;
  for (const Unit& unit : units) {
    common::Result<RenderedUnit> rendered = renderUnit(ref, run.spec, unit);
    if (rendered.isOk() && run.spec.queueName && !run.spec.queueName->empty() &&
        (rendered.value().slurm || !queueable(rendered.value().kind))) {
      rendered = common::invalidStatus({common::invalidCause(
          "spec.queueName", *run.spec.queueName,
          rendered.value().slurm
              ? "a Slurm job waits in Slurm's queue; Kueue takes Pods and Jobs only"
              : "Kueue has no integration for IPUJobs; a queue takes Pods and Jobs only")});
    }
    if (rendered.isOk()) {
      podsPerUnit.push_back(rendered.value().expectedPods);
      continue;
    }
    // A workload that only a trial's parameters make invalid: its causes say which trial.
    const std::string trial = "trial " + std::to_string(unit.trial) + ": ";
    const common::Status failed = rendered.status();
    std::vector<common::StatusCause> causes = failed.causes();
    for (common::StatusCause& cause : causes) cause.message = trial + cause.message;
    if (causes.empty()) causes.push_back({"spec", "FieldValueInvalid", trial + failed.message()});
    return common::invalidStatus(std::move(causes));
  }
  const std::size_t floor = statusFloorBytes(ref, run, units, podsPerUnit);
  if (floor > kMaxStatusBytes) {
    return common::invalidStatus(
        {{"spec.matrix", "FieldValueInvalid",
          "the status of " + std::to_string(units.size()) + " units could need " +
              std::to_string(floor) + " bytes, more than the " + std::to_string(kMaxStatusBytes) +
              " a run's status may take (etcd keeps objects up to "
              "1.5 MiB): plan fewer trials or repetitions, shorter "
              "matrix values, or fewer history runs"}});
  }
  return run;
}

std::optional<AcceptedRun> acceptedRun(const Run& run) {
  if (run.acceptedSpecText.empty()) return std::nullopt;
  common::Result<AcceptedRun> parsed =
      parseRun(nlohmann::json::parse(run.acceptedSpecText, nullptr, false));
  if (!parsed.isOk()) return std::nullopt;
  return std::move(parsed).value();
}

std::vector<Configuration> trialConfigurations(const std::string& ns, const RunSpec& spec) {
  std::vector<Configuration> byTrial;
  for (const Params& params : planTrials(spec.matrix))
    byTrial.push_back(configurationOf(ns, spec, params));
  return byTrial;
}

std::vector<Configuration> trialConfigurations(const std::string& ns, const AcceptedRun& accepted) {
  return trialConfigurations(ns, accepted.spec);
}

std::optional<std::string> acceptedSpecTooLarge(const nlohmann::json& annotations,
                                                const std::string& acceptedSpecText) {
  const std::string key(kAcceptedSpecAnnotation);
  std::size_t others = 0;
  if (annotations.is_object()) {
    for (const auto& [name, value] : annotations.items()) {
      if (name == key) continue;
      others += name.size() + (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
    }
  }
  const std::size_t total = others + key.size() + acceptedSpecText.size();
  if (total <= kMaxAnnotationBytes) return std::nullopt;
  return "the spec is " + std::to_string(acceptedSpecText.size()) +
         " bytes as JSON; with the run's other annotations (" + std::to_string(others) +
         " bytes, kubectl apply's copy of the whole object among them) it does not fit in the " +
         std::to_string(kMaxAnnotationBytes) + " bytes the API server allows for annotations, " +
         "where the operator records the accepted spec";
}

std::string describeInvalid(const common::Status& status) {
  if (status.causes().empty()) return status.message();
  std::string out;
  std::size_t shown = 0;
  for (const common::StatusCause& cause : status.causes()) {
    if (shown == kMaxCausesInMessage) {
      out += "; and " + std::to_string(status.causes().size() - shown) + " more";
      break;
    }
    if (!out.empty()) out += "; ";
    out += common::cutText(cause.field.empty() ? cause.message : cause.field + ": " + cause.message,
                           kMaxCauseBytesInMessage);
    ++shown;
  }
  return out;
}

}  // namespace hetbench::benchmark
