#include "hetbench/benchmark/series.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <span>
#include <tuple>

#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/results/metrics.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;

/// FNV-1a, 64 bits: a name needs spread, not secrecy.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

bool judged(const SeriesPoint& point) {
  return point.verdict != results::toString(results::Verdict::kInvalid) &&
         point.verdict != results::toString(results::Verdict::kMetricMissing);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out.empty() ? "none" : out;
}

std::vector<std::string> differences(const SeriesPoint& before, const SeriesPoint& after) {
  std::vector<std::string> out;
  if (before.image != after.image) out.push_back("image: " + before.image + " -> " + after.image);
  if (before.nodes != after.nodes) {
    out.push_back("nodes: " + joined(before.nodes) + " -> " + joined(after.nodes));
  }
  return out;
}

std::optional<double> numberAt(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

void setOptional(json& out, const char* key, const std::optional<double>& value) {
  if (value) out[key] = *value;
}

}  // namespace

std::string seriesName(const Configuration& c) {
  std::string label;
  for (const char ch : c.benchmark) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (ok) {
      label += lower;
    } else if (!label.empty() && label.back() != '-') {
      label += '-';
    }
    if (label.size() == 40) break;
  }
  while (!label.empty() && label.back() == '-') label.pop_back();
  if (label.empty()) label = "series";
  // Every field, each ended by a byte no Kubernetes name or label value holds.
  const std::string key = c.ns + '\n' + c.benchmark + '\n' + c.system + '\n' + c.accelerator +
                          '\n' + c.accelerators + '\n' + c.nodes + '\n' + c.batchSize + '\n' +
                          c.precision + '\n' + (c.target.empty() ? "" : c.target + '\n');
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return label + "-" + std::string(hex, 10);
}

std::string seriesMetric(const AcceptedRun& accepted, const TrialResult& result) {
  const std::string throughput(results::kEffectiveThroughput);
  if (result.metrics.contains(throughput)) return throughput;
  for (const auto& [metric, reference] : accepted.references) {
    if (result.metrics.contains(metric)) return metric;
  }
  return "";
}

std::optional<SeriesPoint> seriesPoint(const Run& run, const AcceptedRun& accepted,
                                       const TrialResult& result, const std::string& metric) {
  const auto m = result.metrics.find(metric);
  if (m == result.metrics.end()) return std::nullopt;
  SeriesPoint point;
  std::optional<common::WallTime> completion;
  std::set<std::string> nodes;
  for (const UnitRecord& unit : run.status.trials) {
    if (unit.trial != result.trial) continue;
    nodes.insert(unit.nodes.begin(), unit.nodes.end());
    if (unit.completionTime && (!completion || *completion < *unit.completionTime)) {
      completion = unit.completionTime;
    }
  }
  if (!completion) return std::nullopt;
  point.time = *completion;
  point.run = run.ref.name;
  point.runUid = run.ref.uid;
  point.trial = result.trial;
  point.value = m->second.stats.mean;
  point.spread = m->second.stats.stddev;
  point.repetitions = result.repetitions;
  point.verdict = results::toString(result.verdict);
  point.nodes.assign(nodes.begin(), nodes.end());
  if (accepted.spec.workload) point.image = common::stringMember(*accepted.spec.workload, "image");
  return point;
}

bool addSeriesPoint(std::vector<SeriesPoint>& points, SeriesPoint point, std::size_t limit) {
  const bool known = std::any_of(points.begin(), points.end(), [&](const SeriesPoint& p) {
    return p.runUid == point.runUid && p.trial == point.trial;
  });
  if (known) return false;
  // After every point of the same time: completion times are whole seconds, and of two runs
  // that ended in the same second the one judged later is the newer.
  const auto at =
      std::upper_bound(points.begin(), points.end(), point,
                       [](const SeriesPoint& a, const SeriesPoint& b) { return a.time < b.time; });
  points.insert(at, std::move(point));
  if (points.size() > limit) {
    points.erase(points.begin(), points.end() - static_cast<std::ptrdiff_t>(limit));
  }
  return true;
}

const SeriesPoint* latestJudged(const std::vector<SeriesPoint>& points) {
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    if (judged(*it)) return &*it;
  }
  return nullptr;
}

