#include "hetbench/controller/series_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "hetbench/benchmark/confirmation.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

/// The points of one run for one series, and what the series is about.
struct Pending {
  benchmark::SeriesSpec spec;
  std::vector<benchmark::SeriesPoint> points;
};

/// A series of the run's trials, read and judged, to be written.
struct Judged {
  std::string name;
  json series;
  benchmark::SeriesSpec spec;
  benchmark::SeriesStatus status;
  std::vector<benchmark::SeriesChange> before;
  /// The "run uid/trial" of the run's points for it, and those it did not have yet.
  std::vector<std::string> keys;
  std::set<std::string> added;
};

std::string keyOf(const std::string& runUid, std::int64_t trial) {
  return runUid + "/" + std::to_string(trial);
}

json newSeries(const std::string& ns, const std::string& name, const benchmark::SeriesSpec& spec) {
  return {{"apiVersion", std::string(benchmark::kApiVersion)},
          {"kind", std::string(benchmark::kSeriesKind)},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", benchmark::toJson(spec)}};
}

bool worse(const benchmark::SeriesSpec& spec, double magnitude) {
  return spec.direction == results::Direction::kHigher ? magnitude < 0 : magnitude > 0;
}

}  // namespace

void SeriesReconciler::noteChanges(const json& series, const benchmark::SeriesSpec& spec,
                                   const std::vector<benchmark::SeriesChange>& before,
                                   const benchmark::SeriesStatus& status,
                                   const std::set<std::string>& added, bool suspect) {
  for (const benchmark::SeriesChange& change : status.changes) {
    const bool known = std::any_of(before.begin(), before.end(), [&](const auto& b) {
      return std::tie(b.time, b.run) == std::tie(change.time, change.run);
    });
    if (known) continue;
    char text[256];
    std::snprintf(text, sizeof text, "%s changed by %+.1f%% at run %s (%s): %.4g -> %.4g",
                  spec.metric.c_str(), change.magnitude * 100, change.run.c_str(),
                  common::formatRfc3339(change.time).c_str(), change.before, change.after);
    std::string message = text;
    for (const std::string& what : change.changed) message += "; " + what;
    events_.event(
        series,
        worse(spec, change.magnitude) ? kube::EventType::kWarning : kube::EventType::kNormal,
        std::string(benchmark::reason::kChangePoint), message);
  }
  const benchmark::SeriesPoint* latest = benchmark::latestJudged(status.points);
  if (latest != nullptr && suspect && added.contains(keyOf(latest->runUid, latest->trial))) {
    events_.event(
        series, kube::EventType::kWarning, std::string(benchmark::reason::kTrialSuspect),
        "run " + latest->run + " trial " + std::to_string(latest->trial) + ": " + status.message);
  }
}

SeriesReconciler::SeriesReconciler(kube::KubeClient& client, const RunCache& cache,
                                   const common::Clock& clock, kube::EventRecorder& events,
                                   benchmark::SeriesOptions options)
    : client_(client),
      cache_(cache),
      clock_(clock),
      events_(events),
      options_(std::move(options)) {}

common::Status SeriesReconciler::createReruns(const std::string& ns, const json& series,
                                              const benchmark::SeriesConfirmation& confirmation) {
  if (confirmation.state != benchmark::reason::kConfirming) return {};
  const std::optional<benchmark::Run> original = suspectRun(ns, confirmation);
  if (!original) return {};  // reconcileRerun ends the confirmation
  for (const benchmark::Rerun& rerun : confirmation.reruns) {
    if (rerun.done || cache_.run(ns, rerun.name)) continue;
    benchmark::Params parameters;
    for (const benchmark::TrialResult& result : original->status.results) {
      if (result.trial == confirmation.trial) parameters = result.parameters;
    }
    const common::Result<json> created =
        client_.create(kBenchmarkRuns, ns,
                       benchmark::rerunRun(*original, parameters, confirmation, rerun, series));
    if (!created.isOk() && !created.status().isAlreadyExists()) return created.status();
  }
  return {};
}

std::optional<benchmark::Run> SeriesReconciler::suspectRun(
    const std::string& ns, const benchmark::SeriesConfirmation& confirmation) const {
  const std::optional<json> object = cache_.run(ns, confirmation.run);
  if (!object) return std::nullopt;
  benchmark::Run run = benchmark::readRun(*object);
  if (run.ref.uid != confirmation.runUid) return std::nullopt;
  return run;
}

