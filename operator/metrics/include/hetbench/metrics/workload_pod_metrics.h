#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/benchmark/configuration.h"

namespace hetbench::metrics {

/// What a benchmark pod's labels say about the unit it belongs to (benchmark/constants.h: the
/// run's name, its short id, the trial and the repetition); nullopt for a pod without all four,
/// or whose trial or repetition is not a non-negative integer. Never throws.
struct WorkloadPod {
  std::string ns;
  std::string name;
  std::string run;
  std::string runId;  // benchmark::runId of the run's uid
  std::int64_t trial = 0;
  std::int64_t repetition = 0;

  bool operator==(const WorkloadPod&) const = default;
};
std::optional<WorkloadPod> workloadPod(const nlohmann::json& pod);

/// `hetbench_workload_pod_info` (docs/metrics.md): one series of value 1 for each pod of a
/// BenchmarkRun that exists, labelled with the pod's namespace and name, its run, trial and
/// repetition, and its trial's configuration, so that per-pod series of other exporters
/// (dcgm-exporter's `namespace` and `pod`) join to the configuration. Fed by the informers of
/// BenchmarkRuns (the configurations of an accepted run's trials) and of the pods labelled with
/// their run (the ones the log collector follows); a pod shows once both are known and the
/// pod's run id is that of the run of its name, so that a deleted and re-created run of the same
/// name claims no pod of the old one. Thread-safe.
class WorkloadPodMetrics final : public prometheus::Collectable {
 public:
  /// `exporting` says whether the series are shown (only the leader shows them, as
  /// BenchmarkMetrics); always, when empty.
  explicit WorkloadPodMetrics(std::function<bool()> exporting = {})
      : exporting_(std::move(exporting)) {}

  /// A run was added or changed: the configurations of its trials, once it is accepted.
  void observeRun(const nlohmann::json& run);
  /// A run was deleted: its pods' series go (the pods go with it).
  void forgetRun(const nlohmann::json& run);
  /// A pod labelled with its run was added or changed.
  void observePod(const nlohmann::json& pod);
  /// A pod was deleted: its series goes.
  void forgetPod(const nlohmann::json& pod);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct RunConfigurations {
    std::string uid;
    std::string runId;
    std::vector<benchmark::Configuration> byTrial;
  };

  std::function<bool()> exporting_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, RunConfigurations> runs_;  // (namespace, name)
  std::map<std::pair<std::string, std::string>, WorkloadPod> pods_;        // (namespace, name)
};

}  // namespace hetbench::metrics
