// DataParallel, the Collective of a multi-process run: its exchanges with a fake communicator,
// then real ranks on 127.0.0.1 through Gloo: train_rank processes that train each model, and
// two hetbench-train processes on a dataset, read as the operator reads them.

#include "hetbench/train/data_parallel.h"

#include <gtest/gtest.h>
#include <hetbench/data/npy.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/serialize.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "hetbench/results/aggregate.h"
#include "hetbench/train/launcher.h"
#include "log_reading.h"
#include "parallel_steps.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
#include "workloads/distributed/fake_communicator.h"

namespace hetbench::train {
namespace {

using distributed::testing::FakeCommunicator;
using hetbench::testing_support::ChildProcess;
using hetbench::testing_support::freePort;
using hetbench::testing_support::TempDir;
using Operation = FakeCommunicator::Operation;

// Verifies the reference table: ResNet-50 broadcasts its BatchNorm buffers as DDP does,
// DeepCAM averages them after each epoch, CosmoFlow has none.
TEST(DataParallel, KeepsBuffersAsEachReference) {
  EXPECT_EQ(models::descriptor(models::ModelKind::kResnet50).bufferSync,
            BufferSync::kBroadcastEachStep);
  EXPECT_EQ(models::descriptor(models::ModelKind::kDeepcam).bufferSync,
            BufferSync::kAverageEachEpoch);
  EXPECT_EQ(models::descriptor(models::ModelKind::kCosmoflow).bufferSync, BufferSync::kNone);
}

// Verifies the all-gather of the epoch figures: this rank's row comes back whole, energy and
// evaluation included, and a rank that sent zeros gives empty figures, in one all-reduce.
TEST(DataParallel, GathersEveryRanksFigures) {
  FakeCommunicator comm(2, 1);
  comm.peerValue = 0;
  DataParallel ranks(comm, {});
  EpochFigures mine;
  mine.epoch = 3;
  mine.samples = 512;
  mine.steps = 2;
  mine.wallSeconds = 1.25;
  mine.ioSeconds = 0.25;
  mine.computeSeconds = 1.0;
  mine.warmup = true;
  mine.lossSum = 4.5;
  mine.energyJoules = 321.5;
  mine.eval = EvalTotals{64, 12.5, 40, 0.5};
  const std::vector<EpochFigures> all = ranks.gatherFigures(mine);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0], EpochFigures{});
  EXPECT_EQ(all[1], mine);
  ASSERT_EQ(comm.operations.size(), 1U);
  EXPECT_EQ(comm.operations[0].kind, Operation::kAllReduce);
}

/// A linear layer and a BatchNorm: parameters and buffers.
torch::nn::Sequential smallModule() {
  return torch::nn::Sequential(torch::nn::Linear(2, 2), torch::nn::BatchNorm1d(2));
}

// Verifies the path for CUDA graphs, without the reducer's hooks: after backward every gradient
// becomes the mean over the ranks in one all-reduce, then rank 0's buffers come in one
// broadcast per data type (ResNet-50's BatchNorm, as DDP before the next forward); the end of
// an epoch exchanges nothing more.
TEST(DataParallel, AveragesAfterBackwardAndBroadcastsBuffers) {
  FakeCommunicator comm(2, 1);
  comm.peerValue = 1;
  DataParallelOptions options;
  options.buffers = BufferSync::kBroadcastEachStep;
  options.overlapWithBackward = false;
  DataParallel ranks(comm, options);
  auto module = smallModule();
  EXPECT_THROW(ranks.averageGradients({}), std::logic_error);
  ranks.broadcastParameters(*module);
  const size_t atStart = comm.operations.size();
  EXPECT_GT(atStart, 0U);
  for (const auto& p : module->parameters()) {
    EXPECT_TRUE(torch::equal(p, torch::full_like(p, 7)));  // the root's value
  }
  const std::vector<torch::Tensor> gradients = {torch::full({2, 2}, 3.0), torch::full({2}, 5.0)};
  ranks.averageGradients(gradients);
  EXPECT_TRUE(torch::equal(gradients[0], torch::full({2, 2}, 2.0)));
  EXPECT_TRUE(torch::equal(gradients[1], torch::full({2}, 3.0)));
  ASSERT_EQ(comm.operations.size(), atStart + 3);  // gradients; float and int64 buffers
  EXPECT_EQ(comm.operations[atStart].kind, Operation::kAllReduce);
  EXPECT_EQ(comm.operations[atStart + 1].kind, Operation::kBroadcast);
  EXPECT_EQ(comm.operations[atStart + 2].kind, Operation::kBroadcast);
  ranks.trainingEpochEnded(*module);
  EXPECT_EQ(comm.operations.size(), atStart + 3);
}

