// metrics_bench: what the hetbench_benchmark_* series cost the operator. Feeds --runs
// BenchmarkRuns (each with --trials judged trials of its own configuration) to BenchmarkMetrics
// as the informer would, then times a scrape (Collect) and prints its size.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_util.h"
#include "hetbench/benchmark/constants.h"
#include "hetbench/metrics/benchmark_metrics.h"

namespace bench = hetbench::bench;
namespace common = hetbench::common;

namespace {

using nlohmann::json;

/// A finished run whose trials sweep the global batch size: one configuration per trial.
json run(int index, int trials) {
  json batches = json::array();
  for (int t = 0; t < trials; ++t) batches.push_back(std::to_string(32 << t));
  const json spec = {
      {"benchmark", "resnet50"},
      {"system", "system-" + std::to_string(index)},
      {"matrix", {{"batch", batches}}},
      {"workload",
       {{"image", "hetbench/train:cpu"},
        {"accelerator",
         {{"resource", "nvidia.com/gpu"}, {"count", 4}, {"product", "NVIDIA-A100-SXM4-40GB"}}},
        {"training", {{"batchSize", "$(params.batch)"}, {"precision", "bf16"}}}}},
      {"references", {{"effective_throughput", {{"value", 1000}, {"lower", 0.05}}}}}};
  json units = json::array();
  json results = json::array();
  for (int t = 0; t < trials; ++t) {
    units.push_back({{"trial", t},
                     {"repetition", 0},
                     {"parameters", {{"batch", batches[static_cast<std::size_t>(t)]}}},
                     {"phase", "Succeeded"},
                     {"completionTime", "2026-11-22T10:00:00Z"},
                     {"metrics",
                      {{"epochs", 2},
                       {"values",
                        {{"effective_throughput", 990},
                         {"compute_throughput", 1100},
                         {"compute_fraction", 0.9},
                         {"wall_seconds", 20},
                         {"io_seconds", 2}}}}}});
    results.push_back({{"trial", t},
                       {"verdict", "Pass"},
                       {"repetitions", 1},
                       {"metrics", {{"effective_throughput", {{"mean", 990}, {"n", 1}}}}}});
  }
  return {{"metadata",
           {{"name", "run-" + std::to_string(index)},
            {"namespace", "bench"},
            {"uid", "uid-" + std::to_string(index)},
            {"annotations",
             {{std::string(hetbench::benchmark::kAcceptedSpecAnnotation), spec.dump()}}}}},
          {"spec", spec},
          {"status", {{"phase", "Succeeded"}, {"trials", units}, {"results", results}}}};
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t runs = 1000;
  std::int64_t trials = 4;
  common::FlagSet flags("metrics_bench", "Cost of the benchmark series per scrape.");
  flags.addInt("runs", &runs, "BenchmarkRuns to feed", 1, 100000);
  flags.addInt("trials", &trials, "judged trials (configurations) per run", 1, 20);
  if (std::optional<int> exit = bench::parseFlags(flags, argc, argv)) return *exit;

  std::vector<json> all;
  for (std::int64_t i = 0; i < runs; ++i)
    all.push_back(run(static_cast<int>(i), static_cast<int>(trials)));
  const long before = bench::residentKiB();
  hetbench::metrics::BenchmarkMetrics metrics;
  const auto observeStart = bench::Clock::now();
  for (const json& r : all) metrics.observe(r);
  const double observe = bench::seconds(bench::Clock::now() - observeStart);
  const long state = bench::residentKiB() - before;
  const auto collectStart = bench::Clock::now();
  const std::vector<prometheus::MetricFamily> families = metrics.Collect();
  const double collect = bench::seconds(bench::Clock::now() - collectStart);
  std::size_t series = 0;
  for (const auto& f : families) series += f.metric.size();
  std::printf("runs %lld, configurations %lld\n", static_cast<long long>(runs),
              static_cast<long long>(runs * trials));
  std::printf("observe (informer adds): %.1f us per run\n",
              observe / static_cast<double>(runs) * 1e6);
  std::printf("collect (one scrape): %.1f ms for %zu series\n", collect * 1e3, series);
  std::printf("resident memory: %.1f MiB for the series' state, %.1f MiB more during a scrape\n",
              static_cast<double>(state) / 1024.0,
              static_cast<double>(bench::residentKiB() - before - state) / 1024.0);
  return 0;
}
