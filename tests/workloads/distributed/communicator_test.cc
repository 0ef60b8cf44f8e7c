#include "hetbench/distributed/communicator.h"

#include <gtest/gtest.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <stdexcept>
#include <vector>

#include "fake_communicator.h"
#include "hetbench/distributed/module_sync.h"

namespace hetbench::distributed {
namespace {

using testing::FakeCommunicator;

// Verifies that several tensors travel as one flat message per data type and come back in place,
// non-contiguous ones included.
TEST(Communicator, AllReducesTensorsOneMessagePerType) {
  FakeCommunicator comm(3);
  auto a = torch::tensor({1.0F, 2.0F});
  auto b = torch::tensor({10.0, 20.0, 30.0}, torch::kFloat64);
  auto base = torch::tensor({{1.0F, 2.0F}, {3.0F, 4.0F}});
  auto c = base.t();
  comm.allReduce({a, b, c}, ReduceOp::kSum);

  ASSERT_EQ(comm.operations.size(), 2U);
  EXPECT_TRUE(
      torch::equal(comm.operations[0].sent, torch::tensor({1.0F, 2.0F, 1.0F, 3.0F, 2.0F, 4.0F})));
  EXPECT_TRUE(torch::equal(comm.operations[1].sent, b - 2.0));
  // Two other ranks, each adding 1.
  EXPECT_TRUE(torch::equal(a, torch::tensor({3.0F, 4.0F})));
  EXPECT_TRUE(torch::equal(b, torch::tensor({12.0, 22.0, 32.0}, torch::kFloat64)));
  EXPECT_TRUE(torch::equal(base, torch::tensor({{3.0F, 4.0F}, {5.0F, 6.0F}})));
}

// Verifies that a broadcast overwrites a non-root rank's tensors and refuses a root outside the
// world.
TEST(Communicator, BroadcastsFromTheRoot) {
  FakeCommunicator comm(2, 1);
  auto mine = torch::zeros({3});
  comm.broadcast({mine}, 1);
  EXPECT_TRUE(torch::equal(mine, torch::zeros({3})));
  comm.broadcast({mine}, 0);
  EXPECT_TRUE(torch::equal(mine, torch::full({3}, 7.0F)));
  EXPECT_THROW(comm.broadcast({mine}, 2), std::invalid_argument);
  EXPECT_THROW(comm.broadcast({mine}, -1), std::invalid_argument);
}

// Verifies that a tensor on another device than the communicator's is refused before sending.
TEST(Communicator, RefusesTensorsOnAnotherDevice) {
  FakeCommunicator comm;
  const auto meta = torch::empty({2}, torch::TensorOptions().device(torch::kMeta));
  try {
    comm.allReduce({meta}, ReduceOp::kSum);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "a tensor on meta given to a communicator on cpu");
  }
  EXPECT_TRUE(comm.operations.empty());
}

// Verifies that epoch figures are summed or maximised across ranks.
TEST(Communicator, ReducesFigures) {
  FakeCommunicator comm(3);
  EXPECT_EQ(reduceFigures(comm, {2.0, 3.5}, ReduceOp::kSum), (std::vector<double>{4.0, 5.5}));
  comm.peerMaximum = 4.0;
  EXPECT_EQ(reduceFigures(comm, {1.0, 5.0}, ReduceOp::kMax), (std::vector<double>{4.0, 5.0}));
  EXPECT_TRUE(reduceFigures(comm, {}, ReduceOp::kSum).empty());
  ASSERT_EQ(comm.operations.size(), 2U);
  EXPECT_EQ(comm.operations[0].sent.scalar_type(), torch::kFloat64);
}

// Verifies that one process' collectives leave everything as it is.
TEST(Communicator, SingleProcessLeavesTensorsAlone) {
  const auto comm = singleProcessCommunicator();
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  auto t = torch::tensor({1.0F, 2.0F});
  comm->allReduce({t}, ReduceOp::kSum);
  comm->broadcast({t}, 0);
  comm->barrier();
  EXPECT_TRUE(torch::equal(t, torch::tensor({1.0F, 2.0F})));
  EXPECT_EQ(reduceFigures(*comm, {3.0}, ReduceOp::kMax), (std::vector<double>{3.0}));
}

torch::nn::Sequential smallNet() {
  return torch::nn::Sequential(torch::nn::Linear(3, 4), torch::nn::BatchNorm1d(4));
}

// Verifies that broadcastModule gives a rank rank 0's parameters and buffers, still trainable.
TEST(ModuleSync, BroadcastModuleCopiesParametersAndBuffers) {
  FakeCommunicator comm(2, 1);
  auto net = smallNet();
  broadcastModule(comm, *net);
  for (const auto& p : net->parameters()) {
    EXPECT_TRUE(torch::equal(p, torch::full_like(p, 7.0F)));
    EXPECT_TRUE(p.requires_grad());
  }
  for (const auto& b : net->buffers()) EXPECT_TRUE(torch::equal(b, torch::full_like(b, 7)));
}

// Verifies that broadcastBuffers sends BatchNorm's statistics and counter, not the parameters.
TEST(ModuleSync, BroadcastBuffersCopiesOnlyBuffers) {
  FakeCommunicator comm(2, 1);
  auto net = smallNet();
  const auto weight = net->parameters()[0].clone();
  broadcastBuffers(comm, *net);
  EXPECT_TRUE(torch::equal(net->parameters()[0], weight));
  for (const auto& b : net->buffers()) EXPECT_TRUE(torch::equal(b, torch::full_like(b, 7)));
  // Floats and the int64 counter: one message each.
  EXPECT_EQ(comm.operations.size(), 2U);
}

// Verifies that averageBuffers replaces the running statistics by their mean over the ranks and
// leaves the batch counter alone.
TEST(ModuleSync, AverageBuffersAveragesRunningStatistics) {
  FakeCommunicator comm(2);
  auto net = smallNet();
  auto* bn = net[1]->as<torch::nn::BatchNorm1d>();
  bn->num_batches_tracked.fill_(5);
  averageBuffers(comm, *net);
  // Here a running mean of 0 and a variance of 1; the other rank's are both 1.
  EXPECT_TRUE(torch::equal(bn->running_mean, torch::full({4}, 0.5F)));
  EXPECT_TRUE(torch::equal(bn->running_var, torch::full({4}, 1.0F)));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 5);
  EXPECT_EQ(comm.operations.size(), 1U);
}

}  // namespace
}  // namespace hetbench::distributed