// Verifies DeepCAM's way: nothing on the buffers at a step, their mean at the end of an epoch.
TEST(DataParallel, AveragesBuffersAtTheEndOfAnEpoch) {
  FakeCommunicator comm(2, 0);
  DataParallelOptions options;
  options.buffers = BufferSync::kAverageEachEpoch;
  options.overlapWithBackward = false;
  DataParallel ranks(comm, options);
  auto module = smallModule();
  ranks.broadcastParameters(*module);
  const size_t atStart = comm.operations.size();
  ranks.averageGradients({torch::ones({2})});
  EXPECT_EQ(comm.operations.size(), atStart + 1);
  comm.peerValue = 3;
  ranks.trainingEpochEnded(*module);
  ASSERT_EQ(comm.operations.size(), atStart + 2);
  EXPECT_EQ(comm.operations.back().kind, Operation::kAllReduce);
  const auto* batchNorm = (*module)[1]->as<torch::nn::BatchNorm1d>();
  EXPECT_TRUE(torch::equal(batchNorm->running_mean, torch::full({2}, 1.5)));  // (0 + 3) / 2
  EXPECT_TRUE(torch::equal(batchNorm->running_var, torch::full({2}, 2.0)));   // (1 + 3) / 2
}

using Clock = std::chrono::steady_clock;

/// Torchrun's variables for `rank` of two on 127.0.0.1:`port`.
std::map<std::string, std::string> rankEnvironment(int rank, uint16_t port) {
  return {{"WORLD_SIZE", "2"},
          {"RANK", std::to_string(rank)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)},
          {"OMP_NUM_THREADS", "1"}};
}

/// Waits for both ranks (at most `limit` together); a rank still running is killed.
void expectBothExitZero(std::vector<std::unique_ptr<ChildProcess>>& ranks,
                        std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    const auto status = ranks[rank]->waitUntil(deadline);
    ASSERT_TRUE(status.has_value())
        << "rank " << rank << " still runs after " << limit.count() << " s:\n"
        << ranks[rank]->output();
    ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
        << "rank " << rank << " failed (wait status " << *status << "):\n"
        << ranks[rank]->output();
  }
}

torch::Tensor read(torch::serialize::InputArchive& archive, const std::string& key) {
  torch::Tensor tensor;
  archive.read(key, tensor);
  return tensor;
}

class TwoRanks : public ::testing::TestWithParam<models::ModelKind> {};

