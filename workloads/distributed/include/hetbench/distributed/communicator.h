#pragma once

#include <torch/types.h>

#include <chrono>
#include <memory>
#include <vector>

#include "hetbench/distributed/world.h"

namespace hetbench::distributed {

enum class ReduceOp { kSum, kMax };

/// A collective operation in flight.
class PendingWork {
 public:
  virtual ~PendingWork() = default;
  /// Blocks until the operation has finished; throws what it failed with.
  virtual void wait() = 0;
};

/// The collective operations that data-parallel training needs, among the ranks of a World.
/// Every rank must call the same operations in the same order with tensors of the same shapes
/// and types, as with any MPI-style collective library.
class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Where the tensors given to this communicator live: the CPU for Gloo, the rank's GPU for
  /// NCCL.
  virtual torch::Device device() const = 0;

  /// Overwrites each tensor with its value on `root`. Several tensors travel in one message
  /// per data type (flattened and copied back).
  void broadcast(const std::vector<torch::Tensor>& tensors, int root);
  /// Replaces each tensor by the sum or the maximum of its values on all ranks, one message
  /// per data type as broadcast.
  void allReduce(const std::vector<torch::Tensor>& tensors, ReduceOp op);
  /// Starts an all-reduce of one contiguous tensor in place; the result is there once the
  /// returned work's wait() has returned.
  virtual std::unique_ptr<PendingWork> allReduceAsync(torch::Tensor tensor, ReduceOp op) = 0;
  /// Returns once every rank has called it.
  virtual void barrier() = 0;

 protected:
  /// Overwrites one contiguous tensor with its value on `root`.
  virtual void broadcastContiguous(torch::Tensor tensor, int root) = 0;
};

/// The communicator of a world of one process: every collective leaves the tensors as they are.
std::unique_ptr<Communicator> singleProcessCommunicator(torch::Device device = torch::kCPU);

struct ConnectOptions {
  /// CPU: a Gloo process group; CUDA: NCCL on that GPU (only in a build with CUDA).
  torch::Device device = torch::kCPU;
  /// How long the ranks wait for each other at the rendezvous.
  std::chrono::milliseconds connectTimeout = std::chrono::minutes(5);
  /// How long one collective may take before it fails (PyTorch's default: 30 minutes).
  std::chrono::milliseconds operationTimeout = std::chrono::minutes(30);
};

/// Joins the world: rank 0 serves a c10d TCPStore at MASTER_ADDR:MASTER_PORT, every rank
/// connects to it, announces itself and waits for the others, then builds a Gloo (CPU) or NCCL
/// (CUDA) process group through it. A world of one process needs none of that and gets
/// singleProcessCommunicator. Throws std::runtime_error naming the address and the ranks that
/// did not arrive within connectTimeout, and std::invalid_argument for a device this build
/// cannot use.
std::unique_ptr<Communicator> connect(const World& world, const ConnectOptions& options = {});

/// Sums (samples, batches) or takes the maximum (times) of a few figures across the ranks, e.g.
/// an epoch's throughput figures; every rank gets the result.
std::vector<double> reduceFigures(Communicator& comm, const std::vector<double>& figures,
                                  ReduceOp op);

}  // namespace hetbench::distributed
