#include "hetbench/metrics/benchmark_metrics.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/constants.h"

namespace hetbench::metrics {
namespace {

using nlohmann::json;

json spec() {
  return {{"benchmark", "resnet50"},
          {"system", "lab-a100"},
          {"matrix", {{"batch", json::array({"128", "256"})}}},
          {"repetitions", 2},
          {"workload",
           {{"kind", "Pod"},
            {"image", "hetbench/train:cpu"},
            {"accelerator",
             {{"resource", "nvidia.com/gpu"}, {"count", 4}, {"product", "NVIDIA-A100-SXM4-40GB"}}},
            {"training", {{"batchSize", "$(params.batch)"}, {"precision", "bf16"}}}}},
          {"references",
           {{"effective_throughput", {{"value", 1000}, {"lower", 0.05}, {"upper", 0.1}}}}}};
}

json unit(std::int64_t trial, std::int64_t rep, const std::string& batch, const std::string& phase,
          const std::string& completion, json metrics = nullptr) {
  json u = {
      {"trial", trial}, {"repetition", rep}, {"parameters", {{"batch", batch}}}, {"phase", phase}};
  if (!completion.empty()) u["completionTime"] = completion;
  if (!metrics.is_null()) u["metrics"] = std::move(metrics);
  return u;
}

json summary(double throughput, std::int64_t epochs, double wall, double io) {
  return {{"epochs", epochs},
          {"values",
           {{"effective_throughput", throughput},
            {"wall_seconds", wall},
            {"io_seconds", io},
            {"compute_fraction", (wall - io) / wall}}}};
}

json stat(double mean) {
  return {{"mean", mean}, {"stddev", 0}, {"min", mean}, {"max", mean}, {"n", 2}};
}

/// A run whose trial 0 (batch 128) was judged Regressed, trial 1 (batch 256) failed twice.
json run(const std::string& uid = "uid-1", const std::string& name = "a") {
  json s = spec();
  return {
      {"metadata",
       {{"name", name},
        {"namespace", "lab"},
        {"uid", uid},
        {"annotations", {{std::string(benchmark::kAcceptedSpecAnnotation), s.dump()}}}}},
      {"spec", s},
      {"status",
       {{"phase", "Failed"},
        {"trials",
         json::array(
             {unit(0, 0, "128", "Succeeded", "2026-11-22T10:00:00Z", summary(900, 2, 20, 4)),
              unit(0, 1, "128", "Succeeded", "2026-11-22T10:05:00Z", summary(900, 4, 60, 8)),
              unit(1, 0, "256", "Failed", "2026-11-22T10:06:00Z"),
              unit(1, 1, "256", "TimedOut", "2026-11-22T10:07:00Z")})},
        {"results",
         json::array(
             {{{"trial", 0},
               {"verdict", "Regressed"},
               {"repetitions", 2},
               {"metrics", {{"effective_throughput", stat(900)}, {"compute_fraction", stat(0.84)}}},
               {"parameters", {{"batch", "128"}}}}})}}}};
}

Configuration config(const std::string& batch) {
  return {"lab", "resnet50", "lab-a100", "NVIDIA-A100-SXM4-40GB", "4", "1", batch, "bf16", ""};
}

TEST(FinishedTrialsTest, JudgedAndFailedTrialsWithTheirConfiguration) {
  const std::vector<FinishedTrial> trials = finishedTrials(run());
  ASSERT_EQ(trials.size(), 2u);

  const FinishedTrial& judged = trials[0];
  EXPECT_EQ(judged.trial, 0);
  EXPECT_EQ(judged.configuration, config("128"));
  EXPECT_EQ(judged.result, "Regressed");
  ASSERT_TRUE(judged.completion);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(judged.completion->time_since_epoch())
                .count(),
            1795341900);  // 2026-11-22T10:05:00Z: the later repetition's end
  EXPECT_DOUBLE_EQ(judged.values.at("effective_throughput"), 900);
  EXPECT_DOUBLE_EQ(judged.values.at("compute_fraction"), 0.84);
  EXPECT_DOUBLE_EQ(judged.values.at("epoch_seconds"), 12.5);  // mean of 20/2 and 60/4
  EXPECT_DOUBLE_EQ(judged.values.at("io_seconds"), 2);        // mean of 4/2 and 8/4
  EXPECT_FALSE(judged.values.contains("energy_joules"));      // not measured
  EXPECT_FALSE(judged.values.contains("samples_per_wh"));
  ASSERT_TRUE(judged.references.contains("effective_throughput"));
  const ReferencePoint& ref = judged.references.at("effective_throughput");
  EXPECT_DOUBLE_EQ(ref.value, 1000);
  EXPECT_DOUBLE_EQ(*ref.lower, 950);
  EXPECT_DOUBLE_EQ(*ref.upper, 1100);
  EXPECT_DOUBLE_EQ(*ref.ratio, 0.9);