namespace {

/// The points the history is judged on: judged, and after spec.acceptedAfter.
std::vector<const SeriesPoint*> historyOf(const SeriesSpec& spec, const SeriesStatus& status) {
  std::vector<const SeriesPoint*> eligible;
  for (const SeriesPoint& p : status.points) {
    if (judged(p) && (!spec.acceptedAfter || *spec.acceptedAfter < p.time)) eligible.push_back(&p);
  }
  return eligible;
}

}  // namespace

std::vector<double> stableTrials(const SeriesSpec& spec, const SeriesStatus& status,
                                 const SeriesOptions& options) {
  const std::vector<const SeriesPoint*> eligible = historyOf(spec, status);
  if (eligible.empty()) return {};
  const std::size_t last = eligible.size() - 1;
  std::size_t begin = 0;
  for (std::size_t i = 1; i < last; ++i) {
    const bool changed = std::any_of(
        status.changes.begin(), status.changes.end(),
        [&](const auto& c) { return c.time == eligible[i]->time && c.run == eligible[i]->run; });
    if (changed) begin = i;
  }
  begin = std::max(begin, last - std::min(last, options.screening.recentPoints));
  std::vector<double> values;
  for (std::size_t i = begin; i < last; ++i) values.push_back(eligible[i]->value);
  return values;
}

void judgeSeries(const SeriesSpec& spec, SeriesStatus& status, const SeriesOptions& options) {
  const std::vector<const SeriesPoint*> eligible = historyOf(spec, status);
  status.latest.reset();
  status.baseline.reset();
  status.noise.reset();
  status.changes.clear();
  status.state.clear();
  status.message.clear();
  if (eligible.empty()) return;
  std::vector<double> values;
  values.reserve(eligible.size());
  for (const SeriesPoint* p : eligible) values.push_back(p->value);
  const std::size_t last = values.size() - 1;
  for (const results::ChangePoint& c : results::findChangePoints(values, options.changePoints)) {
    const SeriesPoint& at = *eligible[c.index];
    status.changes.push_back({at.time, at.run, c.before, c.after, c.magnitude, c.pValue,
                              differences(*eligible[c.index - 1], at)});
  }
  const std::vector<double> stable = stableTrials(spec, status, options);
  const results::Screening screening = results::screen(
      stable, values[last], eligible[last]->spread, spec.direction, spec.metric, options.screening);
  status.latest = values[last];
  status.state = results::toString(screening.verdict);
  status.message = screening.message;
  if (screening.verdict != results::Screen::kInsufficientHistory) {
    status.baseline = screening.noise.median;
    status.noise = screening.noise.scale;
  }
}

void controlFalseDiscoveries(const std::vector<JudgedSeries>& judged,
                             const SeriesOptions& options) {
  std::vector<SeriesStatus*> screened;
  std::vector<double> pValues;
  for (const JudgedSeries& j : judged) {
    const std::vector<const SeriesPoint*> history = historyOf(*j.spec, *j.status);
    if (history.empty() ||
        j.status->state == results::toString(results::Screen::kInsufficientHistory)) {
      continue;
    }
    const SeriesPoint& latest = *history.back();
    const results::Screening screening =
        results::screen(stableTrials(*j.spec, *j.status, options), latest.value, latest.spread,
                        j.spec->direction, j.spec->metric, options.screening);
    screened.push_back(j.status);
    pValues.push_back(screening.pValue);
  }
  if (screened.size() < 2) return;
  const double q = results::screeningLevel(options.screening);
  const std::vector<bool> discovered = results::falseDiscoveries(pValues, q);
  for (std::size_t i = 0; i < screened.size(); ++i) {
    SeriesStatus& status = *screened[i];
    if (discovered[i] || status.state != results::toString(results::Screen::kSuspect)) continue;
    char text[160];
    std::snprintf(text, sizeof text,
                  "; not a discovery among the %zu trials of its run judged together (p %.2g, "
                  "Benjamini-Hochberg at %.2g)",
                  screened.size(), pValues[i], q);
    status.state = results::toString(results::Screen::kWithinNoise);
    status.message += text;
  }
}

