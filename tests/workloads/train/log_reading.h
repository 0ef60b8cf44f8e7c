#pragma once

// Reading the training program's output the way the operator does: its own log parsers.

#include <sstream>
#include <string>
#include <vector>

#include "hetbench/results/parser.h"

namespace hetbench::train::testing_support {

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    result.push_back(line);
  }
  return result;
}

/// What `parser` reads from `text`, as one pod's log.
inline results::ParsedLog readLog(results::LogParser& parser, const std::string& text) {
  for (const std::string& line : lines(text)) {
    parser.consume("worker-0", line);
  }
  return parser.result();
}

inline results::ParsedLog readHetbench(const std::string& text) {
  return readLog(*results::makeHetbenchParser(), text);
}

inline results::ParsedLog readMlperf(const std::string& text) {
  return readLog(*results::makeMlperfParser(), text);
}

}  // namespace hetbench::train::testing_support
