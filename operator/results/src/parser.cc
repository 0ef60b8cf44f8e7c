#include "hetbench/results/parser.h"

#include <algorithm>
#include <cstddef>

namespace hetbench::results {
namespace {

// Errors named in logStatus's message; the rest are counted.
constexpr std::size_t kErrorsInMessage = 5;

}  // namespace

std::string toString(const LineError& error) {
  std::string where = error.source;
  if (error.line > 0) {
    if (!where.empty()) where += ' ';
    where += "line " + std::to_string(error.line);
  }
  return where.empty() ? error.message : where + ": " + error.message;
}

common::Status logStatus(const ParsedLog& log) {
  if (log.errors.empty()) return common::okStatus();
  const std::int64_t total = static_cast<std::int64_t>(log.errors.size()) + log.errorsOmitted;
  std::string message =
      std::to_string(total) + (total == 1 ? " error" : " errors") + " in the log: ";
  const std::size_t shown = std::min(log.errors.size(), kErrorsInMessage);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) message += "; ";
    message += toString(log.errors[i]);
  }
  if (total > static_cast<std::int64_t>(shown)) {
    message += "; and " + std::to_string(total - static_cast<std::int64_t>(shown)) + " more";
  }
  return common::invalidError(std::move(message));
}

}  // namespace hetbench::results
