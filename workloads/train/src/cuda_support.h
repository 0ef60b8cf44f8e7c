#pragma once

#include <functional>
#include <memory>
#include <string>

// The parts of training that need CUDA's own headers. They are compiled only when LibTorch has
// CUDA (HETBENCH_WITH_CUDA, set by CMake); without it each entry point says so by throwing.
namespace hetbench::train::cuda {

/// Whether this build can use CUDA at all.
bool built();

/// The product name of CUDA device `index` (cudaDeviceProp::name).
std::string deviceName(int index);

/// A training step's forward and backward pass, captured once as a CUDA graph and replayed.
/// Capture follows PyTorch's recipe for whole-network capture: `body` first runs `warmupRuns`
/// times on a side stream (cuDNN and cuBLAS set themselves up outside the graph), then
/// `beforeCapture` runs (it drops the gradients, so that backward allocates them in the graph's
/// memory pool and every replay rewrites the same tensors) and one run of `body` is captured on
/// that stream. Replays go on the current stream.
class StepGraph {
 public:
  StepGraph(const std::function<void()>& body, int warmupRuns,
            const std::function<void()>& beforeCapture);
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetbench::train::cuda
