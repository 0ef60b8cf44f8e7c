#include "hetbench/distributed/communicator.h"

#include <torch/nn/module.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "hetbench/distributed/module_sync.h"

namespace hetbench::distributed {
namespace {

/// Applies `op` to the tensors, one contiguous tensor per data type: the tensor itself when it
/// is alone and contiguous, else a flat copy of the group that is copied back afterwards.
void forEachGroup(const std::vector<torch::Tensor>& tensors, torch::Device device,
                  const std::function<void(torch::Tensor)>& op) {
  torch::NoGradGuard noGrad;
  std::map<torch::ScalarType, std::vector<torch::Tensor>> groups;
  for (const auto& tensor : tensors) {
    if (tensor.device() != device) {
      throw std::invalid_argument("a tensor on " + tensor.device().str() +
                                  " given to a communicator on " + device.str());
    }
    groups[tensor.scalar_type()].push_back(tensor);
  }
  for (auto& [type, group] : groups) {
    if (group.size() == 1 && group.front().is_contiguous()) {
      op(group.front());
      continue;
    }
    std::vector<torch::Tensor> flat;
    flat.reserve(group.size());
    for (const auto& tensor : group) flat.push_back(tensor.reshape({-1}));
    auto buffer = torch::cat(flat);
    op(buffer);
    int64_t offset = 0;
    for (auto& tensor : group) {
      const int64_t n = tensor.numel();
      tensor.copy_(buffer.narrow(0, offset, n).view(tensor.sizes()));
      offset += n;
    }
  }
}

class DoneWork final : public PendingWork {
 public:
  void wait() override {}
};

class SingleProcessCommunicator final : public Communicator {
 public:
  explicit SingleProcessCommunicator(torch::Device device) : device_(device) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  torch::Device device() const override { return device_; }
  std::unique_ptr<PendingWork> allReduceAsync(torch::Tensor, ReduceOp) override {
    return std::make_unique<DoneWork>();
  }
  void barrier() override {}

 protected:
  void broadcastContiguous(torch::Tensor, int) override {}

 private:
  torch::Device device_;
};

std::vector<torch::Tensor> buffersOf(torch::nn::Module& module, bool floatingOnly) {
  std::vector<torch::Tensor> buffers;
  for (const auto& buffer : module.buffers()) {
    if (!floatingOnly || buffer.is_floating_point()) buffers.push_back(buffer);
  }
  return buffers;
}

}  // namespace

void Communicator::broadcast(const std::vector<torch::Tensor>& tensors, int root) {
  if (root < 0 || root >= size()) {
    throw std::invalid_argument("broadcast from rank " + std::to_string(root) + " in a world of " +
                                std::to_string(size()));
  }
  forEachGroup(tensors, device(), [&](torch::Tensor t) { broadcastContiguous(t, root); });
}

void Communicator::allReduce(const std::vector<torch::Tensor>& tensors, ReduceOp op) {
  forEachGroup(tensors, device(), [&](torch::Tensor t) { allReduceAsync(t, op)->wait(); });
}

std::unique_ptr<Communicator> singleProcessCommunicator(torch::Device device) {
  return std::make_unique<SingleProcessCommunicator>(device);
}

std::vector<double> reduceFigures(Communicator& comm, const std::vector<double>& figures,
                                  ReduceOp op) {
  if (figures.empty()) return {};
  auto tensor = torch::tensor(figures, torch::kFloat64).to(comm.device());
  comm.allReduce({tensor}, op);
  tensor = tensor.cpu();
  const double* data = tensor.data_ptr<double>();
  return std::vector<double>(data, data + tensor.numel());
}

void broadcastModule(Communicator& comm, torch::nn::Module& module) {
  auto tensors = module.parameters();
  for (const auto& buffer : module.buffers()) tensors.push_back(buffer);
  comm.broadcast(tensors, 0);
}

void broadcastBuffers(Communicator& comm, torch::nn::Module& module) {
  const auto buffers = buffersOf(module, false);
  if (!buffers.empty()) comm.broadcast(buffers, 0);
}

void averageBuffers(Communicator& comm, torch::nn::Module& module) {
  const auto buffers = buffersOf(module, true);
  if (buffers.empty()) return;
  comm.allReduce(buffers, ReduceOp::kSum);
  torch::NoGradGuard noGrad;
  for (const auto& buffer : buffers) buffer.div_(comm.size());
}

}  // namespace hetbench::distributed
