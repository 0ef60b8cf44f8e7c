#include "hetbench/metrics/benchmark_metrics.h"

#include <algorithm>
#include <tuple>

#include "exposition.h"
#include "hetbench/benchmark/baseline.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/results/metrics.h"

namespace hetbench::metrics {
namespace {

using benchmark::TrialResult;
using benchmark::UnitPhase;
using benchmark::UnitRecord;
using nlohmann::json;

constexpr const char* kResults[] = {"Pass",    "Inconclusive",  "Regressed", "NoReference",
                                    "Invalid", "MetricMissing", "Failed"};

/// The mean over the trial's measured units of a total per measured epoch.
std::optional<double> perEpoch(const std::vector<const UnitRecord*>& units, std::string_view name) {
  double sum = 0;
  int n = 0;
  for (const UnitRecord* unit : units) {
    if (unit->phase != UnitPhase::kSucceeded || !unit->metrics) continue;
    const results::UnitSummary& summary = *unit->metrics;
    auto it = summary.values.find(std::string(name));
    if (summary.epochs <= 0 || it == summary.values.end()) continue;
    sum += it->second / static_cast<double>(summary.epochs);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::optional<common::WallTime> lastCompletion(const std::vector<const UnitRecord*>& units) {
  std::optional<common::WallTime> last;
  for (const UnitRecord* unit : units)
    if (unit->completionTime && (!last || *last < *unit->completionTime))
      last = unit->completionTime;
  return last;
}

/// A judged trial from its status.results entry and its units.
FinishedTrial judged(const TrialResult& entry, const std::vector<const UnitRecord*>& units,
                     const results::References& references) {
  FinishedTrial t;
  t.result = results::toString(entry.verdict);
  auto meanOf = [&](std::string_view name) -> std::optional<double> {
    auto it = entry.metrics.find(std::string(name));
    if (it == entry.metrics.end()) return std::nullopt;
    return it->second.stats.mean;
  };
  for (std::string_view name : {results::kEffectiveThroughput, results::kComputeThroughput,
                                results::kComputeFraction, results::kSamplesPerWh}) {
    if (std::optional<double> v = meanOf(name)) t.values[std::string(name)] = *v;
  }
  const std::pair<std::string_view, std::string_view> epochValues[] = {
      {"epoch_seconds", results::kWallSeconds},
      {"io_seconds", results::kIoSeconds},
      {"energy_joules", results::kEnergyJoules}};
  for (const auto& [series, total] : epochValues)
    if (std::optional<double> v = perEpoch(units, total)) t.values[std::string(series)] = *v;
  for (const auto& [metric, configured] : references) {
    const results::Reference reference =
        configured.fromHistory ? benchmark::frozenBaseline(configured, entry, metric) : configured;
    if (reference.value <= 0) continue;  // no baseline yet
    ReferencePoint p;
    p.value = reference.value;
    if (reference.lower) p.lower = reference.value * (1 - *reference.lower);
    if (reference.upper) p.upper = reference.value * (1 + *reference.upper);
    if (std::optional<double> mean = meanOf(metric)) p.ratio = *mean / reference.value;
    t.references[metric] = p;
  }
  return t;
}

/// What an accepted run says about its configurations and ended trials.
struct RunView {
  std::vector<Configuration> byTrial;  // the configuration of each planned trial, by index
  std::vector<FinishedTrial> finished;
};

std::optional<RunView> viewOf(const benchmark::Run& run) {
  const std::optional<benchmark::AcceptedRun> accepted = benchmark::acceptedRun(run);
  if (!accepted) return std::nullopt;
  RunView view;
  view.byTrial = benchmark::trialConfigurations(run.ref.ns, *accepted);
  std::map<std::int64_t, std::vector<const UnitRecord*>> unitsByTrial;
  for (const UnitRecord& unit : run.status.trials) unitsByTrial[unit.trial].push_back(&unit);
  std::map<std::int64_t, const TrialResult*> resultByTrial;
  for (const TrialResult& r : run.status.results) resultByTrial[r.trial] = &r;

  for (const auto& [trial, units] : unitsByTrial) {
    if (trial < 0 || trial >= static_cast<std::int64_t>(view.byTrial.size())) continue;
    FinishedTrial t;
    if (auto r = resultByTrial.find(trial); r != resultByTrial.end()) {
      t = judged(*r->second, units, accepted->references);
    } else {
      auto ended = [](const UnitRecord* u) { return benchmark::isTerminal(u->phase); };
      auto failed = [](const UnitRecord* u) { return benchmark::isFailure(u->phase); };
      auto succeeded = [](const UnitRecord* u) { return u->phase == UnitPhase::kSucceeded; };
      if (!std::all_of(units.begin(), units.end(), ended) ||
          !std::any_of(units.begin(), units.end(), failed) ||
          std::any_of(units.begin(), units.end(), succeeded)) {
        continue;
      }
      t.result = "Failed";
    }
    t.trial = trial;
    t.configuration = view.byTrial[static_cast<std::size_t>(trial)];
    t.completion = lastCompletion(units);
    view.finished.push_back(std::move(t));
  }
  return view;
}

}  // namespace

std::vector<FinishedTrial> finishedTrials(const json& object) {
  std::optional<RunView> view = viewOf(benchmark::readRun(object));
  return view ? std::move(view->finished) : std::vector<FinishedTrial>{};
}

void BenchmarkMetrics::observe(const json& object) {
  const benchmark::Run run = benchmark::readRun(object);
  if (run.ref.uid.empty()) return;
  std::string phase = run.status.phase.empty() ? "Pending" : run.status.phase;
  std::optional<RunView> view = viewOf(run);
  const std::set<Configuration> planned =
      view ? std::set<Configuration>(view->byTrial.begin(), view->byTrial.end())
           : std::set<Configuration>{};
  std::vector<FinishedTrial> trials =
      view ? std::move(view->finished) : std::vector<FinishedTrial>{};
  std::lock_guard lock(mu_);
  phases_[run.ref.uid] = {run.ref.ns, std::move(phase)};
  // Every result's counter exists from the moment a configuration is planned, so that its
  // first increase is one Prometheus sees (a series born at 1 has no increase).
  for (const Configuration& c : planned)
    for (const char* result : kResults) results_.try_emplace({c, result}, 0);
  std::set<std::int64_t>& counted = counted_[run.ref.uid];
  for (const FinishedTrial& t : trials)
    if (counted.insert(t.trial).second) results_[{t.configuration, t.result}] += 1;
  trials_[run.ref.uid] = std::move(trials);
}

void BenchmarkMetrics::forget(const json& object) {
  const benchmark::Run run = benchmark::readRun(object);
  std::lock_guard lock(mu_);
  phases_.erase(run.ref.uid);
  trials_.erase(run.ref.uid);
  counted_.erase(run.ref.uid);
}

namespace {

using detail::family;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric sample(const Configuration& c, double value,
                    std::initializer_list<ClientMetric::Label> extra = {}) {
  std::vector<ClientMetric::Label> labels = detail::configurationLabels(c);
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

/// Per configuration, its latest judged trial and how many of its latest trials failed in a row.
struct Latest {
  std::map<Configuration, const FinishedTrial*> judged;
  std::map<Configuration, int> failedInARow;
};

Latest latestOf(const std::map<std::string, std::vector<FinishedTrial>>& trialsByRun) {
  using Ranked = std::pair<const FinishedTrial*, const std::string*>;  // the trial, its run's uid
  std::map<Configuration, std::vector<Ranked>> history;
  for (const auto& [uid, trials] : trialsByRun)
    for (const FinishedTrial& t : trials) history[t.configuration].emplace_back(&t, &uid);
  Latest out;
  for (auto& [config, ranked] : history) {
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      return later(*b.first, *b.second, *a.first, *a.second);
    });
    int failures = 0;
    for (auto it = ranked.rbegin(); it != ranked.rend() && failed(*it->first); ++it) ++failures;
    out.failedInARow[config] = failures;
    for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
      if (it->first->result == "Failed") continue;
      out.judged.emplace(config, it->first);
      break;
    }
  }
  return out;
}

/// The series of each configuration's latest judged trial: references, verdict, completion.
void addJudgedFamilies(const std::map<Configuration, const FinishedTrial*>& latest,
                       std::vector<MetricFamily>& out) {
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
    const FinishedTrial& t = *chosen;
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
  for (MetricFamily* f : {&reference, &lower, &upper, &ratio, &regressed, &verdict, &completion})
    out.push_back(std::move(*f));
}

}  // namespace

std::vector<MetricFamily> BenchmarkMetrics::Collect() const {
  if (exporting_ && !exporting_()) return {};
  std::lock_guard lock(mu_);
  const Latest latest = latestOf(trials_);
  std::vector<MetricFamily> out;
  for (const Family& f : kValueFamilies) {
    MetricFamily m = family(f.name, f.help, MetricType::Gauge);
    for (const auto& [config, chosen] : latest.judged) {
      auto v = chosen->values.find(std::string(f.value));
      if (v != chosen->values.end()) m.metric.push_back(sample(config, v->second));
    }
    out.push_back(std::move(m));
  }
  addJudgedFamilies(latest.judged, out);
  MetricFamily inARow = family("hetbench_benchmark_consecutive_failures",
                               "How many of the configuration's latest trials failed in a row "
                               "(Failed or MetricMissing); 0 after a judged trial.",
                               MetricType::Gauge);
  for (const auto& [config, n] : latest.failedInARow) inARow.metric.push_back(sample(config, n));
  out.push_back(std::move(inARow));

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

}  // namespace hetbench::metrics
