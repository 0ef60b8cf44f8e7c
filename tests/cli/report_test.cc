#include "hetbench/cli/report.h"

#include <gtest/gtest.h>

#include "hetbench/metrics/benchmark_metrics.h"

namespace hetbench::cli {
namespace {

using nlohmann::json;

json stat(double mean, double stddev, int n) {
  return {{"mean", mean}, {"stddev", stddev}, {"min", mean}, {"max", mean}, {"n", n}};
}

json run(const std::string& name, double throughput) {
  return {
      {"apiVersion", "hetbench.io/v1alpha1"},
      {"kind", "BenchmarkRun"},
      {"metadata", {{"name", name}, {"namespace", "lab"}}},
      {"spec",
       {{"benchmark", "resnet50"},
        {"system", "eidf-a100"},
        {"matrix", {{"gpus", json::array({1, 4})}}},
        {"workload",
         {{"kind", "Job"},
          {"image", "hetbench/train:cuda"},
          {"nodes", 2},
          {"accelerator",
           {{"resource", "nvidia.com/gpu"},
            {"count", "$(params.gpus)"},
            {"product", "NVIDIA-A100-SXM4-40GB"}}}}}}},
      {"status",
       {{"results",
         json::array({{{"trial", 0},
                       {"parameters", {{"gpus", "1"}}},
                       {"verdict", "Pass"},
                       {"metrics",
                        {{"effective_throughput", stat(throughput, 2.5, 3)},
                         {"compute_throughput", stat(1200, 0, 3)},
                         {"compute_fraction", stat(0.8125, 0.01, 3)}}}},
                      {{"trial", 1},
                       {"parameters", {{"gpus", "4"}}},
                       {"verdict", "Regressed"},
                       {"metrics", {{"effective_throughput", stat(throughput * 3, 0, 1)}}}}})}}}};
}

TEST(Report, RowsCarryHardwareUnitsAndStatistics) {
  const std::vector<ReportRow> rows = reportRows({run("a", 1000), {{"kind", "BenchmarkRun"}}});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].run, "lab/a");
  EXPECT_EQ(rows[0].hardware, "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(rows[0].units, 2);  // 1 GPU x 2 nodes
  EXPECT_EQ(rows[1].units, 8);  // 4 GPUs x 2 nodes
  EXPECT_EQ(rows[0].parameters, "gpus=1");
  ASSERT_TRUE(rows[0].effectiveThroughput);
  EXPECT_DOUBLE_EQ(rows[0].effectiveThroughput->stddev, 2.5);
  EXPECT_FALSE(rows[0].samplesPerWh);
  EXPECT_EQ(rows[1].verdict, "Regressed");
}

// Verifies that after a spec edit the controller ignored, the report describes the hardware the
// run was accepted with, as the exporter's series do, and not the edited spec.
TEST(Report, HardwareIsTheAcceptedSpecsAsInTheExporter) {
  json edited = run("a", 1000);
  edited["metadata"]["annotations"]["hetbench.io/accepted-spec"] = edited["spec"].dump();
  edited["spec"]["workload"]["accelerator"]["product"] = "NVIDIA-H100-80GB-HBM3";
  edited["spec"]["workload"]["nodes"] = 1;
  edited["status"]["trials"] = json::array(
      {{{"trial", 0}, {"repetition", 0}, {"phase", "Succeeded"}, {"parameters", {{"gpus", "1"}}}},
       {{"trial", 1}, {"repetition", 0}, {"phase", "Succeeded"}, {"parameters", {{"gpus", "4"}}}}});
  const std::vector<ReportRow> rows = reportRows({edited});
  const std::vector<metrics::FinishedTrial> exported = metrics::finishedTrials(edited);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(exported.size(), 2u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].hardware, "NVIDIA-A100-SXM4-40GB");
    EXPECT_EQ(rows[i].hardware, exported[i].configuration.accelerator);
    EXPECT_EQ(std::to_string(*rows[i].units), exported[i].configuration.accelerators);
  }
}

