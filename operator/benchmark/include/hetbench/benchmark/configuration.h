#pragma once

#include <compare>
#include <string>

#include "hetbench/benchmark/plan.h"
#include "hetbench/benchmark/spec.h"

namespace hetbench::benchmark {

/// Which trials are comparable: the configuration, never the run, its pods or uids, so that
/// every run of the same set-up continues the same time series and history. A value the spec
/// does not give (the accelerator of a raw template, say) is "".
struct Configuration {
  std::string ns;
  std::string benchmark;
  std::string system;
  std::string accelerator;   // the product the nodes must carry, else the resource name
  std::string accelerators;  // accelerators per pod × nodes; "0" without any
  std::string nodes;
  std::string batchSize;  // the global batch size
  std::string precision;
  /// Where the trial ran: "slurm" for a SlurmCluster, "" for this Kubernetes cluster (so that
  /// the configurations and series of runs from before Slurm targets stay what they were).
  std::string target;

  auto operator<=>(const Configuration&) const = default;
};

/// The configuration of the trial with `params` of a run in namespace `ns`.
Configuration configurationOf(const std::string& ns, const RunSpec& spec, const Params& params);

}  // namespace hetbench::benchmark