// Verifies DataParallel in the Trainer between real processes: two train_rank processes start
// from different weights, each trains two SGD steps on its half of a batch, and they end with
// identical parameters and buffers (ResNet-50's BatchNorm statistics broadcast at each step,
// DeepCAM's averaged at the end of the epoch: their halves alone would differ), and gather
// each other's epoch figures. CosmoFlow without dropout has nothing that couples the samples,
// so both ranks must also equal one process trained on the whole batch.
TEST_P(TwoRanks, TrainInStep) {
  const models::ModelKind model = GetParam();
  const TempDir dir("data_parallel");
  const uint16_t port = freePort();
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string name = "rank" + std::to_string(rank);
    ranks.push_back(std::make_unique<ChildProcess>(
        HETBENCH_TRAIN_RANK,
        std::vector<std::string>{models::descriptor(model).name, dir.file(name + ".pt")},
        rankEnvironment(rank, port), dir.file(name + ".log")));
  }
  expectBothExitZero(ranks, std::chrono::seconds(240));

  std::vector<torch::serialize::InputArchive> archives(2);
  for (int rank = 0; rank < 2; ++rank) {
    archives[rank].load_from(dir.file("rank" + std::to_string(rank) + ".pt"));
  }
  torch::set_num_threads(1);
  const auto initial = testing::parallelModel(model, testing::kModelSeed);
  std::unique_ptr<models::Model> alone;
  if (model == models::ModelKind::kCosmoflow) {
    alone = testing::parallelModel(model, testing::kModelSeed);
    SingleProcess single;
    testing::trainSteps(*alone, testing::wholeBatch(*alone), single);
  }
  size_t trained = 0;
  double furthest = 0;
  auto compare = [&](const std::string& key, const torch::Tensor& start,
                     const torch::Tensor* reference) {
    const torch::Tensor first = read(archives[0], "state/" + key);
    const torch::Tensor second = read(archives[1], "state/" + key);
    EXPECT_TRUE(torch::equal(first, second)) << key << " differs between the ranks";
    trained += torch::equal(first, start) ? 0 : 1;
    if (reference != nullptr && first.is_floating_point()) {
      const double apart = (first - *reference).abs().max().item<double>();
      furthest = std::max(furthest, apart);
      EXPECT_LE(apart, 1e-6 + 1e-5 * reference->abs().max().item<double>()) << key;
    }
  };
  for (const auto& item : initial->module().named_parameters()) {
    const torch::Tensor* reference =
        alone ? &alone->module().named_parameters()[item.key()] : nullptr;
    compare(item.key(), item.value(), reference);
  }
  for (const auto& item : initial->module().named_buffers()) {
    compare(item.key(), item.value(), nullptr);
  }
  EXPECT_GT(trained, 0U) << "no weight changed";
  std::ostringstream apart;
  apart << std::scientific << furthest;
  RecordProperty("max_difference_from_one_process", apart.str());

  // Each rank's figures, as both gathered them.
  const torch::Tensor mine =
      torch::stack({read(archives[0], "mine/loss_sum"), read(archives[1], "mine/loss_sum")});
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_TRUE(torch::equal(read(archives[rank], "all/loss_sum"), mine)) << "rank " << rank;
    EXPECT_TRUE(torch::equal(read(archives[rank], "all/samples"),
                             torch::full({2}, testing::kGlobalBatch, torch::kDouble)))
        << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TwoRanks,
                         ::testing::Values(models::ModelKind::kCosmoflow,
                                           models::ModelKind::kResnet50,
                                           models::ModelKind::kDeepcam),
                         [](const ::testing::TestParamInfo<models::ModelKind>& param) {
                           return models::descriptor(param.param).name;
                         });

/// A CosmoFlow dataset of .npy pairs: `count` samples of 32^3 x 4 particle counts in `split`.
void writeCosmoflowSplit(const std::filesystem::path& root, const std::string& split, int count) {
  std::filesystem::create_directories(root / split);
  for (int sample = 0; sample < count; ++sample) {
    torch::manual_seed(static_cast<uint64_t>(sample));
    const torch::Tensor counts = torch::randint(0, 16, {32, 32, 32, 4}, torch::kInt16);
    const torch::Tensor label = torch::rand({4}) * 2 - 1;
    const std::string name = (root / split / ("univ_" + std::to_string(sample))).string();
    std::ofstream(name + "_data.npy", std::ios::binary)
        << data::encodeNpy("<i2", {32, 32, 32, 4}, counts.data_ptr(), counts.nbytes());
    std::ofstream(name + "_label.npy", std::ios::binary)
        << data::encodeNpy("<f4", {4}, label.data_ptr(), label.nbytes());
  }
}

