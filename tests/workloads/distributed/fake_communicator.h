#pragma once

// A communicator inside one process that plays one rank of a larger world: it records every
// collective, and the other ranks' contributions are fixed values.

#include <torch/types.h>

#include <memory>
#include <vector>

#include "hetbench/distributed/communicator.h"

namespace hetbench::distributed::testing {

class FakeCommunicator final : public Communicator {
 public:
  struct Operation {
    enum Kind { kAllReduce, kBroadcast } kind;
    ReduceOp op = ReduceOp::kSum;
    int root = 0;
    torch::Tensor sent;  // the tensor's value when the operation started
    bool waited = false;
  };

  explicit FakeCommunicator(int size = 2, int rank = 0) : size_(size), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  torch::Device device() const override { return torch::kCPU; }

  std::unique_ptr<PendingWork> allReduceAsync(torch::Tensor tensor, ReduceOp op) override {
    operations.push_back({Operation::kAllReduce, op, 0, tensor.clone()});
    return std::make_unique<Work>(*this, operations.size() - 1, tensor);
  }
  void barrier() override {}

  /// What each other rank adds to a sum.
  double peerValue = 1.0;
  /// Each other rank's value in a maximum.
  double peerMaximum = 0.0;
  /// The root's value in a broadcast from another rank.
  double rootValue = 7.0;
  std::vector<Operation> operations;

 protected:
  void broadcastContiguous(torch::Tensor tensor, int root) override {
    operations.push_back({Operation::kBroadcast, ReduceOp::kSum, root, tensor.clone(), true});
    if (root != rank()) tensor.fill_(rootValue);
  }

 private:
  class Work final : public PendingWork {
   public:
    Work(FakeCommunicator& comm, size_t index, torch::Tensor tensor)
        : comm_(comm), index_(index), tensor_(std::move(tensor)) {}
    void wait() override {
      auto& operation = comm_.operations[index_];
      if (operation.waited) return;
      operation.waited = true;
      if (operation.op == ReduceOp::kSum) {
        tensor_.add_((comm_.size() - 1) * comm_.peerValue);
      } else {
        tensor_.clamp_min_(comm_.peerMaximum);
      }
    }

   private:
    FakeCommunicator& comm_;
    size_t index_;
    torch::Tensor tensor_;
  };

  int size_;
  int rank_;
};

}  // namespace hetbench::distributed::testing
