// The communicator over LibTorch's c10d: a TCPStore for the rendezvous, ProcessGroupGloo for CPU
// tensors (where Gloo's headers were found: HETBENCH_WITH_GLOO) and ProcessGroupNCCL for CUDA
// tensors (where LibTorch has CUDA and NCCL's header was found: HETBENCH_WITH_NCCL).
#include <torch/version.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif
#ifdef HETBENCH_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef HETBENCH_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/distributed/communicator.h"

namespace hetbench::distributed {
namespace {

// What Gloo and NCCL implement: the ProcessGroup itself up to LibTorch 1.13; from 2.0 a
// ProcessGroup dispatches to Backends, which each implement the collectives.
#if TORCH_VERSION_MAJOR >= 2
using Group = c10d::Backend;
#else
using Group = c10d::ProcessGroup;
#endif

/// "1 s", "0.25 s".
std::string seconds(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  std::string text = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string fraction = std::to_string(1000 + ms % 1000).substr(1);
    text += "." + fraction.substr(0, fraction.find_last_not_of('0') + 1);
  }
  return text + " s";
}

std::string arrivedKey(int rank) { return "hetbench/arrived/" + std::to_string(rank); }

bool isLoopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

class C10dWork final : public PendingWork {
 public:
  explicit C10dWork(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

class C10dCommunicator final : public Communicator {
 public:
  C10dCommunicator(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<Group> group,
                   torch::Device device)
      : store_(std::move(store)), group_(std::move(group)), device_(device) {}

  int rank() const override { return group_->getRank(); }
  int size() const override { return group_->getSize(); }
  torch::Device device() const override { return device_; }

  std::unique_ptr<PendingWork> allReduceAsync(torch::Tensor tensor, ReduceOp op) override {
    if (!tensor.is_contiguous()) {
      throw std::invalid_argument("allReduceAsync needs a contiguous tensor");
    }
    std::vector<at::Tensor> tensors{std::move(tensor)};
    c10d::AllreduceOptions options;
    options.reduceOp = op == ReduceOp::kSum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
    return std::make_unique<C10dWork>(group_->allreduce(tensors, options));
  }

  void barrier() override { group_->barrier()->wait(); }

 protected:
  void broadcastContiguous(torch::Tensor tensor, int root) override {
    std::vector<at::Tensor> tensors{std::move(tensor)};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    group_->broadcast(tensors, options)->wait();
  }

 private:
  // Declared first, destroyed last: the group uses the store (on rank 0, the server).
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<Group> group_;
  torch::Device device_;
};

/// Rank 0 serves the store, the others connect to it; then every rank announces itself and
/// waits for all the others, so that a missing rank is named instead of a process group
/// hanging.
c10::intrusive_ptr<c10d::Store> rendezvous(const World& world, const ConnectOptions& options) {
  const std::string address = world.masterAddr + ":" + std::to_string(world.masterPort);
  c10d::TCPStoreOptions storeOptions;
  storeOptions.port = world.masterPort;
  storeOptions.isServer = world.rank == 0;
  storeOptions.waitWorkers = false;
  // c10d counts the time to connect in whole seconds (SocketOptions::connect_timeout), cutting
  // anything shorter to nothing: round up.
  const auto connectTimeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::ceil<std::chrono::seconds>(options.connectTimeout));
  storeOptions.timeout = connectTimeout;
  c10::intrusive_ptr<c10d::TCPStore> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(world.masterAddr, storeOptions);
  } catch (const std::exception& e) {
    if (world.rank == 0) {
      throw std::runtime_error("rank 0 could not serve the rendezvous store at " + address + ": " +
                               e.what());
    }
    throw std::runtime_error("rank " + std::to_string(world.rank) +
                             " could not reach rank 0's rendezvous store at " + address +
                             " within " + seconds(connectTimeout) + ": " + e.what());
  }

  store->set(arrivedKey(world.rank), {1});
  std::vector<std::string> keys;
  for (int rank = 0; rank < world.size; ++rank) keys.push_back(arrivedKey(rank));
  try {
    store->wait(keys, options.connectTimeout);
  } catch (const std::exception& e) {
    std::string missing;
    int count = 0;
    for (int rank = 0; rank < world.size; ++rank) {
      bool arrived = false;
      try {
        arrived = store->check({arrivedKey(rank)});
      } catch (const std::exception&) {
        // The store itself is gone: say so below without a list.
        missing.clear();
        count = -1;
        break;
      }
      if (!arrived) {
        missing += (count++ == 0 ? "" : ", ") + std::to_string(rank);
      }
    }
    const std::string who = count > 0 ? (count == 1 ? "rank " : "ranks ") + missing + " of " +
                                            std::to_string(world.size) + " did not arrive"
                                      : std::string("the rendezvous failed: ") + e.what();
    throw std::runtime_error("rank " + std::to_string(world.rank) + " waited " +
                             seconds(options.connectTimeout) + " at the rendezvous store " +
                             address + ": " + who);
  }
  return store;
}

#ifdef HETBENCH_WITH_GLOO
std::shared_ptr<gloo::transport::Device> glooDevice(const World& world) {
  if (!world.glooInterface.empty()) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(world.glooInterface);
  }
  // Ranks that meet on a loopback address all run on this machine.
  if (isLoopback(world.masterAddr)) {
    return c10d::ProcessGroupGloo::createDeviceForHostname(world.masterAddr);
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}
#endif

}  // namespace

std::unique_ptr<Communicator> connect(const World& world, const ConnectOptions& options) {
  if (!options.device.is_cpu() && !options.device.is_cuda()) {
    throw std::invalid_argument("no communicator for tensors on " + options.device.str());
  }
#ifndef HETBENCH_WITH_CUDA
  if (options.device.is_cuda()) {
    throw std::invalid_argument("this build's LibTorch has no CUDA, so no NCCL communicator for " +
                                options.device.str());
  }
#elif !defined(HETBENCH_WITH_NCCL)
  if (options.device.is_cuda() && world.distributed()) {
    throw std::invalid_argument("this build found no nccl.h, so no NCCL communicator for " +
                                options.device.str() +
                                ": build with NCCL's headers (HETBENCH_NCCL_INCLUDE_DIR)");
  }
#endif
#ifndef HETBENCH_WITH_GLOO
  if (options.device.is_cpu() && world.distributed()) {
    throw std::invalid_argument(
        "this build has no Gloo (LibTorch's Gloo headers were not found), so no communicator "
        "for CPU tensors: run the ranks on GPUs, or build with libgloo-dev");
  }
#endif
  if (!world.distributed()) return singleProcessCommunicator(options.device);

  auto store = rendezvous(world, options);
  c10::intrusive_ptr<Group> group;
#ifdef HETBENCH_WITH_NCCL
  if (options.device.is_cuda()) {
    auto ncclOptions = c10d::ProcessGroupNCCL::Options::create();
    ncclOptions->timeout = options.operationTimeout;
    group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, world.rank, world.size, ncclOptions);
  }
#endif
#ifdef HETBENCH_WITH_GLOO
  if (!group) {
    auto glooOptions = c10d::ProcessGroupGloo::Options::create(options.operationTimeout);
    glooOptions->devices.push_back(glooDevice(world));
    group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, world.rank, world.size, glooOptions);
  }
#endif
  return std::make_unique<C10dCommunicator>(std::move(store), std::move(group), options.device);
}

}  // namespace hetbench::distributed
