#include "hetbench/train/data_parallel.h"

#include <ATen/ops/_foreach_div.h>
#include <hetbench/distributed/module_sync.h>
#include <torch/utils.h>

#include <array>
#include <stdexcept>
#include <utility>

namespace hetbench::train {
namespace {

/// An EpochFigures as a row of doubles (the integers are far below 2^53), with a presence flag
/// for each optional part.
constexpr size_t kFigureFields = 16;
using FigureRow = std::array<double, kFigureFields>;

FigureRow toRow(const EpochFigures& figures) {
  const EvalTotals eval = figures.eval.value_or(EvalTotals{});
  return {static_cast<double>(figures.epoch),
          static_cast<double>(figures.samples),
          static_cast<double>(figures.steps),
          figures.wallSeconds,
          figures.ioSeconds,
          figures.computeSeconds,
          figures.warmup ? 1.0 : 0.0,
          figures.lossSum,
          figures.energyJoules ? 1.0 : 0.0,
          figures.energyJoules.value_or(0.0),
          figures.eval ? 1.0 : 0.0,
          static_cast<double>(eval.samples),
          eval.lossSum,
          eval.metricSum,
          eval.seconds,
          figures.profiled ? 1.0 : 0.0};
}

EpochFigures fromRow(const double* row) {
  EpochFigures figures;
  figures.epoch = static_cast<int64_t>(row[0]);
  figures.samples = static_cast<int64_t>(row[1]);
  figures.steps = static_cast<int64_t>(row[2]);
  figures.wallSeconds = row[3];
  figures.ioSeconds = row[4];
  figures.computeSeconds = row[5];
  figures.warmup = row[6] != 0.0;
  figures.lossSum = row[7];
  if (row[8] != 0.0) {
    figures.energyJoules = row[9];
  }
  if (row[10] != 0.0) {
    figures.eval = EvalTotals{static_cast<int64_t>(row[11]), row[12], row[13], row[14]};
  }
  figures.profiled = row[15] != 0.0;
  return figures;
}

}  // namespace

DataParallel::DataParallel(distributed::Communicator& comm, DataParallelOptions options)
    : comm_(comm), options_(std::move(options)) {}

DataParallel::~DataParallel() = default;

int64_t DataParallel::rank() const { return comm_.rank(); }

int64_t DataParallel::worldSize() const { return comm_.size(); }

void DataParallel::broadcastParameters(torch::nn::Module& module) {
  module_ = &module;
  distributed::broadcastModule(comm_, module);
  if (options_.overlapWithBackward) {
    reducer_ = std::make_unique<distributed::GradientReducer>(comm_, module, options_.reducer);
  }
}

void DataParallel::averageGradients(const std::vector<torch::Tensor>& gradients) {
  if (module_ == nullptr) {
    throw std::logic_error("gradients averaged before broadcastParameters");
  }
  if (reducer_) {
    reducer_->finish();
  } else if (comm_.size() > 1 && !gradients.empty()) {
    const torch::NoGradGuard noGrad;
    comm_.allReduce(gradients, distributed::ReduceOp::kSum);
    at::_foreach_div_(gradients, static_cast<double>(comm_.size()));
  }
  // Taken now, rank 0's buffers are what every rank starts the next forward with, as DDP's
  // broadcast before that forward would give them.
  if (options_.buffers == BufferSync::kBroadcastEachStep) {
    distributed::broadcastBuffers(comm_, *module_);
  }
}

void DataParallel::trainingEpochEnded(torch::nn::Module& module) {
  if (options_.buffers == BufferSync::kAverageEachEpoch) {
    distributed::averageBuffers(comm_, module);
  }
}

std::vector<EpochFigures> DataParallel::gatherFigures(const EpochFigures& mine) {
  // An all-gather as one sum: each rank fills its own row of a zero matrix.
  const auto ranks = static_cast<size_t>(comm_.size());
  std::vector<double> table(ranks * kFigureFields, 0.0);
  const FigureRow row = toRow(mine);
  std::copy(row.begin(), row.end(),
            table.begin() + static_cast<std::ptrdiff_t>(comm_.rank() * kFigureFields));
  table = distributed::reduceFigures(comm_, table, distributed::ReduceOp::kSum);
  std::vector<EpochFigures> all;
  all.reserve(ranks);
  for (size_t rank = 0; rank < ranks; ++rank) {
    all.push_back(fromRow(table.data() + rank * kFigureFields));
  }
  return all;
}

}  // namespace hetbench::train
