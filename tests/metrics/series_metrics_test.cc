#include "hetbench/metrics/series_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace hetbench::metrics {
namespace {

using nlohmann::json;

constexpr const char* kFamilies[] = {"hetbench_series_points",
                                     "hetbench_series_latest",
                                     "hetbench_series_baseline",
                                     "hetbench_series_noise",
                                     "hetbench_series_state",
                                     "hetbench_series_change_points",
                                     "hetbench_series_last_change_timestamp_seconds",
                                     "hetbench_series_last_change_magnitude"};

benchmark::Configuration config(const std::string& batch = "256") {
  return {"lab", "resnet50", "lab-h100", "NVIDIA-H100-80GB-HBM3", "8", "2", batch, "bf16", ""};
}

/// A BenchmarkSeries as the operator writes it, of `config(batch)`, with `status`.
json series(const std::string& name, json status, const std::string& batch = "256") {
  benchmark::SeriesSpec spec{config(batch), "effective_throughput"};
  return {{"apiVersion", "hetbench.io/v1alpha1"},
          {"kind", "BenchmarkSeries"},
          {"metadata", {{"name", name}, {"namespace", "lab"}}},
          {"spec", benchmark::toJson(spec)},
          {"status", std::move(status)}};
}

json point(int hour, double value, const std::string& verdict = "Pass") {
  char time[32];
  std::snprintf(time, sizeof time, "2026-11-%02dT%02d:00:00Z", 1 + hour / 24, hour % 24);
  return {{"time", time},
          {"run", "nightly-" + std::to_string(hour)},
          {"runUid", "uid-" + std::to_string(hour)},
          {"trial", 0},
          {"value", value},
          {"spread", 1},
          {"repetitions", 3},
          {"verdict", verdict}};
}

json change(int hour, double magnitude) {
  return {{"time", point(hour, 0)["time"]},
          {"run", "nightly-" + std::to_string(hour)},
          {"before", 1000},
          {"after", 1000 * (1 + magnitude)},
          {"magnitude", magnitude},
          {"pValue", 0.0004},
          {"changed", json::array({"image: a -> b"})}};
}

/// The samples of one family as `label=value ... value`, the series' own labels only (not the
/// configuration's), sorted.
std::vector<std::string> samples(const std::vector<prometheus::MetricFamily>& families,
                                 const std::string& name) {
  std::vector<std::string> out;
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      std::string line;
      for (const auto& l : m.label) {
        if (l.name == "series" || l.name == "state" || l.name == "run" || l.name == "batch_size")
          line += l.name + "=" + l.value + " ";
      }
      char value[32];
      std::snprintf(value, sizeof value, "%g", m.gauge.value);
      out.push_back(line + value);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Want = std::map<std::string, std::vector<std::string>>;  // family → samples

// Verifies what each family shows of a series' status, case by case: absent values stay absent,
// the state is one-hot over the screening's states, and the newest change point is the last.
TEST(SeriesMetricsTest, EachFamilyShowsItsPartOfTheStatus) {
  const std::string s = "batch_size=256 series=resnet50-5d1c0e9a4b ";
  struct Case {
    std::string name;
    json status;
    Want want;
  };
  const std::vector<Case> cases = {
      {"a series without a status yet",
       nullptr,
       {{"hetbench_series_points", {s + "0"}}, {"hetbench_series_change_points", {s + "0"}}}},
      {"one point: a latest value but too little history for a baseline",
       {{"points", {point(0, 1000)}},
        {"latest", 1000},
        {"state", "InsufficientHistory"},
        {"changes", json::array()}},
       {{"hetbench_series_points", {s + "1"}},
        {"hetbench_series_latest", {s + "1000"}},
        {"hetbench_series_state",
         {s + "state=Confirming 0", s + "state=Improved 0", s + "state=Inconclusive 0",
          s + "state=InsufficientHistory 1", s + "state=NodeSuspect 0", s + "state=NotConfirmed 0",
          s + "state=Regressed 0", s + "state=Suspect 0", s + "state=WithinNoise 0"}},
        {"hetbench_series_change_points", {s + "0"}}}},
      {"only an Invalid point: nothing judged, no state",
       {{"points", {point(0, 700, "Invalid")}}},
       {{"hetbench_series_points", {s + "1"}}, {"hetbench_series_change_points", {s + "0"}}}},
      {"a suspect latest trial against its baseline and noise",
       {{"points", {point(0, 1000), point(1, 1002), point(2, 998), point(3, 940)}},
        {"latest", 940},
        {"baseline", 999.5},
        {"noise", 2.5},
        {"state", "Suspect"},
        {"changes", json::array()}},
       {{"hetbench_series_points", {s + "4"}},
        {"hetbench_series_latest", {s + "940"}},
        {"hetbench_series_baseline", {s + "999.5"}},
        {"hetbench_series_noise", {s + "2.5"}},
        {"hetbench_series_state",
         {s + "state=Confirming 0", s + "state=Improved 0", s + "state=Inconclusive 0",
          s + "state=InsufficientHistory 0", s + "state=NodeSuspect 0", s + "state=NotConfirmed 0",
          s + "state=Regressed 0", s + "state=Suspect 1", s + "state=WithinNoise 0"}},
        {"hetbench_series_change_points", {s + "0"}}}},
      {"two change points: the newest is the last change, labelled with its run",
       {{"points", {point(0, 1000), point(30, 900), point(60, 1000)}},
        {"latest", 1000},
        {"baseline", 1000},
        {"noise", 3},
        {"state", "WithinNoise"},
        {"changes", {change(30, -0.1), change(60, 0.11)}}},
       {{"hetbench_series_points", {s + "3"}},
        {"hetbench_series_latest", {s + "1000"}},
        {"hetbench_series_baseline", {s + "1000"}},
        {"hetbench_series_noise", {s + "3"}},
        {"hetbench_series_state",
         {s + "state=Confirming 0", s + "state=Improved 0", s + "state=Inconclusive 0",
          s + "state=InsufficientHistory 0", s + "state=NodeSuspect 0", s + "state=NotConfirmed 0",
          s + "state=Regressed 0", s + "state=Suspect 0", s + "state=WithinNoise 1"}},
        {"hetbench_series_change_points", {s + "2"}},
        // 2026-11-03T12:00:00Z
        {"hetbench_series_last_change_timestamp_seconds", {s + "run=nightly-60 1.79371e+09"}},
        {"hetbench_series_last_change_magnitude", {s + "run=nightly-60 0.11"}}}},
      {"a state this operator does not know shows as it is",
       {{"points", {point(0, 1000)}}, {"latest", 1000}, {"state", "Quarantined"}},
       {{"hetbench_series_points", {s + "1"}},
        {"hetbench_series_latest", {s + "1000"}},
        {"hetbench_series_state",
         {s + "state=Confirming 0", s + "state=Improved 0", s + "state=Inconclusive 0",
          s + "state=InsufficientHistory 0", s + "state=NodeSuspect 0", s + "state=NotConfirmed 0",
          s + "state=Quarantined 1", s + "state=Regressed 0", s + "state=Suspect 0",
          s + "state=WithinNoise 0"}},
        {"hetbench_series_change_points", {s + "0"}}}},
  };
  for (const Case& c : cases) {
    SeriesMetrics metrics;
    metrics.observe(series("resnet50-5d1c0e9a4b", c.status));
    const std::vector<prometheus::MetricFamily> families = metrics.Collect();
    for (const char* family : kFamilies) {
      const auto want = c.want.find(family);
      EXPECT_EQ(samples(families, family),
                want == c.want.end() ? std::vector<std::string>{} : want->second)
          << c.name << ": " << family;
    }
  }
}

// Verifies the time of the last change point in Unix seconds, to the second.
TEST(SeriesMetricsTest, TheLastChangeTimeIsInUnixSeconds) {
  SeriesMetrics metrics;
  metrics.observe(series("a", {{"changes", {change(60, -0.1)}}}));
  const std::vector<prometheus::MetricFamily> families = metrics.Collect();
  const auto time = std::find_if(families.begin(), families.end(), [](const auto& f) {
    return f.name == "hetbench_series_last_change_timestamp_seconds";
  });
  ASSERT_NE(time, families.end());
  ASSERT_EQ(time->metric.size(), 1u);
  EXPECT_EQ(time->metric[0].gauge.value, 1793707200);  // 2026-11-03T12:00:00Z
}

// Verifies a series carries the labels of its configuration as the hetbench_benchmark_* series
// do, then its name and metric.
TEST(SeriesMetricsTest, LabelledWithTheConfigurationNameAndMetric) {
  SeriesMetrics metrics;
  metrics.observe(series("resnet50-5d1c0e9a4b", {{"points", {point(0, 1000)}}}));
  const std::vector<prometheus::MetricFamily> families = metrics.Collect();
  ASSERT_FALSE(families.empty());
  ASSERT_EQ(families[0].name, "hetbench_series_points");
  ASSERT_EQ(families[0].metric.size(), 1u);
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& l : families[0].metric[0].label) labels.emplace_back(l.name, l.value);
  EXPECT_EQ(labels, (std::vector<std::pair<std::string, std::string>>{
                        {"namespace", "lab"},
                        {"benchmark", "resnet50"},
                        {"system", "lab-h100"},
                        {"accelerator", "NVIDIA-H100-80GB-HBM3"},
                        {"accelerators", "8"},
                        {"nodes", "2"},
                        {"batch_size", "256"},
                        {"precision", "bf16"},
                        {"target", "kubernetes"},
                        {"series", "resnet50-5d1c0e9a4b"},
                        {"metric", "effective_throughput"}}));
}

// Verifies a changed series replaces what was shown of it, a deleted one leaves the gauges, and
// an object without a name shows nothing.
TEST(SeriesMetricsTest, FollowsChangesAndDeletions) {
  SeriesMetrics metrics;
  metrics.observe(series("a", {{"points", {point(0, 1000)}}, {"latest", 1000}}, "256"));
  metrics.observe(series("b", {{"points", {point(0, 2000)}}, {"latest", 2000}}, "512"));
  metrics.observe(series("a", {{"points", {point(0, 1000), point(1, 990)}}, {"latest", 990}}));
  json nameless = series("", {{"points", {point(0, 1)}}});
  metrics.observe(nameless);
  std::vector<prometheus::MetricFamily> families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_series_points"),
            (std::vector<std::string>{"batch_size=256 series=a 2", "batch_size=512 series=b 1"}));
  EXPECT_EQ(
      samples(families, "hetbench_series_latest"),
      (std::vector<std::string>{"batch_size=256 series=a 990", "batch_size=512 series=b 2000"}));

