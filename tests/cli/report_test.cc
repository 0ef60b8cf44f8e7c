#include "hetbench/cli/report.h"

#include <gtest/gtest.h>

#include "hetbench/benchmark/series.h"
#include "hetbench/cli/report_figures.h"
#include "hetbench/cli/report_html.h"
#include "hetbench/common/time.h"
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

// Verifies that a row carries the global batch size of its trial's workload, after substitution.
TEST(Report, RowsCarryTheBatchSize) {
  json swept = run("a", 1000);
  swept["spec"]["matrix"]["batch"] = json::array({32});
  swept["spec"]["workload"]["training"] = {{"batchSize", "$(params.batch)"}};
  swept["status"]["results"][0]["parameters"]["batch"] = "32";
  swept["status"]["results"][1]["parameters"]["batch"] = "32";
  const std::vector<ReportRow> rows = reportRows({swept, run("b", 1000)});
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].batchSize, 32);
  EXPECT_FALSE(rows[2].batchSize);
}

TEST(Report, ObjectsOfEachKind) {
  const json list = {{"kind", "List"},
                     {"items", json::array({run("a", 1), {{"kind", "BenchmarkSeries"}}})}};
  EXPECT_EQ(objectsFromJson(list.dump(), "BenchmarkSeries").value().size(), 1u);
  EXPECT_EQ(objectsFromJson(list.dump(), "BenchmarkRun").value().size(), 1u);
  // The API server lists items without their kind.
  const json series = {{"kind", "BenchmarkSeriesList"}, {"items", json::array({json::object()})}};
  EXPECT_EQ(objectsFromJson(series.dump(), "BenchmarkSeries").value().size(), 1u);
  EXPECT_TRUE(objectsFromJson(series.dump(), "BenchmarkRun").value().empty());
  EXPECT_TRUE(objectsFromJson("{", "BenchmarkRun").status().isInvalid());
}

ReportRow sweepRow(const std::string& hardware, std::int64_t units, std::int64_t batch,
                   double effective) {
  ReportRow row;
  row.benchmark = "resnet50";
  row.hardware = hardware;
  row.units = units;
  row.batchSize = batch;
  row.effectiveThroughput = Stat{effective, 3, 3};
  return row;
}

// Verifies figure 1: one line per accelerator at its smallest count, repeated trials averaged
// with the root mean square of their spreads, rows lacking a field left out.
TEST(ReportFigures, ThroughputByBatchSize) {
  std::vector<ReportRow> rows = {sweepRow("A100", 2, 64, 900), sweepRow("A100", 1, 64, 500),
                                 sweepRow("A100", 1, 32, 300), sweepRow("A100", 1, 32, 340),
                                 sweepRow("H100", 4, 32, 2000)};
  rows.push_back(sweepRow("A100", 1, 16, 100));
  rows.back().batchSize.reset();
  rows.push_back(sweepRow("A100", 1, 16, 100));
  rows.back().effectiveThroughput.reset();
  rows[3].effectiveThroughput->stddev = 4;
  const std::vector<LinePoint> points = throughputByBatchSize(rows);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].line, "resnet50 · A100 ×1");
  EXPECT_EQ(points[0].x, 32);
  EXPECT_DOUBLE_EQ(points[0].y, 320);
  EXPECT_DOUBLE_EQ(points[0].spread, std::sqrt((9.0 + 16.0) / 2));
  EXPECT_EQ(points[0].trials, 2);
  EXPECT_EQ(points[1].x, 64);
  EXPECT_DOUBLE_EQ(points[1].y, 500);
  EXPECT_EQ(points[2].line, "resnet50 · H100 ×4");
}

// Verifies figure 2: lines per accelerator and batch size measured at two counts or more, the
// ideal linear from the smallest count.
TEST(ReportFigures, ScalingHasTheLinearIdeal) {
  const std::vector<ScalingPoint> points = scalingByCount(
      {sweepRow("A100", 2, 64, 900), sweepRow("A100", 1, 64, 500), sweepRow("A100", 4, 64, 1500),
       sweepRow("H100", 4, 64, 2000), sweepRow("A100", 1, 32, 300)});
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].measured.line, "resnet50 · A100 · batch 64");
  EXPECT_EQ(points[0].measured.x, 1);
  EXPECT_DOUBLE_EQ(points[0].ideal, 500);
  EXPECT_DOUBLE_EQ(points[1].ideal, 1000);
  EXPECT_DOUBLE_EQ(points[2].measured.y, 1500);
  EXPECT_DOUBLE_EQ(points[2].ideal, 2000);
  EXPECT_TRUE(scalingByCount({sweepRow("A100", 1, 64, 500)}).empty());
}

