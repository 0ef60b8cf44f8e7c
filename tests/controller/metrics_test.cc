// The hetbench-operator binary against kubesim: what its /metrics endpoint shows of the runs it
// judged and of the BenchmarkSeries their trials join, and that a restarted operator shows the
// same benchmark series.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "hetbench/controller/series_reconciler.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;

/// A resnet50 run of `samples` samples per 10 s epoch over 2 measured epochs, at global batch
/// `batch`, judged against a reference of 100 samples/s (5% below allowed).
json throughputSpec(int samples, int batch) {
  std::string script =
      "echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
      "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":" +
      std::to_string(batch) +
      ",\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\",\"count\":1}}'"
      ";";
  for (int e = 0; e < 3; ++e) {
    script += "echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":" + std::to_string(e) +
              ",\"rank\":0,\"samples\":" + std::to_string(samples) +
              ",\"wall_seconds\":10,\"io_seconds\":2,\"compute_seconds\":8}';";
  }
  json spec = scriptSpec(script);
  spec["benchmark"] = "resnet50";
  spec["workload"]["training"] = {{"batchSize", batch}, {"precision", "fp32"}};
  spec["references"] = {{"effective_throughput", {{"value", 100}, {"lower", 0.05}}}};
  return spec;
}

/// The sample lines of a text exposition whose name starts with `prefix`, sorted.
std::vector<std::string> sampleLines(const std::string& exposition, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(prefix)) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

/// What `promtool check metrics` says about an exposition (written to `file`): "" when nothing
/// is wrong; fails the test when promtool exits non-zero.
std::string lint(const std::string& exposition, const std::filesystem::path& file) {
  std::ofstream(file) << exposition;
  const std::string command =
      std::string(HETBENCH_PROMTOOL) + " check metrics < " + file.string() + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return "";
  }
  std::string problems;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) problems += buffer;
  EXPECT_EQ(::pclose(pipe), 0) << problems;
  return problems;
}

/// The value of the one sample of `name` whose labels contain every one of `labels`; nullopt
/// when there is none.
std::optional<double> valueOf(const std::string& exposition, const std::string& name,
                              const std::vector<std::string>& labels) {
  for (const std::string& line : sampleLines(exposition, name)) {
    if (line[name.size()] != '{' && line[name.size()] != ' ') continue;  // a longer name
    if (!std::all_of(labels.begin(), labels.end(),
                     [&](const std::string& l) { return line.find(l) != std::string::npos; }))
      continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

// Verifies the benchmark series are keyed by configuration (one per global batch size, no run
// or pod names), carry the judged values, count trials by result, sit beside the operator's
// own series, and come back with the same values after a restart.
TEST_F(OperatorTest, BenchmarkSeriesSurviveARestart) {
  OperatorProcess& first = startOperator();
  createRun("fast", throughputSpec(1000, 32));
  createRun("slow", throughputSpec(800, 64));
  waitForPhase("fast", "Succeeded");
  waitForPhase("slow", "Succeeded");

  std::string scraped;
  ASSERT_TRUE(eventually([&] {
    scraped = first.scrapeMetrics().value_or("");
    return sampleLines(scraped, "hetbench_benchmark_verdict{").size() == 2;
  })) << scraped;
  const std::string effective = "hetbench_benchmark_effective_throughput_samples_per_second";
  EXPECT_EQ(valueOf(scraped, effective,
                    {"namespace=\"default\"", "benchmark=\"resnet50\"", "system=\"cpu\"",
                     "accelerator=\"\"", "accelerators=\"0\"", "nodes=\"1\"", "batch_size=\"32\"",
                     "precision=\"fp32\""}),
            100.0)
      << scraped;
  EXPECT_EQ(valueOf(scraped, effective, {"batch_size=\"64\""}), 80.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_compute_fraction", {"batch_size=\"32\""}), 0.8);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_epoch_seconds", {"batch_size=\"32\""}), 10.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_io_seconds", {"batch_size=\"32\""}), 2.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_regressed", {"batch_size=\"32\""}), 0.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_regressed", {"batch_size=\"64\""}), 1.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_reference_ratio",
                    {"batch_size=\"64\"", "metric=\"effective_throughput\""}),
            0.8);
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_reference_lower", {"batch_size=\"64\""}), 95.0);
  EXPECT_FALSE(valueOf(scraped, "hetbench_benchmark_reference_upper", {}));  // open above
  EXPECT_EQ(valueOf(scraped, "hetbench_benchmark_trials_total",
                    {"batch_size=\"64\"", "result=\"Regressed\""}),
            1.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_runs", {"namespace=\"default\"", "phase=\"Succeeded\""}),
            2.0);
  EXPECT_GT(valueOf(scraped, "hetbench_log_bytes_total", {}).value_or(0), 0.0);
  EXPECT_TRUE(valueOf(scraped, "controller_runtime_reconcile_total", {"result=\"success\""}));
  EXPECT_TRUE(valueOf(scraped, "hetbench_watch_restarts_total", {"resource=\"benchmarkruns\""}));
  EXPECT_NE(scraped.find("\nprocess_resident_memory_bytes "), std::string::npos);
  for (const std::string& line : sampleLines(scraped, "hetbench_benchmark_")) {
    for (const char* unbounded : {"fast", "slow", "pod=", "uid=", "run="})
      EXPECT_EQ(line.find(unbounded), std::string::npos) << line;
  }

  // Prometheus' own linter finds nothing wrong with the exposition.
  EXPECT_EQ(lint(scraped, dir_.path() / "metrics.txt"), "");

  const std::vector<std::string> before = sampleLines(scraped, "hetbench_benchmark_");
  ASSERT_EQ(first.terminate(std::chrono::seconds(10)), 0);
  OperatorProcess& second = startOperator();
  std::vector<std::string> after;
  EXPECT_TRUE(eventually([&] {
    after = sampleLines(second.scrapeMetrics().value_or(""), "hetbench_benchmark_");
    return after == before;
  })) << ::testing::PrintToString(after)
      << "\nwas\n"
      << ::testing::PrintToString(before);
}