void SeriesReconciler::noteConfirmation(const std::string& ns, const json& series,
                                        const benchmark::SeriesConfirmation& confirmation) {
  const bool started = confirmation.state == benchmark::reason::kConfirming;
  const bool bad = confirmation.state == benchmark::reason::kRegressed ||
                   confirmation.state == benchmark::reason::kNodeSuspect ||
                   confirmation.state == benchmark::reason::kInconclusive;
  const kube::EventType type = bad ? kube::EventType::kWarning : kube::EventType::kNormal;
  const std::string message = "run " + confirmation.run + " trial " +
                              std::to_string(confirmation.trial) + ": " + confirmation.message;
  events_.event(series, type, confirmation.state, message);
  if (const std::optional<json> run = cache_.run(ns, confirmation.run);
      run && suspectRun(ns, confirmation)) {
    events_.event(
        *run, type, confirmation.state,
        (started ? "" : "series " + common::stringMember(series["metadata"], "name") + ": ") +
            message);
  }
}

std::string SeriesReconciler::seriesKey(const json& series) {
  const json& meta = common::member(series, "metadata");
  return "series/" + common::stringMember(meta, "namespace") + "/" +
         common::stringMember(meta, "name");
}

common::Result<std::optional<json>> SeriesReconciler::existingSeries(const std::string& ns,
                                                                     const std::string& name) {
  common::Result<json> current = client_.get(kBenchmarkSeries, ns, name);
  if (current.isOk()) return std::optional<json>(std::move(current).value());
  if (current.status().isNotFound()) return std::optional<json>();
  return current.status();
}

common::Result<ReconcileResult> SeriesReconciler::rejudge(const std::string& ns,
                                                          const std::string& name) {
  HETBENCH_ASSIGN_OR_RETURN(std::optional<json> found, existingSeries(ns, name));
  if (!found) return ReconcileResult{};
  json series = std::move(*found);
  benchmark::Series read = benchmark::readSeries(series);
  const json before = benchmark::toJson(read.status);
  benchmark::judgeSeries(read.spec, read.status, options_);
  benchmark::settleSeriesState(read.status);
  json after = benchmark::toJson(read.status);
  if (after == before) return ReconcileResult{};
  series["status"] = std::move(after);
  common::Result<json> written = client_.updateStatus(kBenchmarkSeries, ns, series);
  if (!written.isOk()) return written.status();
  spdlog::info("series {}/{}: judged again for its spec, state {}", ns, name,
               read.status.state.empty() ? "none" : read.status.state);
  return ReconcileResult{};
}