// Verifies figures 3 and 4: per configuration, only trials with the metrics, energy inverted.
TEST(ReportFigures, IoShareAndEnergyPerConfiguration) {
  std::vector<ReportRow> rows = {sweepRow("A100", 1, 64, 500), sweepRow("A100", 1, 64, 700),
                                 sweepRow("A100", 2, 64, 900)};
  rows[0].computeThroughput = Stat{800, 0, 3};
  rows[1].computeThroughput = Stat{1000, 0, 3};
  rows[0].samplesPerWh = Stat{7200, 720, 3};
  rows[2].samplesPerWh = Stat{0, 0, 1};  // not measured
  const std::vector<IoShare> shares = ioShares(rows);
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].configuration, "resnet50 · A100 ×1 · batch 64");
  EXPECT_DOUBLE_EQ(shares[0].compute, 900);
  EXPECT_DOUBLE_EQ(shares[0].effective, 600);
  const std::vector<EnergyPoint> energy = energyPerSample(rows);
  ASSERT_EQ(energy.size(), 1u);
  EXPECT_DOUBLE_EQ(energy[0].joulesPerSample, 0.5);
  EXPECT_DOUBLE_EQ(energy[0].spread, 3600.0 * 720 / (7200.0 * 7200));
}

json seriesObject(const std::vector<double>& values) {
  benchmark::SeriesSpec spec;
  spec.configuration = {"lab", "resnet50", "eidf", "A100", "4", "1", "256", "fp32", ""};
  spec.metric = "effective_throughput";
  benchmark::SeriesStatus status;
  for (std::size_t i = 0; i < values.size(); ++i) {
    benchmark::SeriesPoint p;
    p.time = common::WallTime(std::chrono::hours(24 * (20000 + static_cast<int>(i))));
    p.run = "nightly-" + std::to_string(i);
    p.runUid = "uid-" + std::to_string(i);
    p.value = values[i];
    p.verdict = "Pass";
    status.points.push_back(p);
  }
  return {{"kind", "BenchmarkSeries"},
          {"metadata", {{"name", "resnet50-0123456789"}, {"namespace", "lab"}}},
          {"spec", benchmark::toJson(spec)},
          {"status", benchmark::toJson(status)}};
}

// Verifies figure 5: the band from the latest change point, worse changes, alarms on the run's
// Regressed verdict, a confirmed regression and a latest suspect point.
TEST(ReportFigures, HistoryMarksRegressions) {
  json object = seriesObject({100, 101, 99, 80, 81, 70});
  object["status"]["baseline"] = 80.5;
  object["status"]["noise"] = 1.0;
  object["status"]["state"] = "Suspect";
  object["status"]["points"][4]["verdict"] = "Regressed";
  object["status"]["changes"] = json::array({{{"time", object["status"]["points"][3]["time"]},
                                              {"run", "nightly-3"},
                                              {"before", 100},
                                              {"after", 80}}});
  object["status"]["confirmation"] = {
      {"run", "nightly-3"}, {"runUid", "uid-3"}, {"trial", 0}, {"state", "Regressed"}};
  const std::vector<History> found = histories({object, seriesObject({})});
  ASSERT_EQ(found.size(), 1u);  // the series without points has no figure
  const History& h = found[0];
  EXPECT_EQ(h.title, "resnet50 · A100 ×4 · batch 256 · eidf (resnet50-0123456789)");
  ASSERT_EQ(h.points.size(), 6u);
  std::vector<std::string> alarms;
  for (const HistoryPoint& p : h.points) alarms.push_back(p.alarm);
  EXPECT_EQ(alarms, (std::vector<std::string>{"", "", "", "Regressed", "Regressed", "Suspect"}));
  ASSERT_EQ(h.changes.size(), 1u);
  EXPECT_TRUE(h.changes[0].worse);
  ASSERT_TRUE(h.band);
  EXPECT_EQ(h.band->from, h.points[3].time);
  EXPECT_EQ(h.band->to, h.points[5].time);
  EXPECT_DOUBLE_EQ(h.band->low, 80.5 - 3.0);  // 3 × noise exceeds 2% of the baseline
  EXPECT_DOUBLE_EQ(h.band->high, 80.5 + 3.0);

  object["spec"]["direction"] = "lower";
  object["status"].erase("noise");
  const History lower = histories({object})[0];
  EXPECT_FALSE(lower.changes[0].worse);
  EXPECT_FALSE(lower.band);
}