// Verifies the history of a configuration on /metrics: once a judged trial is a point of the
// BenchmarkSeries of its configuration, the series' gauges carry the configuration's labels as
// the benchmark series do, the series' name and metric, and what its status says; they go with
// the series.
TEST_F(OperatorTest, TheSeriesOfAConfigurationIsExported) {
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkseries.yaml", kBenchmarkSeries));
  OperatorProcess& op = startOperator();
  createRun("fast", throughputSpec(1000, 32));
  waitForPhase("fast", "Succeeded");

  std::string scraped;
  ASSERT_TRUE(eventually([&] {
    scraped = op.scrapeMetrics().value_or("");
    return valueOf(scraped, "hetbench_series_latest", {}).has_value();
  })) << scraped;
  const common::Result<kube::ListResult> listed = client_->list(kBenchmarkSeries, "default", {});
  ASSERT_TRUE(listed.isOk() && listed.value().items.size() == 1);
  const std::string name = listed.value().items[0]["metadata"]["name"];
  const std::string series = "series=\"" + name + "\"";
  EXPECT_EQ(valueOf(scraped, "hetbench_series_points",
                    {"namespace=\"default\"", "benchmark=\"resnet50\"", "system=\"cpu\"",
                     "accelerator=\"\"", "accelerators=\"0\"", "nodes=\"1\"", "batch_size=\"32\"",
                     "precision=\"fp32\"", series, "metric=\"effective_throughput\""}),
            1.0)
      << scraped;
  EXPECT_EQ(valueOf(scraped, "hetbench_series_latest", {series}), 100.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_series_state", {series, "state=\"InsufficientHistory\""}),
            1.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_series_state", {series, "state=\"Suspect\""}), 0.0);
  EXPECT_EQ(valueOf(scraped, "hetbench_series_change_points", {series}), 0.0);
  EXPECT_FALSE(valueOf(scraped, "hetbench_series_baseline", {}));  // one trial: no baseline yet
  EXPECT_FALSE(valueOf(scraped, "hetbench_series_last_change_timestamp_seconds", {}));
  EXPECT_EQ(lint(scraped, dir_.path() / "metrics.txt"), "");

  ASSERT_TRUE(client_->remove(kBenchmarkSeries, "default", name, {}).isOk());
  EXPECT_TRUE(eventually([&] {
    scraped = op.scrapeMetrics().value_or("");
    return sampleLines(scraped, "hetbench_series_").empty();
  })) << scraped;
}

}  // namespace
}  // namespace hetbench::controller::testing
