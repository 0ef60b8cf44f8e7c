#include "hetbench/train/figures.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hetbench::train {

EpochFigures combineRanks(const std::vector<EpochFigures>& ranks) {
  if (ranks.empty()) {
    throw std::invalid_argument("no epoch figures to combine");
  }
  EpochFigures all = ranks.front();
  all.devices.clear();
  for (size_t i = 1; i < ranks.size(); ++i) {
    const EpochFigures& rank = ranks[i];
    if (rank.epoch != all.epoch) {
      throw std::invalid_argument("figures of epochs " + std::to_string(all.epoch) + " and " +
                                  std::to_string(rank.epoch) + " cannot be combined");
    }
    all.samples += rank.samples;
    all.steps += rank.steps;
    all.wallSeconds = std::max(all.wallSeconds, rank.wallSeconds);
    all.ioSeconds = std::max(all.ioSeconds, rank.ioSeconds);
    all.computeSeconds = std::max(all.computeSeconds, rank.computeSeconds);
    all.warmup = all.warmup || rank.warmup;
    all.profiled = all.profiled || rank.profiled;
    all.lossSum += rank.lossSum;
    if (all.energyJoules && rank.energyJoules) {
      *all.energyJoules += *rank.energyJoules;
    } else {
      all.energyJoules.reset();
    }
    if (all.eval && rank.eval) {
      all.eval->samples += rank.eval->samples;
      all.eval->lossSum += rank.eval->lossSum;
      all.eval->metricSum += rank.eval->metricSum;
      all.eval->seconds = std::max(all.eval->seconds, rank.eval->seconds);
    } else {
      all.eval.reset();
    }
  }
  return all;
}

}  // namespace hetbench::train
