#pragma once

// What the three parsers share: reading a log line, finding a marked JSON object in it, and
// counting lines and errors per source.

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flat_json.h"
#include "hetbench/results/parser.h"

namespace hetbench::results::internal {

/// The text of a log line: without a trailing carriage return or newline, and without a
/// leading kubelet RFC 3339 timestamp and its space.
std::string_view logText(std::string_view line);

/// Reads the JSON object of metrics lines, one line at a time. The scanner of flat_json.h reads
/// the usual line without allocating; a line it does not take goes to nlohmann::json, which
/// decides and words the error.
class MarkedJsonReader {
 public:
  explicit MarkedJsonReader(std::string_view marker) : marker_(marker) {}

  /// The object that follows the marker and one space anywhere in `text` (launchers prefix
  /// lines with their own tags, "[rank0]: " for one): nullopt when `text` has no marker, else
  /// the line's error, empty when object() holds the object. The object is bounded by
  /// kMaxMetricsLineBytes and kMaxJsonDepth before it is parsed.
  std::optional<std::string> read(std::string_view text);

  /// The object of the last line read without error; it views that line, so it is valid while
  /// the line is and until the next read.
  FlatObject object() const { return json_.root(); }

 private:
  std::string_view marker_;
  FlatJson json_;
  nlohmann::json dom_;  // the last object that the scanner left to nlohmann::json
};

/// A line of a log: its source, by the number LineCounter gave it, and its number in the source.
struct LineNumber {
  std::size_t source = 0;
  std::int64_t line = 0;
};

/// Line numbers per source, counting from 1; sources are numbered as they first come.
class LineCounter {
 public:
  LineNumber next(std::string_view source);
  const std::string& source(std::size_t id) const { return sources_[id].name; }

 private:
  struct Source {
    std::string name;
    std::int64_t lines = 0;
  };
  std::vector<Source> sources_;
  std::map<std::string, std::size_t, std::less<>> ids_;
  std::size_t last_ = 0;  // the source of the last line, which the next line usually shares
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
