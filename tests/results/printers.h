#pragma once

// What the results tests share: GoogleTest printers, so that a failed comparison shows values
// instead of bytes, and feeding a reader.

#include <ostream>
#include <string>
#include <vector>

#include "hetbench/results/parser.h"
#include "hetbench/results/reference.h"

namespace hetbench::results {

/// One line of a log and the source it comes from.
struct Line {
  std::string source;
  std::string text;
};

/// Feeds `lines` to `parser` in order and returns what it read.
inline ParsedLog feed(LogParser& parser, const std::vector<Line>& lines) {
  for (const Line& line : lines) parser.consume(line.source, line.text);
  return parser.result();
}

inline void PrintTo(const LineError& error, std::ostream* os) { *os << toString(error); }

inline void PrintTo(const EpochSample& s, std::ostream* os) {
  *os << "{rank " << s.rank << ", epoch " << s.epoch << ", samples " << s.samples << ", wall "
      << s.wallSeconds << ", io " << s.ioSeconds.value_or(-1) << ", compute "
      << s.computeSeconds.value_or(-1) << ", energy " << s.energyJoules.value_or(-1)
      << (s.warmup ? ", warmup" : "") << ", " << s.gpus.size() << " GPUs}";
}

inline void PrintTo(const GpuEpoch& g, std::ostream* os) {
  *os << "{" << g.device << ", power cap " << g.powerCapShare.value_or(-1) << ", thermal "
      << g.thermalShare.value_or(-1) << ", hardware " << g.hardwareShare.value_or(-1) << ", limit "
      << g.powerLimitWatts.value_or(-1) << "/" << g.defaultPowerLimitWatts.value_or(-1)
      << ", uncorrected ECC " << g.eccUncorrected.value_or(-1) << ", " << g.xids.size() << " Xids}";
}

inline void PrintTo(const MetricCheck& check, std::ostream* os) {
  *os << "{" << check.metric << ", " << toString(check.verdict) << ", " << check.message << "}";
}

}  // namespace hetbench::results