  const FinishedTrial& failed = trials[1];
  EXPECT_EQ(failed.trial, 1);
  EXPECT_EQ(failed.configuration, config("256"));
  EXPECT_EQ(failed.result, "Failed");
  EXPECT_TRUE(failed.values.empty());
}

TEST(FinishedTrialsTest, UnfinishedCancelledAndRefusedRunsGiveNothing) {
  json running = run();
  running["status"]["results"] = json::array();
  running["status"]["trials"][3]["phase"] = "Running";  // trial 1 still has a unit going
  running["status"]["trials"][0]["phase"] = "Running";
  EXPECT_TRUE(finishedTrials(running).empty());

  json cancelled = run();
  cancelled["status"]["trials"][2]["phase"] = "Cancelled";
  cancelled["status"]["trials"][3]["phase"] = "Cancelled";
  EXPECT_EQ(finishedTrials(cancelled).size(), 1u);  // trial 1 was stopped, not failed

  json refused = run();
  refused["metadata"].erase("annotations");
  EXPECT_TRUE(finishedTrials(refused).empty());

  json garbled = run();
  garbled["metadata"]["annotations"][std::string(benchmark::kAcceptedSpecAnnotation)] = "{not json";
  EXPECT_TRUE(finishedTrials(garbled).empty());
  EXPECT_TRUE(finishedTrials(json::array({1, 2})).empty());
}

TEST(FinishedTrialsTest, TemplateRunsAreKeyedByWhatTheSpecSays) {
  json r = run();
  json s = spec();
  s.erase("workload");
  s["matrix"] = json::object();
  s["template"] = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", json::object()}};
  r["metadata"]["annotations"][std::string(benchmark::kAcceptedSpecAnnotation)] = s.dump();
  const std::vector<FinishedTrial> trials = finishedTrials(r);
  ASSERT_FALSE(trials.empty());
  EXPECT_EQ(trials[0].configuration,
            (Configuration{"lab", "resnet50", "lab-a100", "", "0", "", "", "", ""}));
}

/// The samples of one family in text form: `{labels} value` per series, sorted.
std::vector<std::string> samples(const std::vector<prometheus::MetricFamily>& families,
                                 const std::string& name) {
  std::vector<std::string> out;
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name) continue;
    for (const prometheus::ClientMetric& m : f.metric) {
      std::string line;
      for (const auto& l : m.label)
        if (l.name == "batch_size" || l.name == "result" || l.name == "verdict" ||
            l.name == "metric")
          line += l.name + "=" + l.value + " ";
      const double v = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
      out.push_back(line + std::to_string(v));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The samples of a family whose value is not 0.
std::vector<std::string> nonZero(const std::vector<prometheus::MetricFamily>& families,
                                 const std::string& name) {
  std::vector<std::string> out = samples(families, name);
  std::erase_if(out, [](const std::string& s) { return s.ends_with(" 0.000000"); });
  return out;
}

TEST(BenchmarkMetricsTest, LatestJudgedTrialPerConfigurationAndCountersByResult) {
  BenchmarkMetrics metrics;
  metrics.observe(run("uid-1", "a"));
  std::vector<prometheus::MetricFamily> families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_effective_throughput_samples_per_second"),
            std::vector<std::string>{"batch_size=128 900.000000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_regressed"),
            std::vector<std::string>{"batch_size=128 1.000000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_verdict"),
            std::vector<std::string>{"batch_size=128 verdict=Regressed 1.000000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_reference_ratio"),
            std::vector<std::string>{"batch_size=128 metric=effective_throughput 0.900000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_reference_lower"),
            std::vector<std::string>{"batch_size=128 metric=effective_throughput 950.000000"});
  EXPECT_TRUE(samples(families, "hetbench_benchmark_energy_joules").empty());
  EXPECT_EQ(nonZero(families, "hetbench_benchmark_trials_total"),
            (std::vector<std::string>{"batch_size=128 result=Regressed 1.000000",
                                      "batch_size=256 result=Failed 1.000000"}));
  EXPECT_EQ(samples(families, "hetbench_benchmark_trials_total").size(), 14u);  // 2 × 7 results
  EXPECT_EQ(samples(families, "hetbench_benchmark_consecutive_failures"),
            (std::vector<std::string>{"batch_size=128 0.000000", "batch_size=256 1.000000"}));

  // A later run of the same configuration passes: the gauges follow it, the counters add up,
  // and seeing a run again counts nothing twice.
  json later = run("uid-2", "b");
  later["status"]["trials"][1]["completionTime"] = "2026-11-23T10:00:00Z";
  later["status"]["results"][0]["verdict"] = "Pass";
  later["status"]["results"][0]["metrics"]["effective_throughput"] = stat(1000);
  metrics.observe(later);
  metrics.observe(later);
  metrics.observe(run("uid-1", "a"));
  families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_effective_throughput_samples_per_second"),
            std::vector<std::string>{"batch_size=128 1000.000000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_regressed"),
            std::vector<std::string>{"batch_size=128 0.000000"});
  EXPECT_EQ(samples(families, "hetbench_benchmark_consecutive_failures"),
            (std::vector<std::string>{"batch_size=128 0.000000", "batch_size=256 2.000000"}));
  EXPECT_EQ(nonZero(families, "hetbench_benchmark_trials_total"),
            (std::vector<std::string>{"batch_size=128 result=Pass 1.000000",
                                      "batch_size=128 result=Regressed 1.000000",
                                      "batch_size=256 result=Failed 2.000000"}));

