#include "hetbench/cli/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/validate.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/results/metrics.h"

namespace hetbench::cli {
namespace {

using common::member;
using common::stringMember;
using nlohmann::json;

std::string describe(const benchmark::Params& params) {
  std::string out;
  for (const auto& [key, value] : params) out += (out.empty() ? "" : ", ") + key + "=" + value;
  return out.empty() ? "-" : out;
}

std::optional<Stat> statOf(const benchmark::TrialResult& result, std::string_view name) {
  auto it = result.metrics.find(std::string(name));
  if (it == result.metrics.end()) return std::nullopt;
  return Stat{it->second.stats.mean, it->second.stats.stddev, it->second.stats.n};
}

/// The hardware and accelerator count of a trial, from the spec the run was accepted with
/// (what it ran, and what the exporter's labels say), else the spec as it stands.
void hardwareOf(const benchmark::Run& run, const benchmark::Params& params, ReportRow& row) {
  row.hardware = "template";
  std::optional<benchmark::AcceptedRun> accepted = benchmark::acceptedRun(run);
  if (!accepted) {
    common::Result<benchmark::AcceptedRun> current = benchmark::parseRun(run.spec);
    if (!current.isOk()) return;
    accepted = std::move(current).value();
  }
  if (!accepted->spec.workload) return;
  common::Result<benchmark::Workload> workload = benchmark::trialWorkload(accepted->spec, params);
  if (!workload.isOk()) return;
  const benchmark::Accelerator& a = workload.value().accelerator;
  row.hardware = !a.product.empty() ? a.product : !a.resource.empty() ? a.resource : "cpu";
  row.units = (a.resource.empty() ? 1 : a.count) * workload.value().nodes;
  row.batchSize = workload.value().training.batchSize;
}

std::string number(double v) {
  char buffer[64];
  if (std::fabs(v) >= 100 || v == 0) {
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
  }
  return buffer;
}

std::string cell(const std::optional<Stat>& s, bool spread) {
  if (!s) return "-";
  if (!spread || s->n < 2) return number(s->mean);
  return number(s->mean) + " ± " + number(s->stddev);
}

json statJson(const std::optional<Stat>& s) {
  if (!s) return nullptr;
  return {{"mean", s->mean}, {"stddev", s->stddev}, {"n", s->n}};
}

std::string csvQuote(const std::string& value) {
  if (value.find_first_of(",\"\n") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// Renders a table of strings in one of the text formats.
std::string renderCells(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, Format format) {
  std::ostringstream out;
  if (format == Format::kCsv) {
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csvQuote(header[i]);
    out << "\n";
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csvQuote(row[i]);
      out << "\n";
    }
    return out.str();
  }
  if (format == Format::kMarkdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out << "|";
      for (const std::string& c : cells) out << " " << c << " |";
      out << "\n";
    };
    line(header);
    out << "|";
    for (std::size_t i = 0; i < header.size(); ++i) out << " --- |";
    out << "\n";
    for (const auto& row : rows) line(row);
    return out.str();
  }
  std::vector<std::size_t> width(header.size());
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      // Columns are measured in code points, so "±" counts once.
      std::size_t w = 0;
      for (unsigned char c : cells[i]) w += (c & 0xC0) != 0x80;
      width[i] = std::max(width[i], w);
    }
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::size_t w = 0;
      for (unsigned char c : cells[i]) w += (c & 0xC0) != 0x80;
      out << cells[i];
      if (i + 1 < cells.size()) out << std::string(width[i] - w + 2, ' ');
    }
    out << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
  return out.str();
}

}  // namespace

common::Result<Format> parseFormat(const std::string& t) {
  if (t == "table") return Format::kTable;
  if (t == "markdown") return Format::kMarkdown;
  if (t == "csv") return Format::kCsv;
  if (t == "json") return Format::kJson;
  return common::invalidError("--format " + t + ": want table, markdown, csv or json");
}