common::Result<ReconcileResult> SeriesReconciler::reconcileRerun(const std::string& ns,
                                                                 const benchmark::Run& rerun) {
  const auto label = rerun.labels.find(std::string(benchmark::kSeriesLabel));
  if (label == rerun.labels.end() || !served()) return ReconcileResult{};
  HETBENCH_ASSIGN_OR_RETURN(std::optional<json> found, existingSeries(ns, label->second));
  if (!found) return ReconcileResult{};
  json series = std::move(*found);
  benchmark::Series read = benchmark::readSeries(series);
  const benchmark::SeriesSpec& spec = read.spec;
  benchmark::SeriesStatus& status = read.status;
  const bool confirming =
      status.confirmation && status.confirmation->state == benchmark::reason::kConfirming;
  if (!confirming) {
    HETBENCH_RETURN_IF_ERROR(stopRerun(ns, rerun));
    return ReconcileResult{};
  }
  benchmark::SeriesConfirmation& confirmation = *status.confirmation;
  const auto record =
      std::find_if(confirmation.reruns.begin(), confirmation.reruns.end(),
                   [&](const benchmark::Rerun& r) { return r.name == rerun.ref.name; });
  if (record == confirmation.reruns.end()) HETBENCH_RETURN_IF_ERROR(stopRerun(ns, rerun));
  if (record == confirmation.reruns.end() || record->done) {
    HETBENCH_RETURN_IF_ERROR(createReruns(ns, series, confirmation));
    return ReconcileResult{};
  }
  if (rerun.status.phase != "Succeeded" && rerun.status.phase != "Failed" &&
      rerun.status.phase != "Cancelled") {
    return ReconcileResult{};
  }
  record->done = true;
  for (const benchmark::TrialResult& result : rerun.status.results) {
    const auto metric = result.metrics.find(spec.metric);
    const bool judged = result.verdict != results::Verdict::kInvalid &&
                        result.verdict != results::Verdict::kMetricMissing;
    if (metric != result.metrics.end() && judged) record->value = metric->second.stats.mean;
  }
  std::set<std::string> nodes;
  for (const benchmark::UnitRecord& unit : rerun.status.trials) {
    nodes.insert(unit.nodes.begin(), unit.nodes.end());
  }
  record->nodes.assign(nodes.begin(), nodes.end());
  const std::string gave = record->value ? std::to_string(*record->value) : "no value";
  benchmark::advanceConfirmation(label->second, spec, confirmation, clock_.now());
  const bool toMake =
      std::any_of(confirmation.reruns.begin(), confirmation.reruns.end(),
                  [&](const benchmark::Rerun& r) { return !r.done && !cache_.run(ns, r.name); });
  if (confirmation.state == benchmark::reason::kConfirming && toMake &&
      !suspectRun(ns, confirmation)) {
    confirmation.state = benchmark::reason::kInconclusive;
    confirmation.message = "run " + confirmation.run +
                           " of the suspect trial is gone, so its next reruns cannot be made; " +
                           confirmation.message;
    confirmation.completionTime = clock_.now();
  }
  benchmark::settleSeriesState(status);
  series["status"] = benchmark::toJson(status);
  common::Result<json> written = client_.updateStatus(kBenchmarkSeries, ns, series);
  if (!written.isOk()) return written.status();
  series = std::move(written).value();
  spdlog::info("series {}/{}: rerun {} gave {}, confirmation {}", ns, label->second, rerun.ref.name,
               gave, confirmation.state);
  if (confirmation.state != benchmark::reason::kConfirming) {
    noteConfirmation(ns, series, confirmation);
    // The verdict is in: reruns still under way would hold accelerators for nothing.
    for (const benchmark::Rerun& r : confirmation.reruns) {
      if (r.done) continue;
      if (const std::optional<json> object = cache_.run(ns, r.name)) {
        HETBENCH_RETURN_IF_ERROR(stopRerun(ns, benchmark::readRun(*object)));
      }
    }
  }
  HETBENCH_RETURN_IF_ERROR(createReruns(ns, series, confirmation));
  return ReconcileResult{};
}

common::Status SeriesReconciler::stopRerun(const std::string& ns, const benchmark::Run& rerun) {
  const std::string& phase = rerun.status.phase;
  if (rerun.suspended() || phase == "Succeeded" || phase == "Failed" || phase == "Cancelled") {
    return {};
  }
  std::optional<json> object = cache_.run(ns, rerun.ref.name);
  if (!object) return {};
  (*object)["spec"]["suspend"] = true;
  const common::Result<json> updated = client_.update(kBenchmarkRuns, ns, *object);
  if (!updated.isOk() && !updated.status().isNotFound()) return updated.status();
  spdlog::info("series: rerun {}/{} is no longer needed: suspended", ns, rerun.ref.name);
  return {};
}

bool SeriesReconciler::served() {
  {
    std::lock_guard lock(mu_);
    if (served_) return true;
  }
  if (!client_.resourceFor(kBenchmarkSeries.apiVersion(), std::string(benchmark::kSeriesKind))
           .isOk()) {
    return false;
  }
  std::lock_guard lock(mu_);
  served_ = true;
  return true;
}

bool SeriesReconciler::recorded(const std::string& run, const std::string& key) const {
  std::lock_guard lock(mu_);
  const auto it = recorded_.find(run);
  return it != recorded_.end() && it->second.contains(key);
}

