#pragma once

#include <functional>
#include <memory>
#include <ostream>

#include "hetbench/train/options.h"

namespace hetbench::data {
class Loader;
struct LoaderOptions;
}  // namespace hetbench::data

namespace hetbench::train {

class Collective;

/// What `hetbench-train` gets from outside the training loop; main builds the real ones.
struct ProgramDeps {
  /// The ranks of a distributed run; nullptr for a single process.
  Collective* collective = nullptr;
  /// Opens a dataset's loader (data::openLoader); unset, --data PATH is refused.
  std::function<std::unique_ptr<data::Loader>(const data::LoaderOptions&)> openLoader;
  /// A cumulative energy counter of this rank's accelerators in joules; unset: no energy.
  std::function<double()> energyJoules;
};

/// Runs `hetbench-train` with parsed options: the metrics lines on `out`, progress and errors
/// on `err`. Returns the exit status: 0, 2 for options that do not fit the world (a global batch
/// that does not divide among the ranks), 1 when training fails (after run_end with the error).
int runTraining(const TrainOptions& options, const ProgramDeps& deps, std::ostream& out,
                std::ostream& err);

}  // namespace hetbench::train