// Verifies hetbench-train as two ranks on a real dataset: both exit 0; the operator's parser
// takes both logs as one run of world size 2 and global batch 4, every epoch reported by both
// ranks, each rank reading its own half of the 8 training samples (I/O time measured, I/O and
// compute adding up to the wall time) and the evaluation counting all 4 validation samples;
// the repetition's throughput is the ranks' samples together.
TEST(TwoRankProgram, TrainsOnADatasetAsOneRun) {
  const TempDir dir("data_parallel_program");
  const std::filesystem::path data = dir.file("cosmoflow");
  writeCosmoflowSplit(data, "train", 8);
  writeCosmoflowSplit(data, "validation", 4);
  const uint16_t port = freePort();
  std::vector<std::unique_ptr<ChildProcess>> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.push_back(std::make_unique<ChildProcess>(
        HETBENCH_TRAIN_BIN,
        std::vector<std::string>{"--model", "cosmoflow", "--data", data.string(), "--sample-size",
                                 "32", "--batch-size", "4", "--epochs", "2", "--eval",
                                 "--loader-threads", "1", "--threads", "1", "--device", "cpu"},
        rankEnvironment(rank, port), dir.file("rank" + std::to_string(rank) + ".log")));
  }
  expectBothExitZero(ranks, std::chrono::seconds(240));

  const auto parser = results::makeHetbenchParser();
  for (int rank = 0; rank < 2; ++rank) {
    for (const std::string& line : testing_support::lines(ranks[rank]->output())) {
      parser->consume("worker-" + std::to_string(rank), line);
    }
  }
  const results::ParsedLog log = parser->result();
  ASSERT_TRUE(log.errors.empty()) << results::logStatus(log).toString() << "\n"
                                  << ranks[0]->output();
  ASSERT_TRUE(log.run.has_value());
  EXPECT_EQ(log.run->worldSize, 2);
  EXPECT_EQ(log.worldSize, 2);
  EXPECT_EQ(log.run->globalBatchSize, 4);
  ASSERT_EQ(log.epochs.size(), 4U);  // 2 epochs x 2 ranks
  for (const results::EpochSample& epoch : log.epochs) {
    EXPECT_EQ(epoch.samples, 4) << "rank " << epoch.rank << " epoch " << epoch.epoch;
    ASSERT_TRUE(epoch.ioSeconds && epoch.computeSeconds);
    EXPECT_GT(*epoch.ioSeconds, 0);
    EXPECT_NEAR(*epoch.ioSeconds + *epoch.computeSeconds, epoch.wallSeconds,
                0.01 * epoch.wallSeconds);
  }
  const auto metrics = results::aggregateRepetition(log);
  ASSERT_TRUE(metrics.isOk()) << metrics.status().toString();
  EXPECT_EQ(metrics->epochsMeasured, 1);
  EXPECT_LT(metrics->values.at("compute_fraction"), 1.0);
  EXPECT_GT(metrics->values.at("effective_throughput"), 0);
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NE(ranks[rank]->output().find("\"eval_samples\":4,"), std::string::npos)
        << ranks[rank]->output();
  }
}

// Verifies the environment of the ranks a node's launcher starts: the node's world counts
// nodes, the ranks' counts processes.
TEST(Launcher, NumbersTheRanksOfANode) {
  distributed::World node;
  node.size = 2;
  node.rank = 1;
  node.masterAddr = "bench-0.bench";
  node.masterPort = 29400;
  EXPECT_EQ(localRankEnvironment(node, 4, 3),
            (std::map<std::string, std::string>{{"WORLD_SIZE", "8"},
                                                {"RANK", "7"},
                                                {"LOCAL_RANK", "3"},
                                                {"LOCAL_WORLD_SIZE", "4"},
                                                {"MASTER_ADDR", "bench-0.bench"},
                                                {"MASTER_PORT", "29400"}}));
  const distributed::World alone;
  EXPECT_EQ(localRankEnvironment(alone, 2, 0),
            (std::map<std::string, std::string>{{"WORLD_SIZE", "2"},
                                                {"RANK", "0"},
                                                {"LOCAL_RANK", "0"},
                                                {"LOCAL_WORLD_SIZE", "2"},
                                                {"MASTER_ADDR", "127.0.0.1"},
                                                {"MASTER_PORT", "29500"}}));
}

