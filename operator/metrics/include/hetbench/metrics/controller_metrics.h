#pragma once

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/kube/rest_client.h"
#include "hetbench/kube/workqueue.h"

namespace hetbench::metrics {

/// The controllers whose reconciles and work queues are measured, as the `controller` and
/// `name` labels spell them.
inline constexpr std::string_view kRunController = "benchmarkrun";
inline constexpr std::string_view kScheduleController = "benchmarkschedule";
inline constexpr std::string_view kSeriesController = "benchmarkseries";
inline constexpr std::string_view kSlurmClusterController = "slurmcluster";

/// The operator's own metrics, named and labelled as controller-runtime and client-go name
/// theirs (controller="benchmarkrun", name="benchmarkrun"; the same for "benchmarkschedule"),
/// so that existing dashboards and alerts for Kubernetes operators apply. Thread-safe.
class ControllerMetrics {
 public:
  ControllerMetrics();

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  /// controller: kRunController, kScheduleController, kSeriesController or
  /// kSlurmClusterController; result: success, error,
  /// requeue_after.
  void reconciled(std::string_view controller, std::string_view result,
                  std::chrono::nanoseconds took);
  void runFinished(const std::string& phase);
  void leader(bool leading);
  bool leading() const;
  kube::WorkQueueObserver workQueueObserver(std::string_view controller);
  kube::RequestObserver requestObserver();

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  /// One controller's series.
  struct Series {
    prometheus::Counter* errors;
    prometheus::Histogram* reconcileTime;
    prometheus::Gauge* depth;
    prometheus::Counter* adds;
    prometheus::Histogram* queueDuration;
    prometheus::Histogram* workDuration;
    prometheus::Counter* retries;
  };
  Series& series(std::string_view controller);

  prometheus::Family<prometheus::Counter>& reconcileTotal_;
  std::map<std::string, Series, std::less<>> series_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& requestLatency_;
  prometheus::Gauge& leader_;
  prometheus::Family<prometheus::Counter>& runsFinished_;
};

/// Series read at scrape time from the state they describe: watch restarts by resource, log
/// streams and bytes, the log directory's use and pruning, and the process' own series as
/// Prometheus' client libraries name them (process_resident_memory_bytes, ...). Thread-safe as far
/// as its sources are.
class StateMetrics final : public prometheus::Collectable {
 public:
  struct Sources {
    std::function<std::map<std::string, std::uint64_t>()> watchRestarts;  // by resource
    std::function<std::size_t()> logStreams;
    std::function<std::uint64_t()> logBytes;
    std::function<std::uint64_t()> logWriteFailures;
    std::function<std::uint64_t()> logDirBytes;
    std::function<std::uint64_t()> logDirFreeBytes;
    std::function<std::uint64_t()> logDirMaxBytes;                        // 0: no bound
    std::function<std::map<std::string, std::uint64_t>()> logPrunedRuns;  // by reason
  };
  explicit StateMetrics(Sources sources) : sources_(std::move(sources)) {}

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  Sources sources_;
};

}  // namespace hetbench::metrics
