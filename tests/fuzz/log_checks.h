#pragma once

// The properties that every log reader's result has, whatever the log (docs/metrics.md).

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_input.h"
#include "hetbench/results/aggregate.h"
#include "hetbench/results/parser.h"

namespace hetbench::fuzz {

using results::LineError;
using results::ParsedLog;

/// A source and a line number in it.
using LineRef = std::pair<std::string, std::int64_t>;

/// Numbers lines per source as the readers do, counting from 1.
class LineNumbers {
 public:
  std::int64_t next(const std::string& source) {
    for (auto& [name, count] : counts_) {
      if (name == source) return ++count;
    }
    counts_.emplace_back(source, 1);
    return 1;
  }

 private:
  std::vector<std::pair<std::string, std::int64_t>> counts_;
};

inline void checkSameLog(const ParsedLog& a, const ParsedLog& b, const std::string& what) {
  if (a.run != b.run) fail(what + ": the runs differ");
  if (a.worldSize != b.worldSize) fail(what + ": the world sizes differ");
  if (a.epochs != b.epochs) fail(what + ": the epochs differ");
  if (a.scalars != b.scalars) fail(what + ": the scalars differ");
  if (a.errors != b.errors || a.errorsOmitted != b.errorsOmitted) {
    fail(what + ": the errors differ");
  }
}

/// Whether the JSON of a line carrying `marker` breaks the rules every metrics line has
/// (docs/metrics.md): one space after the marker, then one JSON object of at most
/// kMaxMetricsLineBytes that nests at most kMaxJsonDepth deep. Decided by nlohmann::json, not
/// by the readers' scanner.
inline bool malformedJson(std::string_view line, std::string_view marker) {
  const std::size_t at = line.find(marker);
  if (at == std::string_view::npos) return false;
  std::string_view payload = line.substr(at + marker.size());
  if (payload.empty() || payload.front() != ' ') return true;
  payload.remove_prefix(1);
  while (!payload.empty() && (payload.back() == '\n' || payload.back() == '\r')) {
    payload.remove_suffix(1);
  }
  if (payload.size() > results::kMaxMetricsLineBytes) return true;
  std::size_t depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < payload.size(); ++i) {
    const char c = payload[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > results::kMaxJsonDepth) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  try {
    return !nlohmann::json::parse(payload).is_object();
  } catch (const nlohmann::json::exception&) {
    return true;
  }
}

/// Every line in `malformed` has its error (as far as the kept errors go), so the log cannot
/// give metrics.
inline void checkMalformedReported(const ParsedLog& log, const std::vector<LineRef>& malformed) {
  const auto total = static_cast<std::int64_t>(log.errors.size()) + log.errorsOmitted;
  if (total < static_cast<std::int64_t>(malformed.size())) {
    fail(std::to_string(malformed.size()) + " malformed lines but " + std::to_string(total) +
         " errors");
  }
  if (log.errorsOmitted > 0) return;
  for (const auto& [source, line] : malformed) {
    bool reported = false;
    for (const LineError& e : log.errors)
      reported = reported || (e.source == source && e.line == line);
    if (!reported) fail(source + " line " + std::to_string(line) + " is malformed but no error");
  }
}

inline void checkFinite(double value, const std::string& what) {
  if (!std::isfinite(value)) fail(what + " is not finite: " + std::to_string(value));
}

/// What holds for any log: error messages are UTF-8 (they go into a JSON status), the status
/// is Invalid exactly when there are errors, a log with errors yields no metrics, and every
/// metric value is finite.
inline void checkLog(const ParsedLog& log) {
  for (const LineError& e : log.errors) {
    try {
      (void)nlohmann::json(e.message).dump();
      (void)nlohmann::json(toString(e)).dump();
    } catch (const nlohmann::json::exception&) {
      fail("an error message is not UTF-8: " +
           nlohmann::json(e.message).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    }
  }
  if (log.errors.size() > results::kMaxLineErrors) fail("more errors kept than kMaxLineErrors");
  if (logStatus(log).isOk() != (log.errors.empty() && log.errorsOmitted == 0)) {
    fail("logStatus disagrees with the errors");
  }
  for (const auto& [name, value] : log.scalars) checkFinite(value, "scalar " + name);
  for (const results::EpochSample& s : log.epochs) {
    checkFinite(s.samples, "samples");
    checkFinite(s.wallSeconds, "wall_seconds");
    if (s.samples < 0 || s.wallSeconds <= 0 || s.rank < 0 || s.epoch < 0) {
      fail("an epoch out of its ranges");
    }
    for (const auto& v : {s.ioSeconds, s.computeSeconds, s.energyJoules}) {
      if (v && (!std::isfinite(*v) || *v < 0)) fail("an epoch time or energy out of range");
    }
  }
  for (const std::int64_t warmup : {-1, 0, 1, 3}) {
    results::AggregationOptions options;
    if (warmup >= 0) options.warmupEpochs = warmup;
    const common::Result<results::RepetitionMetrics> metrics =
        results::aggregateRepetition(log, options);
    if (!metrics.isOk()) continue;
    if (!log.errors.empty()) fail("a log with errors gave metrics");
    for (const auto& [name, value] : metrics->values) checkFinite(value, "metric " + name);
  }
}

}  // namespace hetbench::fuzz