// Verifies hetbench-train as its node's launcher, as in a pod with several GPUs: started
// without LOCAL_RANK and with --procs-per-node 2, it runs two ranks whose interleaved lines
// on the one stdout the operator reads as one run of world size 2 (every line whole); a rank
// that fails (a global batch that does not divide) stops the other and the launcher exits
// with its status.
TEST(Launcher, StartsTheRanksOfItsNode) {
  const TempDir dir("launcher");
  const std::vector<std::string> base = {
      "--model",           "cosmoflow", "--sample-size", "32", "--epochs", "2",
      "--steps-per-epoch", "2",         "--threads",     "1",  "--device", "cpu",
      "--procs-per-node",  "2"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--batch-size", "4"});
  ChildProcess launcher(HETBENCH_TRAIN_BIN, args,
                        {{"MASTER_PORT", std::to_string(freePort())}, {"OMP_NUM_THREADS", "1"}},
                        dir.file("node.log"));
  const auto status = launcher.waitUntil(Clock::now() + std::chrono::seconds(240));
  ASSERT_TRUE(status.has_value()) << launcher.output();
  ASSERT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << launcher.output();
  const std::string output = launcher.output();
  EXPECT_NE(output.find("hetbench-train: started ranks 0 to 1 of 2 on this node\n"),
            std::string::npos)
      << output;
  const results::ParsedLog log = testing_support::readHetbench(output);
  ASSERT_TRUE(log.errors.empty()) << results::logStatus(log).toString() << "\n" << output;
  ASSERT_TRUE(log.run.has_value());
  EXPECT_EQ(log.run->worldSize, 2);
  EXPECT_EQ(log.run->globalBatchSize, 4);
  ASSERT_EQ(log.epochs.size(), 4U);
  EXPECT_TRUE(results::aggregateRepetition(log).isOk());
  for (const std::string& line : testing_support::lines(output)) {
    EXPECT_TRUE(line.rfind("hetbench-train: ", 0) == 0 || line.rfind(":::HETBENCH {", 0) == 0)
        << "a line cut by another rank's: " << line;
  }

  args = base;
  args.insert(args.end(), {"--batch-size", "3"});
  ChildProcess failing(HETBENCH_TRAIN_BIN, args, {{"MASTER_PORT", std::to_string(freePort())}},
                       dir.file("failing.log"));
  const auto failed = failing.waitUntil(Clock::now() + std::chrono::seconds(120));
  ASSERT_TRUE(failed.has_value()) << failing.output();
  EXPECT_TRUE(WIFEXITED(*failed) && WEXITSTATUS(*failed) == 2) << failing.output();
  EXPECT_NE(failing.output().find("--batch-size 3 does not divide among 2 ranks"),
            std::string::npos)
      << failing.output();
}

// Verifies that a world that cannot be joined fails before training, with status 2 and the
// variable named: WORLD_SIZE 2 without MASTER_ADDR.
TEST(TwoRankProgram, RefusesAWorldWithoutItsRendezvous) {
  const TempDir dir("data_parallel_env");
  ChildProcess rank(HETBENCH_TRAIN_BIN,
                    {"--model", "cosmoflow", "--batch-size", "2", "--steps-per-epoch", "1",
                     "--sample-size", "32"},
                    {{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_ADDR", ""}}, dir.file("log"));
  const auto status = rank.waitUntil(Clock::now() + std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << rank.output();
  EXPECT_NE(rank.output().find("MASTER_ADDR"), std::string::npos) << rank.output();
  EXPECT_EQ(rank.output().find(":::HETBENCH"), std::string::npos) << rank.output();
}

}  // namespace
}  // namespace hetbench::train
