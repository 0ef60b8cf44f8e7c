#include "hetbench/controller/benchmark_metrics.h"

#include <algorithm>
#include <tuple>

#include "exposition.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/controller/run_status.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/metrics.h"
#include "hetbench/results/reference.h"
#include "hetbench/results/summary.h"
#include "history_baseline.h"

namespace hetbench::controller {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

constexpr const char* kResults[] = {"Pass", "Regressed", "NoReference", "MetricMissing", "Failed"};

Configuration configurationOf(const json& run, const benchmark::RunSpec& spec,
                              const benchmark::Params& params) {
  Configuration c;
  c.ns = stringMember(member(run, "metadata"), "namespace");
  c.benchmark = benchmark::toString(spec.benchmark);
  c.system = spec.system;
  c.accelerators = "0";
  if (!spec.workload) return c;
  common::Result<benchmark::Workload> workload = benchmark::trialWorkload(spec, params);
  if (!workload.isOk()) return c;
  const benchmark::Workload& w = workload.value();
  c.accelerator = w.accelerator.product.empty() ? w.accelerator.resource : w.accelerator.product;
  c.accelerators = std::to_string(w.accelerator.count * w.nodes);
  c.nodes = std::to_string(w.nodes);
  if (w.training.batchSize) c.batchSize = std::to_string(*w.training.batchSize);
  c.precision = w.training.precision;
  return c;
}

results::References referencesOf(const benchmark::RunSpec& spec) {
  common::Result<std::vector<results::MetricSpec>> specs = results::parseMetricSpecs(spec.metrics);
  if (!specs.isOk()) return {};
  common::Result<results::References> references =
      results::parseReferences(spec.references, results::metricUnits(specs.value()));
  return references.isOk() ? references.value() : results::References{};
}

std::optional<double> meanOf(const json& metrics, std::string_view name) {
  const json& mean = member(member(metrics, name), "mean");
  if (!mean.is_number()) return std::nullopt;
  return mean.get<double>();
}

/// The mean over the trial's measured units of a total per measured epoch.
std::optional<double> perEpoch(const std::vector<results::UnitSummary>& measured,
                               std::string_view name) {
  double sum = 0;
  int n = 0;
  for (const results::UnitSummary& summary : measured) {
    auto it = summary.values.find(std::string(name));
    if (summary.epochs <= 0 || it == summary.values.end()) continue;
    sum += it->second / static_cast<double>(summary.epochs);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::optional<common::WallTime> lastCompletion(const std::vector<UnitRecord>& units) {
  std::optional<common::WallTime> last;
  for (const UnitRecord& unit : units)
    if (unit.completionTime && (!last || *last < *unit.completionTime)) last = unit.completionTime;
  return last;
}

/// A judged trial from its status.results entry and its units.
FinishedTrial judged(const json& entry, const std::vector<UnitRecord>& units,
                     const results::References& references) {
  FinishedTrial t;
  t.result = stringMember(entry, "verdict");
  const json& metrics = member(entry, "metrics");
  for (std::string_view name : {results::kEffectiveThroughput, results::kComputeThroughput,
                                results::kComputeFraction, results::kSamplesPerWh}) {
    if (std::optional<double> v = meanOf(metrics, name)) t.values[std::string(name)] = *v;
  }
  std::vector<results::UnitSummary> measured;
  for (const UnitRecord& unit : units)
    if (unit.phase == UnitPhase::kSucceeded)
      measured.push_back(results::unitSummaryFromJson(unit.metrics));
  const std::pair<std::string_view, std::string_view> epochValues[] = {
      {"epoch_seconds", results::kWallSeconds},
      {"io_seconds", results::kIoSeconds},
      {"energy_joules", results::kEnergyJoules}};
  for (const auto& [series, total] : epochValues)
    if (std::optional<double> v = perEpoch(measured, total)) t.values[std::string(series)] = *v;
  for (const auto& [metric, configured] : references) {
    const results::Reference reference =
        configured.fromHistory ? detail::frozenBaseline(configured, entry, metric) : configured;
    if (reference.value <= 0) continue;  // no baseline yet
    ReferencePoint p;
    p.value = reference.value;
    if (reference.lower) p.lower = reference.value * (1 - *reference.lower);
    if (reference.upper) p.upper = reference.value * (1 + *reference.upper);
    if (std::optional<double> mean = meanOf(metrics, metric)) p.ratio = *mean / reference.value;
    t.references[metric] = p;
  }
  return t;
}

/// What an accepted run says about its configurations and ended trials, from its accepted
/// spec, parsed once.
struct RunView {
  std::vector<Configuration> byTrial;  // the configuration of each planned trial, by index
  std::vector<FinishedTrial> finished;
};

/// The run's accepted spec; none when it has not been accepted or does not parse.
std::optional<benchmark::RunSpec> acceptedSpec(const json& run) {
  const std::string acceptedText = stringMember(member(member(run, "metadata"), "annotations"),
                                                benchmark::kAcceptedSpecAnnotation);
  if (acceptedText.empty()) return std::nullopt;
  common::Result<benchmark::RunSpec> parsed =
      benchmark::parseRunSpec(json::parse(acceptedText, nullptr, false));
  if (!parsed.isOk()) return std::nullopt;
  return std::move(parsed).value();
}

std::vector<Configuration> configurationsOf(const json& run, const benchmark::RunSpec& spec) {
  std::vector<Configuration> byTrial;
  for (const benchmark::Params& params : benchmark::planTrials(spec.matrix))
    byTrial.push_back(configurationOf(run, spec, params));
  return byTrial;
}

std::optional<RunView> readRun(const json& run) {
  const std::optional<benchmark::RunSpec> accepted = acceptedSpec(run);
  if (!accepted) return std::nullopt;
  const benchmark::RunSpec& spec = *accepted;
  RunView view;
  view.byTrial = configurationsOf(run, spec);

  const json& status = member(run, "status");
  std::map<std::int64_t, std::vector<UnitRecord>> unitsByTrial;
  if (const json& trials = member(status, "trials"); trials.is_array()) {
    for (const json& t : trials) {
      UnitRecord unit = unitFromJson(t);
      unitsByTrial[unit.trial].push_back(std::move(unit));
    }
  }
  std::map<std::int64_t, const json*> resultByTrial;
  if (const json& results = member(status, "results"); results.is_array()) {
    for (const json& r : results)
      if (r.is_object() && member(r, "trial").is_number_integer())
        resultByTrial[r["trial"].get<std::int64_t>()] = &r;
  }

  const results::References references = referencesOf(spec);
  for (const auto& [trial, units] : unitsByTrial) {
    if (trial < 0 || trial >= static_cast<std::int64_t>(view.byTrial.size())) continue;
    FinishedTrial t;
    if (auto r = resultByTrial.find(trial); r != resultByTrial.end()) {
      t = judged(*r->second, units, references);
    } else {
      const bool ended = std::all_of(units.begin(), units.end(),
                                     [](const UnitRecord& u) { return isTerminal(u.phase); });
      const bool failed = std::any_of(units.begin(), units.end(),
                                      [](const UnitRecord& u) { return isFailure(u.phase); });
      const bool succeeded = std::any_of(units.begin(), units.end(), [](const UnitRecord& u) {
        return u.phase == UnitPhase::kSucceeded;
      });
      if (!ended || !failed || succeeded) continue;
      t.result = "Failed";
    }
    t.trial = trial;
    t.configuration = view.byTrial[static_cast<std::size_t>(trial)];
    t.completion = lastCompletion(units);
    view.finished.push_back(std::move(t));
  }
  return view;
}

std::vector<Configuration> distinct(const std::vector<Configuration>& configurations) {
  const std::set<Configuration> unique(configurations.begin(), configurations.end());
  return {unique.begin(), unique.end()};
}

}  // namespace

std::vector<Configuration> plannedConfigurations(const json& run) {
  return distinct(trialConfigurations(run));
}

std::vector<Configuration> trialConfigurations(const json& run) {
  const std::optional<benchmark::RunSpec> accepted = acceptedSpec(run);
  return accepted ? configurationsOf(run, *accepted) : std::vector<Configuration>{};
}

std::vector<FinishedTrial> finishedTrials(const json& run) {
  std::optional<RunView> view = readRun(run);
  return view ? std::move(view->finished) : std::vector<FinishedTrial>{};
}

void BenchmarkMetrics::observe(const json& run) {
  const std::string uid = stringMember(member(run, "metadata"), "uid");
  if (uid.empty()) return;
  std::string phase = stringMember(member(run, "status"), "phase");
  if (phase.empty()) phase = "Pending";
  std::optional<RunView> view = readRun(run);
  const std::vector<Configuration> planned =
      view ? distinct(view->byTrial) : std::vector<Configuration>{};
  std::vector<FinishedTrial> trials =
      view ? std::move(view->finished) : std::vector<FinishedTrial>{};
  std::lock_guard lock(mu_);
  phases_[uid] = {stringMember(member(run, "metadata"), "namespace"), std::move(phase)};
  // Every result's counter exists from the moment a configuration is planned, so that its
  // first increase is one Prometheus sees (a series born at 1 has no increase).
  for (const Configuration& c : planned)
    for (const char* result : kResults) results_.try_emplace({c, result}, 0);
  std::set<std::int64_t>& counted = counted_[uid];
  for (const FinishedTrial& t : trials)
    if (counted.insert(t.trial).second) results_[{t.configuration, t.result}] += 1;
  trials_[uid] = std::move(trials);
}

void BenchmarkMetrics::forget(const json& run) {
  const std::string uid = stringMember(member(run, "metadata"), "uid");
  std::lock_guard lock(mu_);
  phases_.erase(uid);
  trials_.erase(uid);
  counted_.erase(uid);
}

namespace {

using detail::family;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::vector<ClientMetric::Label> labelsOf(const Configuration& c) {
  return {{"namespace", c.ns},
          {"benchmark", c.benchmark},
          {"system", c.system},
          {"accelerator", c.accelerator},
          {"accelerators", c.accelerators},
          {"nodes", c.nodes},
          {"batch_size", c.batchSize},
          {"precision", c.precision}};
}

ClientMetric sample(const Configuration& c, double value,
                    std::initializer_list<ClientMetric::Label> extra = {}) {
  std::vector<ClientMetric::Label> labels = labelsOf(c);
  labels.insert(labels.end(), extra.begin(), extra.end());
  return detail::sample(value, std::move(labels));
}

/// Which of two trials of one configuration is the later: by completion, then by run and trial
/// so that the choice does not depend on the order runs were seen.
bool later(const FinishedTrial& a, const std::string& aRun, const FinishedTrial& b,
           const std::string& bRun) {
  return std::tie(a.completion, aRun, a.trial) > std::tie(b.completion, bRun, b.trial);
}

/// A trial that failed to produce what it should: no repetition succeeded, or a metric the
/// spec requires is missing.
bool failed(const FinishedTrial& t) { return t.result == "Failed" || t.result == "MetricMissing"; }

struct Family {
  const char* name;
  const char* help;
  std::string_view value;  // the FinishedTrial value it shows
};

constexpr Family kValueFamilies[] = {
    {"hetbench_benchmark_effective_throughput_samples_per_second",
     "Samples per second over whole epochs, I/O included, of the latest judged trial.",
     "effective_throughput"},
    {"hetbench_benchmark_compute_throughput_samples_per_second",
     "Samples per second of compute time alone, of the latest judged trial.", "compute_throughput"},
    {"hetbench_benchmark_compute_fraction",
     "Compute time over epoch wall time (0 to 1), of the latest judged trial.", "compute_fraction"},
    {"hetbench_benchmark_epoch_seconds",
     "Mean wall seconds per measured epoch, of the latest judged trial.", "epoch_seconds"},
    {"hetbench_benchmark_io_seconds",
     "Mean I/O seconds per measured epoch, of the latest judged trial.", "io_seconds"},
    {"hetbench_benchmark_energy_joules",
     "Mean accelerator energy per measured epoch in joules, of the latest judged trial, where "
     "measured.",
     "energy_joules"},
    {"hetbench_benchmark_samples_per_watt_hour",
     "Samples per watt-hour of accelerator energy, of the latest judged trial, where measured.",
     "samples_per_wh"},
};

}  // namespace

std::vector<MetricFamily> BenchmarkMetrics::Collect() const {
  if (exporting_ && !exporting_()) return {};
  std::lock_guard lock(mu_);
  using Ranked = std::pair<const FinishedTrial*, const std::string*>;  // the trial, its run's uid
  std::map<Configuration, std::vector<Ranked>> history;
  for (const auto& [uid, trials] : trials_)
    for (const FinishedTrial& t : trials) history[t.configuration].emplace_back(&t, &uid);
  std::map<Configuration, Ranked> latest;
  std::map<Configuration, int> failedInARow;
  for (auto& [config, ranked] : history) {
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      return later(*b.first, *b.second, *a.first, *a.second);
    });
    int failures = 0;
    for (auto it = ranked.rbegin(); it != ranked.rend() && failed(*it->first); ++it) ++failures;
    failedInARow[config] = failures;
    for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
      if (it->first->result == "Failed") continue;
      latest.emplace(config, *it);
      break;
    }
  }

  std::vector<MetricFamily> out;
  for (const Family& f : kValueFamilies) {
    MetricFamily m = family(f.name, f.help, MetricType::Gauge);
    for (const auto& [config, chosen] : latest) {
      auto v = chosen.first->values.find(std::string(f.value));
      if (v != chosen.first->values.end()) m.metric.push_back(sample(config, v->second));
    }
    out.push_back(std::move(m));
  }

  MetricFamily reference =
      family("hetbench_benchmark_reference", "The reference value of a metric, in its unit.",
             MetricType::Gauge);
  MetricFamily lower =
      family("hetbench_benchmark_reference_lower",
             "The lower bound of a metric's reference band, where it has one.", MetricType::Gauge);
  MetricFamily upper =
      family("hetbench_benchmark_reference_upper",
             "The upper bound of a metric's reference band, where it has one.", MetricType::Gauge);
  MetricFamily ratio = family(
      "hetbench_benchmark_reference_ratio",
      "The latest judged trial's mean of a metric over its reference value.", MetricType::Gauge);
  MetricFamily regressed =
      family("hetbench_benchmark_regressed",
             "1 when the latest judged trial regressed against a reference.", MetricType::Gauge);
  MetricFamily verdict = family("hetbench_benchmark_verdict",
                                "1 for the verdict of the latest judged trial.", MetricType::Gauge);
  MetricFamily completion =
      family("hetbench_benchmark_completion_timestamp_seconds",
             "When the latest judged trial's last repetition ended.", MetricType::Gauge);
  for (const auto& [config, chosen] : latest) {
    const FinishedTrial& t = *chosen.first;
    for (const auto& [metric, p] : t.references) {
      reference.metric.push_back(sample(config, p.value, {{"metric", metric}}));
      if (p.lower) lower.metric.push_back(sample(config, *p.lower, {{"metric", metric}}));
      if (p.upper) upper.metric.push_back(sample(config, *p.upper, {{"metric", metric}}));
      if (p.ratio) ratio.metric.push_back(sample(config, *p.ratio, {{"metric", metric}}));
    }
    regressed.metric.push_back(sample(config, t.result == "Regressed" ? 1 : 0));
    verdict.metric.push_back(sample(config, 1, {{"verdict", t.result}}));
    if (t.completion) {
      completion.metric.push_back(
          sample(config, std::chrono::duration<double>(t.completion->time_since_epoch()).count()));
    }
  }
  MetricFamily inARow = family("hetbench_benchmark_consecutive_failures",
                               "How many of the configuration's latest trials failed in a row "
                               "(Failed or MetricMissing); 0 after a judged trial.",
                               MetricType::Gauge);
  for (const auto& [config, n] : failedInARow) inARow.metric.push_back(sample(config, n));
  for (MetricFamily* f :
       {&reference, &lower, &upper, &ratio, &regressed, &verdict, &completion, &inARow})
    out.push_back(std::move(*f));

  MetricFamily trials = family("hetbench_benchmark_trials_total",
                               "Trials that ended, by result (a verdict, or Failed when no "
                               "repetition succeeded).",
                               MetricType::Counter);
  for (const auto& [key, count] : results_)
    trials.metric.push_back(sample(key.first, count, {{"result", key.second}}));
  out.push_back(std::move(trials));

  std::map<std::pair<std::string, std::string>, int> byPhase;
  for (const auto& [uid, phase] : phases_) ++byPhase[phase];
  MetricFamily runs =
      family("hetbench_runs", "BenchmarkRuns by namespace and phase.", MetricType::Gauge);
  for (const auto& [key, n] : byPhase)
    runs.metric.push_back(detail::sample(n, {{"namespace", key.first}, {"phase", key.second}}));
  out.push_back(std::move(runs));
  return out;
}

}  // namespace hetbench::controller
