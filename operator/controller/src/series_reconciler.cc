#include "hetbench/controller/series_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/time.h"

namespace hetbench::controller {
namespace {

using nlohmann::json;

/// The points of one run for one series, and what the series is about.
struct Pending {
  benchmark::SeriesSpec spec;
  std::vector<benchmark::SeriesPoint> points;
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
                                   const std::set<std::string>& added) {
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
  if (latest != nullptr && status.state == results::toString(results::Screen::kSuspect) &&
      added.contains(keyOf(latest->runUid, latest->trial))) {
    events_.event(
        series, kube::EventType::kWarning, std::string(benchmark::reason::kTrialSuspect),
        "run " + latest->run + " trial " + std::to_string(latest->trial) + ": " + status.message);
  }
}

SeriesReconciler::SeriesReconciler(kube::KubeClient& client, const RunCache& cache,
                                   kube::EventRecorder& events, benchmark::SeriesOptions options)
    : client_(client), cache_(cache), events_(events), options_(std::move(options)) {}

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

  for (auto& [seriesName, p] : pending) {
    common::Result<json> current = client_.get(kBenchmarkSeries, ns, seriesName);
    if (!current.isOk() && current.status().isNotFound()) {
      current = client_.create(kBenchmarkSeries, ns, newSeries(ns, seriesName, p.spec));
      if (!current.isOk() && current.status().isAlreadyExists()) {
        current = client_.get(kBenchmarkSeries, ns, seriesName);
      }
    }
    if (!current.isOk()) return current.status();
    json series = std::move(current).value();
    benchmark::Series read = benchmark::readSeries(series);
    const benchmark::SeriesSpec& spec = read.spec;
    benchmark::SeriesStatus& status = read.status;
    const std::vector<benchmark::SeriesChange> before = status.changes;
    std::vector<std::string> keys;
    std::set<std::string> added;
    for (benchmark::SeriesPoint& point : p.points) {
      const std::string key = keyOf(point.runUid, point.trial);
      keys.push_back(key);
      // A series follows the one metric it was created for.
      if (spec.metric != p.spec.metric) continue;
      if (benchmark::addSeriesPoint(status.points, std::move(point))) added.insert(key);
    }
    if (!added.empty()) {
      benchmark::judgeSeries(spec, status, options_);
      series["status"] = benchmark::toJson(status);
      common::Result<json> written = client_.updateStatus(kBenchmarkSeries, ns, series);
      if (!written.isOk()) return written.status();  // a conflict: read again when retried
      series = std::move(written).value();
      noteChanges(series, spec, before, status, added);
      spdlog::info("series {}/{}: {} point(s) from run {}, state {}", ns, seriesName, added.size(),
                   name, status.state);
    }
    std::lock_guard lock(mu_);
    recorded_[runKey].insert(keys.begin(), keys.end());
  }
  return ReconcileResult{};
}

}  // namespace hetbench::controller
