#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::benchmark {

/// The benchmarks hetbench knows how to launch and parse; kCustom runs any image.
enum class Benchmark { kResnet50, kCosmoflow, kDeepcam, kCustom };

/// The workload kinds whose completion hetbench reads from their own status.
enum class WorkloadKind { kPod, kJob, kIpuJob };

/// "resnet50", "Pod", ...; the spellings of the CRD.
std::string toString(Benchmark b);
std::string toString(WorkloadKind k);

/// What hetbench does with a trial's workload once the trial ends.
enum class CleanupAction { kDelete, kRetain };

/// "Delete", "Retain".
std::string toString(CleanupAction a);

struct Cleanup {
  CleanupAction onSuccess = CleanupAction::kDelete;
  CleanupAction onFailure = CleanupAction::kRetain;
  std::chrono::nanoseconds retainFor = std::chrono::hours(24);
  std::int64_t maxRetained = 10;
};

/// One matrix parameter with its values in the order the spec lists them (integers become
/// their decimal text).
struct MatrixParameter {
  std::string name;
  std::vector<std::string> values;
};

/// Confirmation reruns of a trial that its configuration's history finds suspect
/// (`spec.confirm`, docs/metrics.md "Confirmation reruns").
struct Confirm {
  /// At most this many reruns on each placement.
  std::int64_t reruns = 3;
  /// Rerun on other nodes of the run's placement too, which tells a slow node from a change.
  bool otherNode = true;

  bool operator==(const Confirm&) const = default;
};

/// The most reruns spec.confirm.reruns may ask for.
inline constexpr std::int64_t kMaxConfirmReruns = 10;

/// The run-level part of a BenchmarkRun spec. The workload (or template) stays JSON here:
/// `$(params.NAME)` references are substituted per trial before it is parsed (render.h).
struct RunSpec {
  Benchmark benchmark = Benchmark::kCustom;
  std::string system;
  std::optional<nlohmann::json> workload;  // exactly one of workload and templ
  std::optional<nlohmann::json> templ;     // spec.template
  std::vector<MatrixParameter> matrix;     // sorted by name (the product's order)
  std::int64_t repetitions = 1;
  std::int64_t parallelism = 1;
  std::chrono::nanoseconds timeLimit = std::chrono::hours(2);
  std::chrono::nanoseconds startTimeout = std::chrono::minutes(10);
  bool suspend = false;
  /// The Kueue LocalQueue the units are submitted to (queue.h); unset: the operator's default
  /// (--default-queue-name); "": none.
  std::optional<std::string> queueName;
  /// How long a unit may wait for its queue to admit it before it fails (QueueTimeout).
  std::chrono::nanoseconds queueTimeout = std::chrono::hours(24);
  /// Epochs left out of each repetition's metrics at its start (results::AggregationOptions);
  /// unset: 1 when a repetition has more than one epoch, else 0.
  std::optional<std::int64_t> warmupEpochs;
  Cleanup cleanup;
  nlohmann::json metrics = nlohmann::json::array();      // for the results module
  nlohmann::json references = nlohmann::json::object();  // for the results module
  /// Absent: a suspect trial is only reported.
  std::optional<Confirm> confirm = {};
};

/// Parses and validates `spec` of a BenchmarkRun: what the CRD schema enforces is checked
/// again (a run may come from a cluster whose CRD is older), plus what it cannot express:
/// exactly one of workload and template, confirm only with a workload (reruns are placed through
/// its affinity), every `$(params.NAME)` naming a matrix parameter,
/// matrix lists that are non-empty and free of duplicates, durations that parse and are
/// positive, at most kMaxUnits trials × repetitions, and workload, template, metrics and
/// references nested at most 100 levels deep. The workload's own fields are left to
/// parseWorkload (render.h). A null field counts as absent, as the API server drops it; unknown
/// fields are ignored. Errors are Invalid, one cause per problem, each naming its field as
/// `spec.matrix.gpus[1]` does and worded as the API server words field errors, in the order of
/// the spec. Never throws, whatever the JSON.
common::Result<RunSpec> parseRunSpec(const nlohmann::json& spec);

}  // namespace hetbench::benchmark
