#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>

namespace hetbench::results::internal {

/// A spec.metrics pattern compiled as hetbench runs it: quietly (RE2 would log errors to
/// stderr) and within a bounded memory budget.
struct CompiledPattern {
  std::unique_ptr<re2::RE2> re;
  std::string error;  // why `re` is unusable: RE2's message, or the missing group
};

CompiledPattern compilePattern(const std::string& pattern, int group);

}  // namespace hetbench::results::internal
