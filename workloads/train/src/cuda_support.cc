#include "cuda_support.h"

#include <stdexcept>

#ifdef HETBENCH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace hetbench::train::cuda {

#ifdef HETBENCH_WITH_CUDA

bool built() { return true; }

std::string deviceName(int index) { return at::cuda::getDeviceProperties(index)->name; }

struct StepGraph::Impl {
  at::cuda::CUDAGraph graph;
};

StepGraph::StepGraph(const std::function<void()>& body, int warmupRuns,
                     const std::function<void()>& beforeCapture)
    : impl_(std::make_unique<Impl>()) {
  const c10::cuda::CUDAStream caller = c10::cuda::getCurrentCUDAStream();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  // The side stream starts after the work queued so far (the batch's copy, say).
  at::cuda::CUDAEvent queued;
  queued.record(caller);
  queued.block(side);
  {
    const c10::cuda::CUDAStreamGuard onSide(side);
    for (int i = 0; i < warmupRuns; ++i) {
      body();
    }
    side.synchronize();
    beforeCapture();
    impl_->graph.capture_begin();
    body();
    impl_->graph.capture_end();
  }
  // Later work on the caller's stream (replays, the optimizer) follows the side stream's.
  at::cuda::CUDAEvent captured;
  captured.record(side);
  captured.block(caller);
}

void StepGraph::replay() { impl_->graph.replay(); }

#else

namespace {
[[noreturn]] void noCuda() {
  throw std::invalid_argument("this build has no CUDA: LibTorch was built without it");
}
}  // namespace

bool built() { return false; }

std::string deviceName(int) { noCuda(); }

struct StepGraph::Impl {};

StepGraph::StepGraph(const std::function<void()>&, int, const std::function<void()>&) { noCuda(); }

void StepGraph::replay() { noCuda(); }

#endif

StepGraph::~StepGraph() = default;

}  // namespace hetbench::train::cuda
