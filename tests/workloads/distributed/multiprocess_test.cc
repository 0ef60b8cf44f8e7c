// The c10d communicator between real processes on 127.0.0.1: the two-process acceptance test
// and the rendezvous' failures.

#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/distributed/communicator.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
#include "training_step.h"

namespace hetbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;
using testing_support::ChildProcess;
using testing_support::freePort;
using testing_support::TempDir;

double maxDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

/// A fresh tensor: InputArchive::read into a defined tensor reuses it whatever its type.
torch::Tensor read(torch::serialize::InputArchive& archive, const std::string& key) {
  torch::Tensor tensor;
  archive.read(key, tensor);
  return tensor;
}

// Verifies the acceptance criterion: two Gloo processes, each on half of the batch with the
// gradients averaged by GradientReducer, end one SGD step with the weights one process computes
// on the whole batch; and broadcastModule, averageBuffers, broadcastBuffers and reduceFigures
// between real processes.
TEST(TwoProcesses, OneStepEqualsOneProcessOnTheWholeBatch) {
  TempDir dir("distributed");
  const auto port = std::to_string(freePort());
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    const auto r = std::to_string(rank);
    ranks.push_back(std::make_unique<ChildProcess>(
        HETBENCH_DISTRIBUTED_RANK, std::vector<std::string>{dir.file("rank" + r + ".pt")},
        std::map<std::string, std::string>{{"WORLD_SIZE", "2"},
                                           {"RANK", r},
                                           {"LOCAL_RANK", r},
                                           {"LOCAL_WORLD_SIZE", "2"},
                                           {"MASTER_ADDR", "127.0.0.1"},
                                           {"MASTER_PORT", port},
                                           {"OMP_NUM_THREADS", "1"}},
        dir.file("rank" + r + ".log")));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  for (int rank = 0; rank < 2; ++rank) {
    const auto status = ranks[rank]->waitUntil(deadline);
    ASSERT_TRUE(status.has_value()) << "rank " << rank << " still runs after 120 s:\n"
                                    << ranks[rank]->output();
    ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
        << "rank " << rank << " failed (wait status " << *status << "):\n"
        << ranks[rank]->output();
  }

  auto reference = testing::stepModel(testing::kModelSeed);
  testing::sgdStep(reference, testing::globalBatch(), nullptr);

  std::vector<torch::serialize::InputArchive> archives(2);
  for (int rank = 0; rank < 2; ++rank) {
    archives[rank].load_from(dir.file("rank" + std::to_string(rank) + ".pt"));
  }
  c10::IValue buckets;
  archives[0].read("buckets", buckets);
  EXPECT_GE(buckets.toInt(), 4);
  for (const auto& item : reference->named_parameters()) {
    SCOPED_TRACE(item.key());
    const auto mine = read(archives[0], "parameter/" + item.key());
    const auto theirs = read(archives[1], "parameter/" + item.key());
    EXPECT_TRUE(torch::equal(mine, theirs)) << maxDifference(mine, theirs);
    // Sums in another order: float rounding, far below what one step changes.
    EXPECT_TRUE(torch::allclose(mine, item.value(), 1e-6, 1e-7))
        << "max difference " << maxDifference(mine, item.value());
  }

  std::vector<torch::Tensor> means;
  std::vector<torch::Tensor> variances;
  for (auto& archive : archives) {
    means.push_back(read(archive, "before/running_mean"));
    variances.push_back(read(archive, "before/running_var"));
  }
  ASSERT_FALSE(torch::equal(means[0], means[1]));
  for (auto& archive : archives) {
    EXPECT_TRUE(torch::allclose(read(archive, "averaged/running_mean"), (means[0] + means[1]) / 2));
    EXPECT_TRUE(
        torch::allclose(read(archive, "averaged/running_var"), (variances[0] + variances[1]) / 2));
    EXPECT_TRUE(torch::equal(read(archive, "broadcast/running_mean"), means[0]));
    EXPECT_TRUE(torch::equal(read(archive, "broadcast/running_var"), variances[0]));
    EXPECT_TRUE(
        torch::equal(read(archive, "figures/sum"), torch::tensor({4.0, 1.0}, torch::kFloat64)));
    EXPECT_TRUE(
        torch::equal(read(archive, "figures/max"), torch::tensor({10.0, 5.0}, torch::kFloat64)));
  }
}