const PlottingLibrary kFakeLibrary{"var vega = {};", "var vegaLite = {};", "var vegaEmbed;"};

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Verifies that no value of a run can end the page's script elements or open a comment: run
// names and labels are JSON inside <script>, and HTML in the table.
TEST(ReportHtml, DataCannotEscapeItsScript) {
  const std::string hostile = "</script><script>alert(1)</script><!-- & \u2028\xE2\x80\xA8";
  const std::string safe = scriptSafeJson(json{{"run", hostile}});
  EXPECT_EQ(safe.find('<'), std::string::npos) << safe;
  EXPECT_EQ(safe.find('>'), std::string::npos);
  EXPECT_EQ(safe.find('&'), std::string::npos);
  EXPECT_EQ(safe.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(json::parse(safe)["run"], hostile);

  std::vector<ReportRow> rows = {sweepRow(hostile, 1, 64, 500), sweepRow("A100", 2, 64, 900)};
  rows[0].run = hostile;
  json series = seriesObject({1, 2});
  series["status"]["points"][0]["run"] = hostile;
  const common::Result<std::string> page = renderHtmlReport(rows, {series}, kFakeLibrary);
  ASSERT_TRUE(page.isOk()) << page.status().toString();
  // The page's own elements: the problem recorder, three bundles, the figures' data, the driver.
  EXPECT_EQ(occurrences(page.value(), "</script"), 6u);
  EXPECT_EQ(occurrences(page.value(), "<script"), 6u);
  EXPECT_EQ(occurrences(page.value(), "<!--"), 0u);
  EXPECT_NE(page.value().find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos);
}

// Verifies that a bundle that would end its element is inlined as a data: URL instead.
TEST(ReportHtml, ScriptsThatWouldCloseTheirElementGoAsDataUrls) {
  EXPECT_EQ(inlineScript("let a = 1;"), "<script>let a = 1;</script>\n");
  EXPECT_EQ(inlineScript("'</SCRIPT>'"),
            "<script src=\"data:text/javascript;base64,JzwvU0NSSVBUPic=\"></script>\n");
  EXPECT_EQ(inlineScript("<!--x"),
            "<script src=\"data:text/javascript;base64,PCEtLXg=\"></script>\n");
}

// Verifies that every figure without data is replaced by a note, and that the bundles are
// required.
TEST(ReportHtml, FiguresWithoutDataSaySo) {
  const common::Result<std::string> empty = renderHtmlReport({}, {}, kFakeLibrary);
  ASSERT_TRUE(empty.isOk());
  EXPECT_EQ(occurrences(empty.value(), "<p class=\"no-data\">No data"), 5u);
  EXPECT_EQ(occurrences(empty.value(), "class=\"figure\""), 0u);

  const common::Result<std::string> some =
      renderHtmlReport({sweepRow("A100", 1, 64, 500)}, {}, kFakeLibrary);
  ASSERT_TRUE(some.isOk());
  EXPECT_EQ(occurrences(some.value(), "<p class=\"no-data\">No data"), 4u);
  EXPECT_NE(some.value().find("<div class=\"figure\" id=\"fig-batch\">"), std::string::npos);
  EXPECT_NE(some.value().find(R"("marks":{"line":1,"symbol":1})"), std::string::npos);

  const common::Result<std::string> unbuilt = renderHtmlReport({}, {}, PlottingLibrary{});
  EXPECT_TRUE(unbuilt.status().isUnavailable());
  EXPECT_NE(unbuilt.status().message().find("run scripts/npm-tools"), std::string::npos);
}

TEST(Report, FormatNames) {
  EXPECT_EQ(parseFormat("markdown").value(), Format::kMarkdown);
  EXPECT_TRUE(parseFormat("yaml").status().isInvalid());
}

}  // namespace
}  // namespace hetbench::cli