json toJson(const Configuration& c) {
  json out = {
      {"benchmark", c.benchmark},       {"system", c.system}, {"accelerator", c.accelerator},
      {"accelerators", c.accelerators}, {"nodes", c.nodes},   {"batchSize", c.batchSize},
      {"precision", c.precision}};
  if (!c.target.empty()) out["target"] = c.target;
  return out;
}

json toJson(const SeriesSpec& spec) {
  json out = {{"configuration", toJson(spec.configuration)},
              {"metric", spec.metric},
              {"direction", results::toString(spec.direction)}};
  if (spec.acceptedAfter) out["acceptedAfter"] = common::formatRfc3339(*spec.acceptedAfter);
  return out;
}

json toJson(const SeriesConfirmation& c) {
  json reruns = json::array();
  for (const Rerun& r : c.reruns) {
    json rerun = {{"name", r.name}, {"placement", r.placement}, {"done", r.done}};
    setOptional(rerun, "value", r.value);
    if (!r.nodes.empty()) rerun["nodes"] = r.nodes;
    reruns.push_back(std::move(rerun));
  }
  json out = {{"number", c.number},
              {"run", c.run},
              {"runUid", c.runUid},
              {"trial", c.trial},
              {"suspect", c.suspect},
              {"nodes", c.nodes},
              {"baseline", c.baseline},
              {"maxReruns", c.maxReruns},
              {"otherNode", c.otherNode},
              {"reruns", std::move(reruns)},
              {"state", c.state},
              {"message", c.message},
              {"startTime", common::formatRfc3339(c.startTime)}};
  if (!c.same.empty()) out["same"] = c.same;
  if (!c.other.empty()) out["other"] = c.other;
  if (c.completionTime) out["completionTime"] = common::formatRfc3339(*c.completionTime);
  if (c.standing) out["standing"] = true;
  return out;
}

json toJson(const SeriesStatus& status) {
  json points = json::array();
  for (const SeriesPoint& p : status.points) {
    points.push_back({{"time", common::formatRfc3339(p.time)},
                      {"run", p.run},
                      {"runUid", p.runUid},
                      {"trial", p.trial},
                      {"value", p.value},
                      {"spread", p.spread},
                      {"repetitions", p.repetitions},
                      {"verdict", p.verdict},
                      {"nodes", p.nodes},
                      {"image", p.image}});
  }
  json changes = json::array();
  for (const SeriesChange& c : status.changes) {
    changes.push_back({{"time", common::formatRfc3339(c.time)},
                       {"run", c.run},
                       {"before", c.before},
                       {"after", c.after},
                       {"magnitude", c.magnitude},
                       {"pValue", c.pValue},
                       {"changed", c.changed}});
  }
  json out = {{"pointCount", status.points.size()},
              {"points", std::move(points)},
              {"changes", std::move(changes)}};
  if (status.confirmation) out["confirmation"] = toJson(*status.confirmation);
  setOptional(out, "latest", status.latest);
  setOptional(out, "baseline", status.baseline);
  setOptional(out, "noise", status.noise);
  if (!status.state.empty()) out["state"] = status.state;
  if (!status.message.empty()) out["message"] = status.message;
  if (!status.changes.empty()) {
    const SeriesChange& c = status.changes.back();
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", c.magnitude * 100);
    out["lastChange"] = common::formatRfc3339(c.time) + " (" + text + ")";
  }
  return out;
}

SeriesSpec seriesSpecFromJson(const json& spec) {
  SeriesSpec out;
  if (!spec.is_object()) return out;
  if (const json& configuration = common::member(spec, "configuration");
      configuration.is_object()) {
    Configuration& c = out.configuration;
    c.benchmark = common::stringMember(configuration, "benchmark");
    c.system = common::stringMember(configuration, "system");
    c.accelerator = common::stringMember(configuration, "accelerator");
    c.accelerators = common::stringMember(configuration, "accelerators");
    c.nodes = common::stringMember(configuration, "nodes");
    c.batchSize = common::stringMember(configuration, "batchSize");
    c.precision = common::stringMember(configuration, "precision");
    c.target = common::stringMember(configuration, "target");
  }
  out.metric = common::stringMember(spec, "metric");
  if (common::stringMember(spec, "direction") == "lower")
    out.direction = results::Direction::kLower;
  out.acceptedAfter = common::timeMember(spec, "acceptedAfter");
  return out;
}

