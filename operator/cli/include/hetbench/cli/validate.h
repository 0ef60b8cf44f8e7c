#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::cli {

/// What `hetbench validate` found in one document of a manifest.
struct Validation {
  std::string kind;  // BenchmarkRun, BenchmarkSchedule or BenchmarkSystem; others are not checked
  std::string name;  // namespace/name; a BenchmarkSystem's name alone
  bool checked = false;
  bool valid = false;
  std::string summary;              // for a valid run: what it plans
  std::vector<std::string> causes;  // "field: message", as the controller words them
};

/// Checks every BenchmarkRun, BenchmarkSchedule and BenchmarkSystem in `text` (YAML or JSON,
/// several documents separated by `---`) as the controllers will when they are applied: a run
/// through benchmark::validateRun (the spec, its metrics and references, and a dry run of
/// rendering every unit) after placing it on a valid system of the text that it names
/// (benchmark::placeOnSystem), a schedule through schedule::parseScheduleSpec (which validates
/// its run template the same way), a system through benchmark::parseSystemSpec. A document without
/// metadata.namespace is in `defaultNamespace`. Invalid when the text is not YAML.
common::Result<std::vector<Validation>> validateManifests(std::string_view text,
                                                          const std::string& defaultNamespace);

/// One line per document ("BenchmarkRun ns/name: valid (...)" or "...: invalid" with one
/// indented line per cause); `source` (a file name) starts each line.
std::string renderValidations(const std::string& source, const std::vector<Validation>& found);

}  // namespace hetbench::cli
