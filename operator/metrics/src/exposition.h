#pragma once

// Building prometheus-cpp's metric families by hand, for the Collectables that compute their
// series at scrape time (benchmark_metrics.cc, series_metrics.cc, state_metrics.cc). Internal to
// the metrics module.

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

#include <utility>
#include <vector>

#include "hetbench/benchmark/configuration.h"

namespace hetbench::metrics::detail {

inline prometheus::MetricFamily family(const char* name, const char* help,
                                       prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

/// One sample; its value is set as gauge and as counter, whichever the family's type reads.
inline prometheus::ClientMetric sample(double value,
                                       std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  m.counter.value = value;
  return m;
}

/// The labels of a configuration, which every per-configuration series carries first
/// (docs/metrics.md, "Benchmark results").
inline std::vector<prometheus::ClientMetric::Label> configurationLabels(
    const benchmark::Configuration& c) {
  return {{"namespace", c.ns},
          {"benchmark", c.benchmark},
          {"system", c.system},
          {"accelerator", c.accelerator},
          {"accelerators", c.accelerators},
          {"nodes", c.nodes},
          {"batch_size", c.batchSize},
          {"precision", c.precision},
          {"target", c.target.empty() ? "kubernetes" : c.target}};
}

}  // namespace hetbench::metrics::detail
