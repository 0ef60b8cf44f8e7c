// Debian's prometheus server, started here on loopback, scrapes the hetbench-operator after runs
// against kubesim, with the rules of manifests/observability loaded; every PromQL expression of
// those rules and of the Grafana dashboards then evaluates through Prometheus' HTTP API.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "hetbench/benchmark/series.h"
#include "hetbench/common/percent_encoding.h"
#include "hetbench/controller/series_reconciler.h"
#include "http/test_client.h"
#include "operator_fixture.h"
#include "support/kubesim_client.h"

namespace hetbench::controller::testing {
namespace {

using nlohmann::json;
using testing_support::freePort;

/// An instant query's answer: "error: ..." when Prometheus refused it, else its result.
struct Answer {
  std::string error;
  json result;
  /// A vector or matrix with at least one series, or a scalar or string.
  bool hasData() const { return error.empty() && (!result.is_array() || !result.empty()); }
};

Answer query(std::uint16_t port, const std::string& expression) {
  const std::optional<http::testing::Response> response =
      http::testing::get(port, "/api/v1/query?query=" + common::percentEncode(expression));
  if (!response) return {"no answer", nullptr};
  const json body = json::parse(response->body, nullptr, false);
  if (!body.is_object() || body.value("status", "") != "success")
    return {"HTTP " + std::to_string(response->status) + ": " + response->body, nullptr};
  return {"", body["data"]["result"]};
}

/// One line of scripts/promql-exprs: FILE, LOCATION and EXPRESSION, tab-separated.
struct Expression {
  std::string file;
  std::string location;
  std::string text;
};

std::vector<Expression> expressions() {
  const std::string command =
      std::string(HETBENCH_SOURCE_DIR) + "/scripts/promql-exprs --root " + HETBENCH_SOURCE_DIR;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  EXPECT_EQ(::pclose(pipe), 0) << command;
  std::vector<Expression> out;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t a = line.find('\t');
    const std::size_t b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) {
      ADD_FAILURE() << "not FILE<TAB>LOCATION<TAB>EXPRESSION: " << line;
      continue;
    }
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

/// A run of one 10 s epoch per unit at global batch `batch` that fails when `fail`.
json run(int batch, bool fail) {
  json spec = scriptSpec(
      fail ? "exit 1"
           : "echo ':::HETBENCH {\"v\":1,\"event\":\"run_start\",\"benchmark\":\"resnet50\","
             "\"model\":\"resnet50\",\"world_size\":1,\"rank\":0,\"global_batch_size\":32,"
             "\"precision\":\"fp32\",\"device\":\"cpu\",\"accelerator\":{\"name\":\"cpu\","
             "\"count\":1}}'; echo ':::HETBENCH {\"v\":1,\"event\":\"epoch\",\"epoch\":0,"
             "\"rank\":0,\"samples\":800,\"wall_seconds\":10,\"io_seconds\":2,"
             "\"compute_seconds\":8,\"energy_joules\":2000}'");
  spec["benchmark"] = "resnet50";
  spec["workload"]["training"] = {{"batchSize", batch}, {"precision", "fp32"}};
  spec["references"] = {
      {"effective_throughput", {{"value", 100}, {"lower", 0.05}, {"upper", 0.5}}}};
  return spec;
}

/// Writes the BenchmarkSeries "history" of a configuration of its own (system "history"): 7
/// trials at 100 samples/s, then 10 at 80, judged by the series model, so that it has a change
/// point, a baseline and noise, which the runs here are too few to give their own series.
void writeSeriesWithAChange(kube::KubeClient& client) {
  benchmark::SeriesSpec spec{{"default", "resnet50", "history", "", "0", "1", "64", "fp32", ""},
                             "effective_throughput"};
  benchmark::SeriesStatus status;
  const common::WallTime start{std::chrono::seconds(1'790'000'000)};
  for (int i = 0; i < 17; ++i) {
    benchmark::SeriesPoint point;
    point.time = start + std::chrono::hours(i);
    point.run = "nightly-" + std::to_string(i);
    point.runUid = "uid-" + std::to_string(i);
    point.value = (i < 7 ? 100 : 80) + 0.1 * (i % 3);
    point.spread = 0.1;
    point.repetitions = 3;
    point.verdict = "Pass";
    benchmark::addSeriesPoint(status.points, point);
  }
  benchmark::judgeSeries(spec, status);
  ASSERT_EQ(status.changes.size(), 1u);
  ASSERT_TRUE(status.baseline);
  const json series = {{"apiVersion", "hetbench.io/v1alpha1"},
                       {"kind", "BenchmarkSeries"},
                       {"metadata", {{"name", "history"}, {"namespace", "default"}}},
                       {"spec", benchmark::toJson(spec)}};
  common::Result<json> created = client.create(kBenchmarkSeries, "default", series);
  ASSERT_TRUE(created.isOk()) << created.status().toString();
  json written = std::move(created).value();
  written["status"] = benchmark::toJson(status);
  const common::Result<json> updated = client.updateStatus(kBenchmarkSeries, "default", written);
  ASSERT_TRUE(updated.isOk()) << updated.status().toString();
}

// Verifies, with a real Prometheus scraping a real operator: the operator exposes every series
// of tests/observability/metric_names.txt (those of a BenchmarkSeries with a change point too,
// written here; not those the file names another exporter's), the rules load, every expression
// of the rules and dashboards evaluates, every recording rule, panel, annotation and variable
// returns data (but those over another exporter's metrics, which only evaluate: there is no
// dcgm-exporter here), and the regression and repeated-failure alerts see the runs that warrant
// them. hetbench_workload_pod_info has samples from the pods of the failed runs, which are kept.
// Expressions over a window need a change within it: one run finishes while Prometheus scrapes.
TEST_F(OperatorTest, PrometheusEvaluatesEveryRuleAndDashboardExpression) {
  ASSERT_TRUE(testing_support::installCrd(
      *client_, std::string(HETBENCH_CRDS_DIR) + "/benchmarkseries.yaml", kBenchmarkSeries));
  ASSERT_NO_FATAL_FAILURE(writeSeriesWithAChange(*client_));
  // A bound on the log directory, as the shipped manifests set, for the panel that shows it.
  OperatorProcess& op = startOperator({"--log-dir-max-bytes=1073741824"});
  createRun("regressed", run(32, false));  // 80 samples/s against 100: regressed
  createRun("broken-1", run(16, true));
  createRun("broken-2", run(16, true));
  waitForPhase("regressed", "Succeeded");
  waitForPhase("broken-1", "Failed");
  waitForPhase("broken-2", "Failed");

  // The operator exposes every series of the contract the rules and dashboards are written
  // against, with its type.
  const std::string scraped = op.scrapeMetrics().value_or("");
  std::ifstream contract(std::string(HETBENCH_SOURCE_DIR) +
                         "/tests/observability/metric_names.txt");
  ASSERT_TRUE(contract);
  std::vector<std::string> external;  // metrics of another exporter (a fourth field)
  for (std::string line; std::getline(contract, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    std::string type;
    std::string labels;
    std::string exporter;
    fields >> name >> type >> labels >> exporter;
    if (!exporter.empty()) {
      external.push_back(name);
      continue;
    }
    EXPECT_NE(scraped.find("# TYPE " + name + " " + type + "\n"), std::string::npos)
        << name << " " << type << " is not exposed";
    const std::string sample = type == "histogram" ? name + "_bucket" : name;
    const bool hasSample = scraped.find("\n" + sample + "{") != std::string::npos ||
                           scraped.find("\n" + sample + " ") != std::string::npos;
    EXPECT_TRUE(hasSample) << name << " has no sample";
  }

  const YAML::Node rule = YAML::LoadFile(std::string(HETBENCH_SOURCE_DIR) +
                                         "/manifests/observability/prometheusrule.yaml");
  const std::filesystem::path rules = dir_.path() / "rules.yaml";
  std::ofstream(rules) << YAML::Dump(rule["spec"]);
  // Scraped as the ServiceMonitor says: HTTPS with a token of Prometheus' service account.
  const std::filesystem::path token = dir_.path() / "prometheus.token";
  std::ofstream(token) << metricsToken();
  const std::filesystem::path ca = dir_.path() / "operator-ca.crt";
  std::ofstream(ca) << endpointCertificate_.caCertPem;
  const std::filesystem::path config = dir_.path() / "prometheus.yml";
  std::ofstream(config) << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                        << "rule_files: [" << rules.string() << "]\n"
                        << "scrape_configs:\n"
                        << "- job_name: hetbench-operator-metrics\n"
                        << "  honor_labels: true\n"
                        << "  scheme: https\n"
                        << "  tls_config: {ca_file: " << ca.string() << "}\n"
                        << "  authorization: {credentials_file: " << token.string() << "}\n"
                        << "  static_configs: [{targets: ['127.0.0.1:" << op.metricsPort()
                        << "']}]\n";
  // Prometheus cannot report a port it chose itself: it gets one that was free a moment ago.
  const std::uint16_t port = freePort();
  ChildProcess prometheus(
      HETBENCH_PROMETHEUS,
      {"--config.file=" + config.string(), "--storage.tsdb.path=" + (dir_.path() / "tsdb").string(),
       "--web.listen-address=127.0.0.1:" + std::to_string(port)},
      {}, dir_.path() / "prometheus.log");
  ASSERT_TRUE(eventually([&] {
    std::optional<http::testing::Response> ready = http::testing::get(port, "/-/ready");
    return ready && ready->status == 200;
  })) << prometheus.output();
  ASSERT_TRUE(eventually([&] {
    return query(port, "hetbench_benchmark_consecutive_failures{batch_size=\"16\"} >= 2").hasData();
  })) << "the operator's benchmark series never reached Prometheus\n"
      << prometheus.output();

  // A trial that finishes while Prometheus watches: the annotations of finished trials need one.
  createRun("regressed-again", run(32, false));
  waitForPhase("regressed-again", "Succeeded");

  const std::vector<Expression> all = expressions();
  ASSERT_FALSE(all.empty());
  auto readsExternal = [&external](const Expression& e) {
    return std::any_of(external.begin(), external.end(), [&e](const std::string& name) {
      return e.text.find(name) != std::string::npos;
    });
  };
  std::vector<std::string> empty;
  eventually(
      [&] {
        empty.clear();
        for (const Expression& e : all) {
          const Answer answer = query(port, e.text);
          EXPECT_EQ(answer.error, "") << e.file << " " << e.location << ": " << e.text;
          if (!answer.error.empty()) return true;  // no point waiting
          const bool alert = e.location.find(" alert ") != std::string::npos;
          if (!alert && !answer.hasData() && !readsExternal(e))
            empty.push_back(e.file + " " + e.location + ": " + e.text);
        }
        return empty.empty();
      },
      std::chrono::seconds(60));
  EXPECT_TRUE(empty.empty()) << "no data from:\n" << ::testing::PrintToString(empty);

  for (const char* alert : {"HetbenchBenchmarkRegressed", "HetbenchBenchmarkTrialsFailing"}) {
    bool found = false;
    for (const Expression& e : all) {
      if (e.location.find(std::string(" alert ") + alert) == std::string::npos) continue;
      found = true;
      EXPECT_TRUE(query(port, e.text).hasData()) << alert << " does not see its runs: " << e.text;
    }
    EXPECT_TRUE(found) << "no alert " << alert;
  }
}

}  // namespace
}  // namespace hetbench::controller::testing
