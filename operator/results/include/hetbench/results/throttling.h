#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetbench/results/parser.h"

namespace hetbench::results {

/// How much of its measured time a GPU may be slowed before its repetition stops saying anything
/// about the software.
struct ThrottleLimits {
  /// The largest share of the measured time that one GPU may spend slowed by heat, by the
  /// hardware (slowdown, power brake), or at a power cap below its default limit.
  double maxShare = 0.05;

  bool operator==(const ThrottleLimits&) const = default;
};

/// Why the measured epochs (`measured`, by epoch number) of a repetition cannot be judged, or
/// nullopt when nothing the GPUs reported says so: a GPU slowed by heat or by the hardware, or
/// held at a power cap below its default limit, for more than `limits.maxShare` of its measured
/// time (each epoch's share weighted by its wall time); an uncorrected ECC error; a critical Xid.
/// The power cap at the default limit is how a GPU under full load normally runs, never a
/// reason. The message names the rank, the GPU and the figure
/// ("rank 0, GPU 0 (NVIDIA H100 80GB HBM3): thermal slowdown for 12.5% of the measured time").
std::optional<std::string> untrustworthyGpus(const std::vector<EpochSample>& epochs,
                                             const std::set<std::int64_t>& measured,
                                             const ThrottleLimits& limits);

}  // namespace hetbench::results
