// distributed_rank OUTPUT: one rank of the two-process acceptance test (multiprocess_test.cc).
// Reads its world from torchrun's variables, takes one SGD step on its half of the batch with
// the gradients averaged, and saves what the test compares into OUTPUT (a LibTorch archive).

#include <torch/nn/modules/batchnorm.h>
#include <torch/serialize.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "hetbench/distributed/communicator.h"
#include "hetbench/distributed/gradient_reducer.h"
#include "hetbench/distributed/module_sync.h"
#include "hetbench/distributed/world.h"
#include "training_step.h"

namespace hetbench::distributed::testing {
namespace {

int run(const char* output) {
  const World world = worldFromEnvironment(std::getenv);
  ConnectOptions options;
  options.connectTimeout = std::chrono::seconds(30);
  options.operationTimeout = std::chrono::seconds(60);
  const auto comm = connect(world, options);
  torch::serialize::OutputArchive archive;

  // Each rank starts from other weights: broadcastModule must give it rank 0's.
  auto model = stepModel(kModelSeed + static_cast<uint64_t>(world.rank));
  broadcastModule(*comm, *model);
  // Small buckets, so that the step goes through several.
  GradientReducer reducer(
      *comm, *model, GradientReducerOptions().bucketCapBytes(1 << 20).firstBucketCapBytes(1 << 16));
  const auto batch = globalBatch();
  const int64_t share = kGlobalBatch / world.size;
  const int64_t first = world.rank * share;
  sgdStep(model, {batch.input.narrow(0, first, share), batch.target.narrow(0, first, share)},
          &reducer);
  for (const auto& item : model->named_parameters()) {
    archive.write("parameter/" + item.key(), item.value());
  }
  archive.write("buckets", static_cast<int64_t>(reducer.buckets().size()));

  // BatchNorm statistics that differ between the ranks.
  torch::nn::BatchNorm1d averaged(3);
  torch::nn::BatchNorm1d broadcast(3);
  const auto x = torch::arange(12, torch::kFloat32).reshape({4, 3}) * (world.rank + 1);
  averaged->forward(x);
  broadcast->forward(x);
  archive.write("before/running_mean", averaged->running_mean.clone());
  archive.write("before/running_var", averaged->running_var.clone());
  averageBuffers(*comm, *averaged);
  broadcastBuffers(*comm, *broadcast);
  archive.write("averaged/running_mean", averaged->running_mean);
  archive.write("averaged/running_var", averaged->running_var);
  archive.write("broadcast/running_mean", broadcast->running_mean);
  archive.write("broadcast/running_var", broadcast->running_var);

  const double rank = world.rank;
  archive.write("figures/sum",
                torch::tensor(reduceFigures(*comm, {2.0, rank}, ReduceOp::kSum), torch::kFloat64));
  archive.write(
      "figures/max",
      torch::tensor(reduceFigures(*comm, {10.0 * rank, 5.0}, ReduceOp::kMax), torch::kFloat64));
  archive.save_to(output);
  // Rank 0 serves the store: nobody leaves before everyone is done with it.
  comm->barrier();
  return 0;
}

}  // namespace
}  // namespace hetbench::distributed::testing

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: distributed_rank OUTPUT (world from WORLD_SIZE, RANK, MASTER_ADDR, ...)\n";
    return 2;
  }
  try {
    return hetbench::distributed::testing::run(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "distributed_rank: " << e.what() << "\n";
    return 1;
  }
}