TEST(Report, Formats) {
  const std::vector<ReportRow> rows = reportRows({run("a", 1000)});
  EXPECT_EQ(renderReport(rows, Format::kCsv),
            "RUN,BENCHMARK,SYSTEM,TRIAL,PARAMETERS,HARDWARE,UNITS,COMPUTE (samples/s),"
            "COMPUTE FRACTION,EFFECTIVE (samples/s),ENERGY (samples/Wh),VERDICT\n"
            "lab/a,resnet50,eidf-a100,0,gpus=1,NVIDIA-A100-SXM4-40GB,2,1200.0,0.8125,1000.0,-,"
            "Pass\n"
            "lab/a,resnet50,eidf-a100,1,gpus=4,NVIDIA-A100-SXM4-40GB,8,-,-,3000.0,-,Regressed\n");
  const std::string markdown = renderReport(rows, Format::kMarkdown);
  EXPECT_NE(
      markdown.find("| lab/a | resnet50 | eidf-a100 | 0 | gpus=1 | NVIDIA-A100-SXM4-40GB | 2 | "
                    "1200.0 ± 0.0 | 0.8125 ± 0.01 | 1000.0 ± 2.5 | - | Pass |"),
      std::string::npos)
      << markdown;
  const std::string table = renderReport(rows, Format::kTable);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
  const json parsed = json::parse(renderReport(rows, Format::kJson));
  EXPECT_EQ(parsed[1]["effective_throughput"]["mean"], 3000.0);
  EXPECT_TRUE(parsed[0]["samples_per_wh"].is_null());
}

TEST(Report, CsvQuotesWhatNeedsIt) {
  ReportRow row;
  row.run = "lab/a";
  row.parameters = "batch=64, gpus=2";
  row.hardware = "say \"x\"";
  const std::string csv = renderReport({row}, Format::kCsv);
  EXPECT_NE(csv.find(",\"batch=64, gpus=2\",\"say \"\"x\"\"\","), std::string::npos) << csv;
}

TEST(Report, CompareGivesRatiosOfSharedTrials) {
  auto rows = compareRuns(run("a", 1000), run("b", 900));
  ASSERT_TRUE(rows.isOk()) << rows.status().toString();
  ASSERT_EQ(rows.value().size(), 4u);  // trial 0: 3 metrics, trial 1: 1
  const ComparisonRow& first = rows.value()[0];
  EXPECT_EQ(first.metric, "compute_fraction");
  EXPECT_DOUBLE_EQ(first.ratio, 1.0);
  const ComparisonRow& effective = rows.value()[2];
  EXPECT_EQ(effective.metric, "effective_throughput");
  EXPECT_DOUBLE_EQ(effective.ratio, 0.9);
  EXPECT_NE(renderComparison(rows.value(), Format::kTable).find("0.900"), std::string::npos);

  json other = run("c", 1);
  other["status"]["results"][0]["parameters"]["gpus"] = "2";
  other["status"]["results"][1]["parameters"]["gpus"] = "8";
  EXPECT_TRUE(compareRuns(run("a", 1000), other).status().isInvalid());
}

TEST(Report, RunsFromKubectlOutput) {
  const json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array({run("a", 1)})}};
  auto runs = runsFromJson(list.dump());
  ASSERT_TRUE(runs.isOk());
  EXPECT_EQ(runs.value().size(), 1u);
  EXPECT_TRUE(runsFromJson(run("a", 1).dump()).isOk());
  EXPECT_TRUE(runsFromJson("not json").status().isInvalid());
  EXPECT_TRUE(runsFromJson(R"({"kind":"List","items":[{"kind":"Pod"}]})").status().isInvalid());
}

TEST(Report, FormatNames) {
  EXPECT_EQ(parseFormat("markdown").value(), Format::kMarkdown);
  EXPECT_TRUE(parseFormat("yaml").status().isInvalid());
}

}  // namespace
}  // namespace hetbench::cli
