#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::cli {

enum class Format { kTable, kMarkdown, kCsv, kJson };

/// "table", "markdown", "csv" or "json".
common::Result<Format> parseFormat(const std::string& text);

/// A mean with its spread over a trial's repetitions.
struct Stat {
  double mean = 0;
  double stddev = 0;
  std::int64_t n = 0;
};

/// One judged trial of one run: the paper's table row.
struct ReportRow {
  std::string run;  // namespace/name
  std::string benchmark;
  std::string system;
  std::int64_t trial = 0;
  std::string parameters;                 // "batch=64, gpus=2"
  std::string hardware;                   // the accelerator product, else its resource, else "cpu"
  std::optional<std::int64_t> units;      // accelerators × nodes, when the spec says
  std::optional<std::int64_t> batchSize;  // the workload's global batch size, when it says
  std::optional<Stat> computeThroughput;
  std::optional<Stat> computeFraction;
  std::optional<Stat> effectiveThroughput;
  std::optional<Stat> samplesPerWh;
  std::string verdict;
};

/// The rows of `runs` (BenchmarkRun objects, as `kubectl get br -o json` lists them): one per
/// entry of each run's status.results, in run then trial order. Runs without results give none.
std::vector<ReportRow> reportRows(const std::vector<nlohmann::json>& runs);

/// The header, then one line of cells per row, as renderReport's table shows them: statistics
/// as mean ± stddev when `spread`, else as the mean.
std::vector<std::vector<std::string>> reportTable(const std::vector<ReportRow>& rows, bool spread);

/// The rows as an aligned terminal table, a Markdown table, CSV (RFC 4180 quoting) or JSON.
std::string renderReport(const std::vector<ReportRow>& rows, Format format);

/// One metric of one trial present in both runs, with B's mean over A's.
struct ComparisonRow {
  std::int64_t trial = 0;
  std::string parameters;
  std::string metric;
  double a = 0;
  double b = 0;
  double ratio = 0;  // b / a
};

/// Pairs the trials of two runs by their parameters (by index when neither has a matrix) and
/// compares every metric both report. Invalid when no trial pairs up.
common::Result<std::vector<ComparisonRow>> compareRuns(const nlohmann::json& a,
                                                       const nlohmann::json& b);
std::string renderComparison(const std::vector<ComparisonRow>& rows, Format format);

/// Reads BenchmarkRun objects from `kubectl get br -o json` output: a List or one object.
/// Invalid when it is not JSON or holds no BenchmarkRun.
common::Result<std::vector<nlohmann::json>> runsFromJson(const std::string& text);

/// The objects of `kind` ("BenchmarkRun", "BenchmarkSeries") in `kubectl get -o json` output:
/// one object, a List of any kinds, or a `<kind>List` (whose items the API server lists without
/// their kind). Invalid when it is not JSON; an empty vector when it holds none.
common::Result<std::vector<nlohmann::json>> objectsFromJson(const std::string& text,
                                                            std::string_view kind);

}  // namespace hetbench::cli
