#pragma once

// What the three parsers share: reading a log line, finding a marked JSON object in it, and
// counting lines and errors per source.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/results/parser.h"

namespace hetbench::results::internal {

/// The text of a log line: without a trailing carriage return or newline, and without a
/// leading kubelet RFC 3339 timestamp and its space.
std::string_view logText(std::string_view line);

/// The JSON object of a metrics line, or why there is none.
struct MarkedJson {
  nlohmann::json object;
  std::string error;  // empty when `object` was read
};

/// The object that follows `marker` and one space anywhere in `text` (launchers prefix lines
/// with their own tags, "[rank0]: " for one); nullopt when `text` has no marker. The object
/// is bounded by kMaxMetricsLineBytes and kMaxJsonDepth before it is parsed.
std::optional<MarkedJson> findMarkedJson(std::string_view text, std::string_view marker);

/// Line numbers per source, counting from 1.
class LineCounter {
 public:
  std::int64_t next(std::string_view source);

 private:
  std::map<std::string, std::int64_t, std::less<>> lines_;
};

/// The first kMaxLineErrors errors of a log, and how many more there were.
class ErrorList {
 public:
  void add(std::string_view source, std::int64_t line, std::string message);
  void moveInto(ParsedLog& log) &&;

 private:
  std::vector<LineError> errors_;
  std::int64_t omitted_ = 0;
};

}  // namespace hetbench::results::internal
