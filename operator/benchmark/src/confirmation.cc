#include "hetbench/benchmark/confirmation.h"

#include <algorithm>
#include <cstdio>

#include "hetbench/benchmark/constants.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"

namespace hetbench::benchmark {
namespace {

using nlohmann::json;
using results::Comparison;

bool worse(const SeriesSpec& spec, double change) {
  return spec.direction == results::Direction::kHigher ? change < 0 : change > 0;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out.empty() ? "none" : out;
}

std::string percent(double change) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", change * 100);
  return text;
}

/// The placement's values: the suspect first on the same nodes, then its ended reruns'.
std::vector<double> sampleOf(const SeriesConfirmation& c, std::string_view placement) {
  std::vector<double> out;
  if (placement == kSameNodes) out.push_back(c.suspect);
  for (const Rerun& r : c.reruns) {
    if (r.placement == placement && r.done && r.value) out.push_back(*r.value);
  }
  return out;
}

std::int64_t rerunsOf(const SeriesConfirmation& c, std::string_view placement) {
  return std::count_if(c.reruns.begin(), c.reruns.end(),
                       [&](const Rerun& r) { return r.placement == placement; });
}

void end(SeriesConfirmation& c, std::string_view state, std::string message, common::WallTime now) {
  c.state = state;
  c.message = std::move(message);
  c.completionTime = now;
  c.standing = state == reason::kRegressed || state == reason::kNodeSuspect;
}

/// "the same nodes' 2 values (-10.0%, p 0.0087 and 0.0087)".
std::string described(std::string_view what, const std::vector<double>& sample,
                      const results::SampleComparison& comparison) {
  char text[160];
  std::snprintf(
      text, sizeof text, "%.*s: %zu value(s), %s (Mann-Whitney p %.2g, Kolmogorov-Smirnov p %.2g)",
      static_cast<int>(what.size()), what.data(), sample.size(), percent(comparison.change).c_str(),
      comparison.mannWhitney, comparison.kolmogorovSmirnov);
  return text;
}

}  // namespace

std::optional<SeriesConfirmation> startConfirmation(const std::string& seriesName,
                                                    const SeriesSpec& spec,
                                                    const SeriesStatus& status,
                                                    const Confirm& confirm, common::WallTime now,
                                                    const SeriesOptions& options) {
  const SeriesPoint* latest = latestJudged(status.points);
  if (latest == nullptr || status.state != results::toString(results::Screen::kSuspect) ||
      !status.baseline || !worse(spec, latest->value - *status.baseline)) {
    return std::nullopt;
  }
  if (const std::optional<SeriesConfirmation>& previous = status.confirmation) {
    if (previous->state == reason::kConfirming) return std::nullopt;
    if (previous->runUid == latest->runUid && previous->trial == latest->trial) return std::nullopt;
    // A confirmed regression stands while trials stay suspect; a slow node, for its nodes.
    if (previous->standing &&
        (previous->state == reason::kRegressed || previous->nodes == latest->nodes)) {
      return std::nullopt;
    }
  }
  SeriesConfirmation c;
  c.number = status.confirmation ? status.confirmation->number + 1 : 1;
  c.run = latest->run;
  c.runUid = latest->runUid;
  c.trial = latest->trial;
  c.suspect = latest->value;
  c.nodes = latest->nodes;
  c.baseline = stableTrials(spec, status, options);
  c.maxReruns = confirm.reruns;
  c.otherNode = confirm.otherNode;
  c.state = reason::kConfirming;
  c.startTime = now;
  c.message = "rerunning run " + c.run + " trial " + std::to_string(c.trial) + " (" + spec.metric +
              " " + percent(latest->value / *status.baseline - 1) + ") on its nodes (" +
              joined(c.nodes) + ")" + (c.otherNode ? " and on others" : "");
  c.reruns.push_back(
      {rerunName(seriesName, c.number, std::string(kSameNodes), 1), std::string(kSameNodes)});
  if (c.otherNode) {
    c.reruns.push_back(
        {rerunName(seriesName, c.number, std::string(kOtherNodes), 1), std::string(kOtherNodes)});
  }
  return c;
}