  // Deleting the later run brings the earlier trial back; the counters keep their counts.
  metrics.forget(later);
  families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_effective_throughput_samples_per_second"),
            std::vector<std::string>{"batch_size=128 900.000000"});
  EXPECT_EQ(nonZero(families, "hetbench_benchmark_trials_total").size(), 3u);
}

TEST(BenchmarkMetricsTest, CountersStartAtZeroWhenARunIsAccepted) {
  json accepted = run();
  accepted["status"] = {{"phase", "Pending"}};
  BenchmarkMetrics metrics;
  metrics.observe(accepted);
  const std::vector<prometheus::MetricFamily> families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_trials_total").size(), 14u);
  EXPECT_TRUE(nonZero(families, "hetbench_benchmark_trials_total").empty());
  EXPECT_TRUE(samples(families, "hetbench_benchmark_verdict").empty());
  EXPECT_TRUE(samples(families, "hetbench_benchmark_consecutive_failures").empty());
}

TEST(BenchmarkMetricsTest, FailuresInARowEndWithAJudgedTrial) {
  // Trial 0 (batch 128) misses a metric after its earlier regression: one failure in a row;
  // a later passing run of it ends the streak, while the gauges keep the latest judged trial.
  json missing = run("uid-2", "b");
  missing["status"]["trials"][1]["completionTime"] = "2026-11-23T10:00:00Z";
  missing["status"]["results"][0]["verdict"] = "MetricMissing";
  BenchmarkMetrics metrics;
  metrics.observe(run("uid-1", "a"));
  metrics.observe(missing);
  std::vector<prometheus::MetricFamily> families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_consecutive_failures"),
            (std::vector<std::string>{"batch_size=128 1.000000", "batch_size=256 2.000000"}));
  EXPECT_EQ(samples(families, "hetbench_benchmark_verdict"),
            std::vector<std::string>{"batch_size=128 verdict=MetricMissing 1.000000"});

  json passed = run("uid-3", "c");
  passed["status"]["trials"][1]["completionTime"] = "2026-11-24T10:00:00Z";
  passed["status"]["results"][0]["verdict"] = "Pass";
  metrics.observe(passed);
  families = metrics.Collect();
  EXPECT_EQ(samples(families, "hetbench_benchmark_consecutive_failures"),
            (std::vector<std::string>{"batch_size=128 0.000000", "batch_size=256 3.000000"}));
}

TEST(BenchmarkMetricsTest, ARestartedOperatorRebuildsTheSameSeries) {
  BenchmarkMetrics before;
  json r = run();
  before.observe(r);
  BenchmarkMetrics after;
  after.observe(r);
  const std::vector<prometheus::MetricFamily> a = before.Collect();
  const std::vector<prometheus::MetricFamily> b = after.Collect();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(samples(a, a[i].name), samples(b, b[i].name)) << a[i].name;
}

TEST(BenchmarkMetricsTest, OnlyTheLeaderExports) {
  bool leading = false;
  BenchmarkMetrics metrics([&leading] { return leading; });
  metrics.observe(run());
  EXPECT_TRUE(metrics.Collect().empty());
  leading = true;
  EXPECT_FALSE(metrics.Collect().empty());
}

}  // namespace
}  // namespace hetbench::metrics