World loopbackWorld(int size, int rank, uint16_t port) {
  World world;
  world.size = size;
  world.rank = rank;
  world.masterAddr = "127.0.0.1";
  world.masterPort = port;
  return world;
}

ConnectOptions timeoutAfter(std::chrono::milliseconds timeout) {
  ConnectOptions options;
  options.connectTimeout = timeout;
  return options;
}

std::string connectError(const World& world, const ConnectOptions& options) {
  try {
    connect(world, options);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "connected";
}

// Verifies that the ranks that arrive fail after the timeout naming the rank that never does,
// instead of waiting for it forever.
TEST(Connect, NamesTheRankThatNeverArrives) {
  const auto port = freePort();
  const auto address = "127.0.0.1:" + std::to_string(port);
  const auto start = Clock::now();
  // Rank 2 gives up first, while rank 0 still serves the store it asks who is missing. Its 2 s
  // leave room for c10d's one-second pause when it knocks before rank 0 listens.
  std::string rank2;
  std::thread other([&] {
    rank2 = connectError(loopbackWorld(3, 2, port), timeoutAfter(std::chrono::seconds(2)));
  });
  const auto rank0 = connectError(loopbackWorld(3, 0, port), timeoutAfter(std::chrono::seconds(5)));
  other.join();
  EXPECT_EQ(rank0, "rank 0 waited 5 s at the rendezvous store " + address +
                       ": rank 1 of 3 did not arrive");
  EXPECT_EQ(rank2, "rank 2 waited 2 s at the rendezvous store " + address +
                       ": rank 1 of 3 did not arrive");
  const auto alonePort = freePort();
  EXPECT_EQ(
      connectError(loopbackWorld(3, 0, alonePort), timeoutAfter(std::chrono::milliseconds(250))),
      "rank 0 waited 0.25 s at the rendezvous store 127.0.0.1:" + std::to_string(alonePort) +
          ": ranks 1, 2 of 3 did not arrive");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
}

// Verifies that a rank whose rank 0 never serves the store fails with the address it tried.
TEST(Connect, SaysWhichStoreItCouldNotReach) {
  const auto port = freePort();
  const auto error =
      connectError(loopbackWorld(2, 1, port), timeoutAfter(std::chrono::milliseconds(500)));
  // c10d connects for whole seconds.
  const auto expected =
      "rank 1 could not reach rank 0's rendezvous store at 127.0.0.1:" + std::to_string(port) +
      " within 1 s: ";
  EXPECT_EQ(error.substr(0, expected.size()), expected) << error;
}

// Verifies that rank 0 says which address it could not serve the store on.
TEST(Connect, SaysWhichAddressItCouldNotServe) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const auto port = ntohs(address.sin_port);
  const auto error =
      connectError(loopbackWorld(2, 0, port), timeoutAfter(std::chrono::milliseconds(500)));
  ::close(fd);
  const auto expected =
      "rank 0 could not serve the rendezvous store at 127.0.0.1:" + std::to_string(port) + ": ";
  EXPECT_EQ(error.substr(0, expected.size()), expected) << error;
}

// Verifies that one process needs no store and no address.
TEST(Connect, OneProcessNeedsNoStore) {
  const auto comm = connect(World{});
  EXPECT_EQ(comm->size(), 1);
  EXPECT_EQ(comm->rank(), 0);
}

#ifndef HETBENCH_WITH_CUDA
// Verifies that a build without CUDA refuses a CUDA communicator instead of failing later.
TEST(Connect, RefusesCudaWithoutCuda) {
  ConnectOptions options;
  options.device = torch::Device(torch::kCUDA, 0);
  EXPECT_THROW(connect(World{}, options), std::invalid_argument);
}
#endif

}  // namespace
}  // namespace hetbench::distributed