void advanceConfirmation(const std::string& seriesName, const SeriesSpec& spec,
                         SeriesConfirmation& c, common::WallTime now,
                         const results::ComparisonOptions& options) {
  if (c.state != reason::kConfirming || c.baseline.empty()) return;
  const std::vector<double> same = sampleOf(c, kSameNodes);
  const results::SampleComparison sameComparison =
      results::compareSamples(c.baseline, same, options);
  c.same = results::toString(sameComparison.verdict);
  std::string message = described("on its nodes", same, sameComparison);
  const std::vector<double> other = sampleOf(c, kOtherNodes);
  std::optional<results::SampleComparison> otherComparison;
  if (!other.empty()) {
    otherComparison = results::compareSamples(c.baseline, other, options);
    c.other = results::toString(otherComparison->verdict);
    message += "; " + described("on other nodes", other, *otherComparison);
  }
  const bool sameSlower =
      sameComparison.verdict == Comparison::kDifferent && worse(spec, sameComparison.change);
  const bool otherSlower = otherComparison && otherComparison->verdict == Comparison::kDifferent &&
                           worse(spec, otherComparison->change);
  // A rerun on other nodes that gave no value could not run there (none is free, or none is
  // left of the run's placement): no more are tried.
  const bool otherUnavailable = std::any_of(c.reruns.begin(), c.reruns.end(), [](const Rerun& r) {
    return r.placement == kOtherNodes && r.done && !r.value;
  });
  const bool roundOver =
      std::all_of(c.reruns.begin(), c.reruns.end(), [](const Rerun& r) { return r.done; });
  const auto exhausted = [&](std::string_view placement) {
    return roundOver && rerunsOf(c, placement) >= c.maxReruns;
  };
  if (sameComparison.verdict == Comparison::kSame ||
      (sameComparison.verdict == Comparison::kDifferent && !sameSlower)) {
    end(c, reason::kNotConfirmed, "the reruns do not repeat it: " + message, now);
    return;
  }
  if (sameSlower) {
    if (!c.otherNode || otherSlower) {
      end(c, reason::kRegressed,
          "confirmed: " + message + (c.otherNode ? "" : "; not rerun on other nodes"), now);
      return;
    }
    if (otherComparison && otherComparison->verdict == Comparison::kSame) {
      end(c, reason::kNodeSuspect, "slow on " + joined(c.nodes) + " only: " + message, now);
      return;
    }
    if (otherUnavailable) {
      end(c, reason::kRegressed,
          "confirmed: " + message + "; a rerun on other nodes gave no value, so a slow node is " +
              "not ruled out",
          now);
      return;
    }
    if (exhausted(kOtherNodes)) {
      end(c, reason::kInconclusive,
          "slow on its nodes, undecided on others after " + std::to_string(c.maxReruns) +
              " rerun(s): " + message,
          now);
      return;
    }
  } else if (exhausted(kSameNodes)) {
    end(c, reason::kInconclusive,
        "undecided after " + std::to_string(c.maxReruns) + " rerun(s): " + message, now);
    return;
  }
  c.message = "confirming: " + message;
  if (!roundOver) return;
  // The next round, for each placement still undecided.
  if (!sameSlower && rerunsOf(c, kSameNodes) < c.maxReruns) {
    c.reruns.push_back(
        {rerunName(seriesName, c.number, std::string(kSameNodes), rerunsOf(c, kSameNodes) + 1),
         std::string(kSameNodes)});
  }
  if (c.otherNode && !otherSlower && !otherUnavailable && rerunsOf(c, kOtherNodes) < c.maxReruns) {
    c.reruns.push_back(
        {rerunName(seriesName, c.number, std::string(kOtherNodes), rerunsOf(c, kOtherNodes) + 1),
         std::string(kOtherNodes)});
  }
}

void settleSeriesState(SeriesStatus& status) {
  if (!status.confirmation) return;
  SeriesConfirmation& c = *status.confirmation;
  if (c.state == reason::kConfirming) {
    status.state = c.state;
    return;
  }
  const SeriesPoint* latest = latestJudged(status.points);
  if (latest == nullptr) return;
  const bool about = latest->runUid == c.runUid && latest->trial == c.trial;
  // A later trial that is not suspect (where a slow node's verdict applies: on its nodes) ends
  // the verdict's standing for good: the level came back, or the history took the new one in.
  const bool applies = c.state == reason::kRegressed || latest->nodes == c.nodes;
  if (!about && applies && status.state != results::toString(results::Screen::kSuspect)) {
    c.standing = false;
  }
  if (about || (c.standing && applies)) {
    status.state = c.state;
    status.message = c.message;
  }
}

std::string rerunName(const std::string& seriesName, std::int64_t number,
                      const std::string& placement, std::int64_t index) {
  const std::string suffix = "-c" + std::to_string(number) + "-" +
                             (placement == kSameNodes ? "s" : "o") + std::to_string(index);
  return seriesName.substr(
             0, std::min(seriesName.size(), 63 - std::min<std::size_t>(63, suffix.size()))) +
         suffix;
}

json rerunRun(const Run& original, const Params& parameters, const SeriesConfirmation& c,
              const Rerun& rerun, const json& series) {
  json spec = json::parse(original.acceptedSpecText, nullptr, false);
  if (!spec.is_object()) spec = original.spec;
  spec.erase("confirm");
  spec.erase("suspend");
  if (!parameters.empty()) {
    json matrix = json::object();
    for (const auto& [name, value] : parameters) matrix[name] = json::array({value});
    spec["matrix"] = std::move(matrix);
  }
  // The placement: every required node selector term of the workload's affinity (or one new
  // term) also requires the nodes, or their absence.
  const json requirement = {{"key", "kubernetes.io/hostname"},
                            {"operator", rerun.placement == kSameNodes ? "In" : "NotIn"},
                            {"values", c.nodes}};
  json& workload = spec["workload"];
  json& required =
      workload["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  for (json& term : terms) {
    if (!term.is_object()) term = json::object();
    json& expressions = term["matchExpressions"];
    if (!expressions.is_array()) expressions = json::array();
    expressions.push_back(requirement);
  }
  const json& meta = common::member(series, "metadata");
  const std::string seriesName = common::stringMember(meta, "name");
  return {{"apiVersion", kApiVersion},
          {"kind", kKind},
          {"metadata",
           {{"name", rerun.name},
            {"namespace", original.ref.ns},
            {"labels",
             {{std::string(kSeriesLabel), seriesName},
              {std::string(kConfirmsLabel), c.run},
              {std::string(kPlacementLabel), rerun.placement}}},
            {"ownerReferences", json::array({{{"apiVersion", kApiVersion},
                                              {"kind", kSeriesKind},
                                              {"name", seriesName},
                                              {"uid", common::stringMember(meta, "uid")},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
          {"spec", std::move(spec)}};
}

}  // namespace hetbench::benchmark
