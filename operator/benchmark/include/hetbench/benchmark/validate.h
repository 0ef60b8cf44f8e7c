#pragma once

// The one validation of a BenchmarkRun, used by the run controller, the schedule controller
// (for its run template) and `hetbench validate`, so that all three refuse the same specs with
// the same causes.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/benchmark/configuration.h"
#include "hetbench/benchmark/render.h"
#include "hetbench/benchmark/run.h"
#include "hetbench/benchmark/spec.h"
#include "hetbench/common/status.h"
#include "hetbench/results/metric_spec.h"
#include "hetbench/results/reference.h"

namespace hetbench::benchmark {

/// A run's spec, parsed with everything read out of it.
struct AcceptedRun {
  RunSpec spec;
  std::vector<results::MetricSpec> metricSpecs;
  results::References references;
  /// The metrics every unit must report: the required spec.metrics, every metric with a
  /// reference and, for hetbench's own benchmarks read without patterns, the effective
  /// throughput. Their values are judged, so the unit summaries keep them exact.
  std::vector<std::string> required;
};

/// Parses a spec (parseRunSpec, spec.metrics, spec.references) without rendering it: what the
/// readers of an accepted run need. Invalid with the causes of the first part that fails.
common::Result<AcceptedRun> parseRun(const nlohmann::json& spec);

/// Everything the controller checks before it accepts a run: the name's length (it labels the
/// workloads), parseRun and a dry run of rendering every unit. Invalid with causes that name
/// their fields (a unit's under "trial N: ").
common::Result<AcceptedRun> validateRun(const RunRef& ref, const nlohmann::json& spec);

/// The accepted spec of a run read by readRun; nullopt before acceptance or when the
/// annotation does not parse.
std::optional<AcceptedRun> acceptedRun(const Run& run);

/// The configuration of each trial `spec` plans, by trial index.
std::vector<Configuration> trialConfigurations(const std::string& ns, const RunSpec& spec);
std::vector<Configuration> trialConfigurations(const std::string& ns, const AcceptedRun& accepted);

/// The most bytes the API server takes in one object's annotations, keys and values together.
inline constexpr std::size_t kMaxAnnotationBytes = 256u << 10;

/// Whether the accepted spec's text fits in the run's annotations (those it has, `annotations`,
/// besides the accepted spec's own): nullopt when it does, else why not, for the condition. A
/// spec that does not fit cannot be recorded, so the run is refused rather than retried.
std::optional<std::string> acceptedSpecTooLarge(const nlohmann::json& annotations,
                                                const std::string& acceptedSpecText);

/// "spec.x: msg; spec.y: msg" from an Invalid status, at most five causes and a count of the
/// rest: the message of a condition or an Event.
std::string describeInvalid(const common::Status& status);

}  // namespace hetbench::benchmark