common::Result<ReconcileResult> SeriesReconciler::reconcile(const std::string& ns,
                                                            const std::string& name) {
  const std::string runKey = ns + "/" + name;
  const std::optional<json> object = cache_.run(ns, name);
  if (!object) {
    // Gone: what this process remembers of it goes too, so that memory follows the live runs.
    std::lock_guard lock(mu_);
    recorded_.erase(runKey);
    return ReconcileResult{};
  }
  const benchmark::Run run = benchmark::readRun(*object);
  if (run.labels.contains(std::string(benchmark::kConfirmsLabel))) return reconcileRerun(ns, run);
  if (run.status.results.empty()) return ReconcileResult{};
  const std::optional<benchmark::AcceptedRun> accepted = benchmark::acceptedRun(run);
  if (!accepted) return ReconcileResult{};
  const std::vector<benchmark::Configuration> configurations =
      benchmark::trialConfigurations(ns, *accepted);
  std::map<std::string, Pending> pending;  // by series name
  for (const benchmark::TrialResult& result : run.status.results) {
    if (result.trial < 0 || result.trial >= static_cast<std::int64_t>(configurations.size()) ||
        recorded(runKey, keyOf(run.ref.uid, result.trial))) {
      continue;
    }
    const std::string metric = benchmark::seriesMetric(*accepted, result);
    if (metric.empty()) continue;
    std::optional<benchmark::SeriesPoint> point =
        benchmark::seriesPoint(run, *accepted, result, metric);
    if (!point) continue;
    const benchmark::Configuration& configuration =
        configurations[static_cast<std::size_t>(result.trial)];
    Pending& p = pending[benchmark::seriesName(configuration)];
    p.spec.configuration = configuration;
    p.spec.metric = metric;
    const auto reference = accepted->references.find(metric);
    if (reference != accepted->references.end()) p.spec.direction = reference->second.direction;
    p.points.push_back(std::move(*point));
  }
  if (pending.empty() || !served()) return ReconcileResult{};

  // First every series of the run's trials is read and judged, so that the trials are judged
  // together (controlFalseDiscoveries); then each is written.
  std::vector<Judged> judged;
  for (auto& [seriesName, p] : pending) {
    common::Result<json> current = client_.get(kBenchmarkSeries, ns, seriesName);
    if (!current.isOk() && current.status().isNotFound()) {
      current = client_.create(kBenchmarkSeries, ns, newSeries(ns, seriesName, p.spec));
      if (!current.isOk() && current.status().isAlreadyExists()) {
        current = client_.get(kBenchmarkSeries, ns, seriesName);
      }
    }
    if (!current.isOk()) return current.status();
    Judged& j = judged.emplace_back();
    j.name = seriesName;
    j.series = std::move(current).value();
    benchmark::Series read = benchmark::readSeries(j.series);
    j.spec = std::move(read.spec);
    j.status = std::move(read.status);
    j.before = j.status.changes;
    for (benchmark::SeriesPoint& point : p.points) {
      const std::string key = keyOf(point.runUid, point.trial);
      j.keys.push_back(key);
      // A series follows the one metric it was created for.
      if (j.spec.metric != p.spec.metric) continue;
      if (benchmark::addSeriesPoint(j.status.points, std::move(point))) j.added.insert(key);
    }
    if (!j.added.empty()) benchmark::judgeSeries(j.spec, j.status, options_);
  }
  std::vector<benchmark::JudgedSeries> latestOfRun;
  for (Judged& j : judged) {
    const benchmark::SeriesPoint* latest = benchmark::latestJudged(j.status.points);
    if (latest != nullptr && j.added.contains(keyOf(latest->runUid, latest->trial))) {
      latestOfRun.push_back({&j.spec, &j.status});
    }
  }
  benchmark::controlFalseDiscoveries(latestOfRun, options_);

  for (Judged& j : judged) {
    if (!j.added.empty()) {
      const benchmark::SeriesPoint* latest = benchmark::latestJudged(j.status.points);
      std::optional<benchmark::SeriesConfirmation> started;
      if (accepted->spec.confirm && latest != nullptr &&
          j.added.contains(keyOf(latest->runUid, latest->trial))) {
        started = benchmark::startConfirmation(j.name, j.spec, j.status, *accepted->spec.confirm,
                                               clock_.now(), options_);
      }
      if (started) j.status.confirmation = started;
      const bool suspect = j.status.state == results::toString(results::Screen::kSuspect);
      benchmark::settleSeriesState(j.status);
      j.series["status"] = benchmark::toJson(j.status);
      common::Result<json> written = client_.updateStatus(kBenchmarkSeries, ns, j.series);
      if (!written.isOk()) return written.status();  // a conflict: read again when retried
      j.series = std::move(written).value();
      noteChanges(j.series, j.spec, j.before, j.status, j.added, suspect);
      spdlog::info("series {}/{}: {} point(s) from run {}, state {}", ns, j.name, j.added.size(),
                   name, j.status.state);
      if (started) {
        noteConfirmation(ns, j.series, *started);
        {
          std::lock_guard lock(mu_);
          recorded_[runKey].insert(j.keys.begin(), j.keys.end());
        }
        HETBENCH_RETURN_IF_ERROR(createReruns(ns, j.series, *started));
        continue;
      }
    }
    std::lock_guard lock(mu_);
    recorded_[runKey].insert(j.keys.begin(), j.keys.end());
  }
  return ReconcileResult{};
}

}  // namespace hetbench::controller