SeriesStatus seriesStatusFromJson(const json& status) {
  SeriesStatus out;
  if (!status.is_object()) return out;
  for (const json& p : common::arrayMember(status, "points")) {
    if (!p.is_object()) continue;
    const std::optional<common::WallTime> time = common::timeMember(p, "time");
    const std::optional<double> value = numberAt(p, "value");
    if (!time || !value) continue;
    SeriesPoint point;
    point.time = *time;
    point.run = common::stringMember(p, "run");
    point.runUid = common::stringMember(p, "runUid");
    point.trial = common::intMember(p, "trial");
    point.value = *value;
    point.spread = numberAt(p, "spread").value_or(0);
    point.repetitions = common::intMember(p, "repetitions");
    point.verdict = common::stringMember(p, "verdict");
    point.image = common::stringMember(p, "image");
    point.nodes = common::stringList(common::member(p, "nodes"));
    out.points.push_back(std::move(point));
  }
  for (const json& c : common::arrayMember(status, "changes")) {
    if (!c.is_object()) continue;
    const std::optional<common::WallTime> time = common::timeMember(c, "time");
    if (!time) continue;
    SeriesChange change;
    change.time = *time;
    change.run = common::stringMember(c, "run");
    change.before = numberAt(c, "before").value_or(0);
    change.after = numberAt(c, "after").value_or(0);
    change.magnitude = numberAt(c, "magnitude").value_or(0);
    change.pValue = numberAt(c, "pValue").value_or(1);
    change.changed = common::stringList(common::member(c, "changed"));
    out.changes.push_back(std::move(change));
  }
  if (const json& c = common::member(status, "confirmation"); c.is_object()) {
    SeriesConfirmation confirmation;
    confirmation.number = common::intMember(c, "number");
    confirmation.run = common::stringMember(c, "run");
    confirmation.runUid = common::stringMember(c, "runUid");
    confirmation.trial = common::intMember(c, "trial");
    confirmation.suspect = numberAt(c, "suspect").value_or(0);
    confirmation.nodes = common::stringList(common::member(c, "nodes"));
    for (const json& v : common::arrayMember(c, "baseline")) {
      if (v.is_number()) confirmation.baseline.push_back(v.get<double>());
    }
    confirmation.maxReruns = common::intMember(c, "maxReruns");
    const json& otherNode = common::member(c, "otherNode");
    confirmation.otherNode = otherNode.is_boolean() && otherNode.get<bool>();
    for (const json& r : common::arrayMember(c, "reruns")) {
      if (!r.is_object()) continue;
      const json& done = common::member(r, "done");
      confirmation.reruns.push_back({common::stringMember(r, "name"),
                                     common::stringMember(r, "placement"),
                                     done.is_boolean() && done.get<bool>(), numberAt(r, "value"),
                                     common::stringList(common::member(r, "nodes"))});
    }
    confirmation.state = common::stringMember(c, "state");
    confirmation.same = common::stringMember(c, "same");
    confirmation.other = common::stringMember(c, "other");
    confirmation.message = common::stringMember(c, "message");
    confirmation.startTime = common::timeMember(c, "startTime").value_or(common::WallTime{});
    confirmation.completionTime = common::timeMember(c, "completionTime");
    const json& standing = common::member(c, "standing");
    confirmation.standing = standing.is_boolean() && standing.get<bool>();
    out.confirmation = std::move(confirmation);
  }
  out.latest = numberAt(status, "latest");
  out.baseline = numberAt(status, "baseline");
  out.noise = numberAt(status, "noise");
  out.state = common::stringMember(status, "state");
  out.message = common::stringMember(status, "message");
  return out;
}

Series readSeries(const json& object) {
  Series series;
  const json& meta = common::member(object, "metadata");
  series.name = common::stringMember(meta, "name");
  series.spec = seriesSpecFromJson(common::member(object, "spec"));
  series.spec.configuration.ns = common::stringMember(meta, "namespace");
  series.status = seriesStatusFromJson(common::member(object, "status"));
  return series;
}

}  // namespace hetbench::benchmark