std::vector<ReportRow> reportRows(const std::vector<json>& runs) {
  std::vector<ReportRow> rows;
  for (const json& object : runs) {
    const benchmark::Run run = benchmark::readRun(object);
    const std::optional<benchmark::AcceptedRun> accepted = benchmark::acceptedRun(run);
    for (const benchmark::TrialResult& result : run.status.results) {
      ReportRow row;
      row.run = run.ref.ns + "/" + run.ref.name;
      row.benchmark = accepted ? benchmark::toString(accepted->spec.benchmark)
                               : stringMember(run.spec, "benchmark");
      row.system = accepted ? accepted->spec.system : stringMember(run.spec, "system");
      row.trial = result.trial;
      row.parameters = describe(result.parameters);
      hardwareOf(run, result.parameters, row);
      row.computeThroughput = statOf(result, results::kComputeThroughput);
      row.computeFraction = statOf(result, results::kComputeFraction);
      row.effectiveThroughput = statOf(result, results::kEffectiveThroughput);
      row.samplesPerWh = statOf(result, results::kSamplesPerWh);
      row.verdict = results::toString(result.verdict);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string renderReport(const std::vector<ReportRow>& rows, Format format) {
  if (format == Format::kJson) {
    json out = json::array();
    for (const ReportRow& r : rows) {
      out.push_back({{"run", r.run},
                     {"benchmark", r.benchmark},
                     {"system", r.system},
                     {"trial", r.trial},
                     {"parameters", r.parameters},
                     {"hardware", r.hardware},
                     {"units", r.units ? json(*r.units) : json(nullptr)},
                     {"compute_throughput", statJson(r.computeThroughput)},
                     {"compute_fraction", statJson(r.computeFraction)},
                     {"effective_throughput", statJson(r.effectiveThroughput)},
                     {"samples_per_wh", statJson(r.samplesPerWh)},
                     {"verdict", r.verdict}});
    }
    return out.dump(2) + "\n";
  }
  std::vector<std::vector<std::string>> table = reportTable(rows, format != Format::kCsv);
  const std::vector<std::string> header = std::move(table.front());
  table.erase(table.begin());
  return renderCells(header, table, format);
}

std::vector<std::vector<std::string>> reportTable(const std::vector<ReportRow>& rows, bool spread) {
  std::vector<std::vector<std::string>> cells = {
      {"RUN", "BENCHMARK", "SYSTEM", "TRIAL", "PARAMETERS", "HARDWARE", "UNITS",
       "COMPUTE (samples/s)", "COMPUTE FRACTION", "EFFECTIVE (samples/s)", "ENERGY (samples/Wh)",
       "VERDICT"}};
  for (const ReportRow& r : rows) {
    cells.push_back({r.run, r.benchmark, r.system, std::to_string(r.trial), r.parameters,
                     r.hardware, r.units ? std::to_string(*r.units) : "-",
                     cell(r.computeThroughput, spread), cell(r.computeFraction, spread),
                     cell(r.effectiveThroughput, spread), cell(r.samplesPerWh, spread),
                     r.verdict.empty() ? "-" : r.verdict});
  }
  return cells;
}

common::Result<std::vector<ComparisonRow>> compareRuns(const json& a, const json& b) {
  auto byParams = [](const benchmark::Run& run) {
    std::map<benchmark::Params, const benchmark::TrialResult*> out;
    for (const benchmark::TrialResult& result : run.status.results) {
      benchmark::Params params = result.parameters;
      if (params.empty()) params["trial"] = std::to_string(result.trial);
      out[params] = &result;
    }
    return out;
  };
  const benchmark::Run runA = benchmark::readRun(a);
  const benchmark::Run runB = benchmark::readRun(b);
  const auto left = byParams(runA);
  const auto right = byParams(runB);
  std::vector<ComparisonRow> rows;
  for (const auto& [params, ra] : left) {
    auto it = right.find(params);
    if (it == right.end()) continue;
    for (const auto& [metric, stats] : ra->metrics) {
      const std::optional<Stat> sb = statOf(*it->second, metric);
      if (!sb) continue;
      ComparisonRow row;
      row.trial = ra->trial;
      row.parameters = describe(ra->parameters);
      row.metric = metric;
      row.a = stats.stats.mean;
      row.b = sb->mean;
      row.ratio = row.a != 0 ? row.b / row.a : std::nan("");
      rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) {
    return common::invalidError(
        "the runs have no finished trial with the same parameters and a metric in common");
  }
  return rows;
}

std::string renderComparison(const std::vector<ComparisonRow>& rows, Format format) {
  if (format == Format::kJson) {
    json out = json::array();
    for (const ComparisonRow& r : rows) {
      out.push_back({{"trial", r.trial},
                     {"parameters", r.parameters},
                     {"metric", r.metric},
                     {"a", r.a},
                     {"b", r.b},
                     {"ratio", std::isnan(r.ratio) ? json(nullptr) : json(r.ratio)}});
    }
    return out.dump(2) + "\n";
  }
  std::vector<std::vector<std::string>> cells;
  for (const ComparisonRow& r : rows) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", r.ratio);
    cells.push_back({std::to_string(r.trial), r.parameters, r.metric, number(r.a), number(r.b),
                     std::isnan(r.ratio) ? "-" : ratio});
  }
  return renderCells({"TRIAL", "PARAMETERS", "METRIC", "A", "B", "B/A"}, cells, format);
}

common::Result<std::vector<json>> objectsFromJson(const std::string& input, std::string_view kind) {
  const json object = json::parse(input, nullptr, false);
  if (object.is_discarded()) return common::invalidError("the input is not JSON");
  std::vector<json> objects;
  if (stringMember(object, "kind") == kind) objects.push_back(object);
  if (member(object, "items").is_array()) {
    const bool listOfKind = stringMember(object, "kind") == std::string(kind) + "List";
    for (const json& item : object["items"])
      if (listOfKind || stringMember(item, "kind") == kind) objects.push_back(item);
  }
  return objects;
}

common::Result<std::vector<json>> runsFromJson(const std::string& input) {
  HETBENCH_ASSIGN_OR_RETURN(std::vector<json> runs, objectsFromJson(input, "BenchmarkRun"));
  if (runs.empty()) return common::invalidError("the input holds no BenchmarkRun");
  return runs;
}

}  // namespace hetbench::cli
