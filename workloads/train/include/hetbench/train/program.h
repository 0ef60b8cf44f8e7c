#pragma once

#include <c10/core/Device.h>
#include <hetbench/energy/health.h>

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
  /// This process among those of its node (LOCAL_RANK): which visible GPU it takes.
  int localRank = 0;
  /// Opens a dataset's loader (data::openLoader); unset, --data PATH is refused.
  std::function<std::unique_ptr<data::Loader>(const data::LoaderOptions&)> openLoader;
  /// A cumulative energy counter of this rank's accelerators in joules; unset: no energy.
  std::function<double()> energyJoules;
  /// This rank's GPUs' clocks, throttling and errors since the last call; unset: none.
  std::function<std::vector<energy::DeviceWindow>()> deviceHealth;
};

/// The device of --device for the process of local rank `localRank`: cuda:localRank, or the CPU
/// (auto without a usable GPU). Throws std::invalid_argument for cuda on a LibTorch without
/// CUDA, on a machine without a visible GPU, or with fewer visible GPUs than local ranks.
c10::Device chooseDevice(DeviceChoice choice, int localRank);

/// The ranks a launching hetbench-train starts on its node (launcher.h): --procs-per-node, or
/// for auto one per visible GPU (none visible, --device cpu or a LibTorch without CUDA: one).
int localProcesses(const TrainOptions& options);

/// Keeps the memory that LibTorch frees inside the process, for glibc's malloc: no mmap and no
/// trimming of the heap below 1 GiB. A training step frees and allocates the same activation and
/// gradient sizes every step; with glibc's defaults they go back to the kernel and every step
/// page-faults them in afresh (42,000 faults per ResNet-50 step at batch 8, 128x128, a quarter
/// of the step on a 2-core CPU: docs/performance.md). Process-wide: call it first in main.
void keepFreedMemory();

/// Runs `hetbench-train` with parsed options: the metrics lines on `out`, progress and errors
/// on `err`. Returns the exit status: 0, 2 for options that do not fit the world (a global batch
/// that does not divide among the ranks), 1 when training fails (after run_end with the error).
int runTraining(const TrainOptions& options, const ProgramDeps& deps, std::ostream& out,
                std::ostream& err);

}  // namespace hetbench::train