  metrics.forget(series("a", nullptr));
  families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_series_points"),
            std::vector<std::string>{"batch_size=512 series=b 1"});
  EXPECT_EQ(samples(families, "hetbench_series_latest"),
            std::vector<std::string>{"batch_size=512 series=b 2000"});
}

// Verifies a restarted operator, shown the same objects, shows the same series.
TEST(SeriesMetricsTest, ARestartedOperatorShowsTheSameSeries) {
  const json object = series("a", {{"points", {point(0, 1000), point(30, 900)}},
                                   {"latest", 900},
                                   {"state", "InsufficientHistory"},
                                   {"changes", {change(30, -0.1)}}});
  SeriesMetrics before;
  before.observe(object);
  SeriesMetrics after;
  after.observe(object);
  const std::vector<prometheus::MetricFamily> a = before.Collect();
  const std::vector<prometheus::MetricFamily> b = after.Collect();
  ASSERT_EQ(a.size(), std::size(kFamilies));
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, kFamilies[i]);
    EXPECT_EQ(samples(a, a[i].name), samples(b, b[i].name)) << a[i].name;
  }
}

TEST(SeriesMetricsTest, OnlyTheLeaderExports) {
  bool leading = false;
  SeriesMetrics metrics([&leading] { return leading; });
  metrics.observe(series("a", {{"points", {point(0, 1000)}}}));
  EXPECT_TRUE(metrics.Collect().empty());
  leading = true;
  EXPECT_FALSE(metrics.Collect().empty());
}

}  // namespace
}  // namespace hetbench::metrics
