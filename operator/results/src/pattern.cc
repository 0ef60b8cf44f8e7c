#include "pattern.h"

#include <cstdint>

#include "hetbench/common/field_errors.h"

namespace hetbench::results::internal {
namespace {

// RE2's budget for one compiled pattern and its DFA cache; a bigger pattern fails to compile,
// a bigger DFA falls back to the (still linear) NFA. A log pattern needs far less.
constexpr std::int64_t kMaxPatternMemory = 1 << 20;

}  // namespace

CompiledPattern compilePattern(const std::string& pattern, int group) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxPatternMemory);
  CompiledPattern out;
  out.re = std::make_unique<re2::RE2>(pattern, options);
  if (!out.re->ok()) {
    out.error = "does not compile: " + common::quote(out.re->error());
  } else if (out.re->NumberOfCapturingGroups() < group) {
    const int groups = out.re->NumberOfCapturingGroups();
    out.error = "has " + std::to_string(groups) +
                (groups == 1 ? " capture group" : " capture groups") + ", so no group " +
                std::to_string(group);
  }
  return out;
}

}  // namespace hetbench::results::internal
