// train_rank MODEL OUTPUT: one rank of the two-rank DataParallel test (data_parallel_test.cc).
// Reads its world from torchrun's variables, trains MODEL at a reduced size for a few steps on
// its half of the batch through DataParallel, and saves its weights, buffers and the gathered
// epoch figures into OUTPUT (a LibTorch archive).

#include <c10/util/Exception.h>
#include <hetbench/distributed/communicator.h>
#include <hetbench/distributed/world.h>
#include <torch/serialize.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/train/data_parallel.h"
#include "parallel_steps.h"

namespace hetbench::train::testing {
namespace {

int run(models::ModelKind kind, const std::string& output) {
  torch::set_num_threads(1);
  const distributed::World world = distributed::worldFromEnvironment(std::getenv);
  distributed::ConnectOptions options;
  options.connectTimeout = std::chrono::seconds(30);
  options.operationTimeout = std::chrono::seconds(60);
  const auto comm = distributed::connect(world, options);

  // Each rank starts from other weights: DataParallel must give it rank 0's.
  const auto model = parallelModel(kind, kModelSeed + static_cast<uint64_t>(world.rank));
  DataParallelOptions parallel;
  parallel.buffers = models::descriptor(kind).bufferSync;
  // Small buckets, so that a step goes through several.
  parallel.reducer.bucketCapBytes(1 << 20).firstBucketCapBytes(1 << 16);
  DataParallel ranks(*comm, parallel);
  const models::Batch batch = wholeBatch(*model);
  const int64_t share = kGlobalBatch / world.size;
  const int64_t first = world.rank * share;
  const EpochFigures mine = trainSteps(
      *model, {batch.input.narrow(0, first, share), batch.target.narrow(0, first, share)}, ranks);
  const std::vector<EpochFigures> all = ranks.gatherFigures(mine);

  torch::serialize::OutputArchive archive;
  for (const auto& item : model->module().named_parameters()) {
    archive.write("state/" + item.key(), item.value());
  }
  for (const auto& item : model->module().named_buffers()) {
    archive.write("state/" + item.key(), item.value());
  }
  archive.write("mine/loss_sum", torch::tensor(mine.lossSum, torch::kDouble));
  std::vector<double> lossSums;
  std::vector<double> samples;
  for (const EpochFigures& figures : all) {
    lossSums.push_back(figures.lossSum);
    samples.push_back(static_cast<double>(figures.samples));
  }
  archive.write("all/loss_sum", torch::tensor(lossSums, torch::kDouble));
  archive.write("all/samples", torch::tensor(samples, torch::kDouble));
  archive.save_to(output);
  // Rank 0 serves the store: nobody leaves before everyone is done with it.
  comm->barrier();
  return 0;
}

}  // namespace
}  // namespace hetbench::train::testing

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: train_rank MODEL OUTPUT (world from WORLD_SIZE, RANK, MASTER_ADDR, ...)\n";
    return 2;
  }
  const std::optional<hetbench::models::ModelKind> kind = hetbench::models::modelNamed(argv[1]);
  if (!kind) {
    std::cerr << "train_rank: no model " << argv[1] << "\n";
    return 2;
  }
  try {
    return hetbench::train::testing::run(*kind, argv[2]);
  } catch (const c10::Error& e) {
    std::cerr << "train_rank: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "train_rank: " << e.what() << "\n";
  }
  return 1;
}
