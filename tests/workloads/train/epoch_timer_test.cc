#include "hetbench/train/epoch_timer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetbench/train/figures.h"

namespace hetbench::train {
namespace {

using std::chrono::milliseconds;

/// A clock moved by hand that records, for each reading, how many synchronisations came before.
struct FakeTime {
  milliseconds now{1000};
  int syncs = 0;
  std::vector<int> syncsAtReading;

  EpochTimer timer() {
    return EpochTimer(
        [this] {
          syncsAtReading.push_back(syncs);
          return std::chrono::nanoseconds(now);
        },
        [this] { ++syncs; });
  }
};

// Verifies the split of an epoch: I/O is the sum of the I/O intervals, compute the rest of the
// wall time, and io + compute equals wall exactly.
TEST(EpochTimer, SplitsWallTimeIntoIoAndCompute) {
  struct Case {
    std::string name;
    std::vector<std::pair<milliseconds, milliseconds>> steps;  // (I/O, compute) per step
    milliseconds before;                                       // compute before the first I/O
    double wantWall;
    double wantIo;
  };
  const std::vector<Case> cases = {
      {"no I/O at all", {}, milliseconds(2500), 2.5, 0},
      {"one step", {{milliseconds(200), milliseconds(800)}}, milliseconds(0), 1.0, 0.2},
      {"three steps",
       {{milliseconds(100), milliseconds(300)},
        {milliseconds(50), milliseconds(300)},
        {milliseconds(0), milliseconds(250)}},
       milliseconds(10),
       1.01,
       0.15},
      {"all I/O", {{milliseconds(400), milliseconds(0)}}, milliseconds(0), 0.4, 0.4},
  };
  for (const Case& c : cases) {
    FakeTime time;
    EpochTimer timer = time.timer();
    timer.startEpoch();
    time.now += c.before;
    for (const auto& [io, compute] : c.steps) {
      timer.startIo();
      time.now += io;
      timer.stopIo();
      time.now += compute;
    }
    const EpochTimes times = timer.stopEpoch();
    EXPECT_DOUBLE_EQ(times.wallSeconds, c.wantWall) << c.name;
    EXPECT_DOUBLE_EQ(times.ioSeconds, c.wantIo) << c.name;
    EXPECT_DOUBLE_EQ(times.computeSeconds, c.wantWall - c.wantIo) << c.name;
    EXPECT_DOUBLE_EQ(times.ioSeconds + times.computeSeconds, times.wallSeconds) << c.name;
  }
}

// Verifies that the device is synchronised before every reading of the clock, so that queued
// work lands in the interval that issued it.
TEST(EpochTimer, SynchronisesBeforeEachReading) {
  FakeTime time;
  EpochTimer timer = time.timer();
  timer.startEpoch();
  timer.startIo();
  timer.stopIo();
  timer.startIo();
  timer.stopIo();
  timer.stopEpoch();
  EXPECT_EQ(time.syncsAtReading, (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

// Verifies that a second epoch starts from no I/O.
TEST(EpochTimer, StartsEachEpochAfresh) {
  FakeTime time;
  EpochTimer timer = time.timer();
  timer.startEpoch();
  timer.startIo();
  time.now += milliseconds(300);
  timer.stopIo();
  timer.stopEpoch();
  timer.startEpoch();
  time.now += milliseconds(100);
  const EpochTimes second = timer.stopEpoch();
  EXPECT_DOUBLE_EQ(second.wallSeconds, 0.1);
  EXPECT_EQ(second.ioSeconds, 0);
}

// Verifies that calls out of order are refused rather than measured wrongly.
TEST(EpochTimer, RefusesCallsOutOfOrder) {
  struct Case {
    std::string name;
    std::function<void(EpochTimer&)> calls;
  };
  const std::vector<Case> cases = {
      {"I/O before the epoch", [](EpochTimer& t) { t.startIo(); }},
      {"stop I/O without start", [](EpochTimer& t) { t.startEpoch(), t.stopIo(); }},
      {"I/O twice", [](EpochTimer& t) { t.startEpoch(), t.startIo(), t.startIo(); }},
      {"stop inside I/O", [](EpochTimer& t) { t.startEpoch(), t.startIo(), t.stopEpoch(); }},
      {"epoch twice", [](EpochTimer& t) { t.startEpoch(), t.startEpoch(); }},
      {"stop without start", [](EpochTimer& t) { t.stopEpoch(); }},
  };
  for (const Case& c : cases) {
    FakeTime time;
    EpochTimer timer = time.timer();
    EXPECT_THROW(c.calls(timer), std::logic_error) << c.name;
  }
}

// Verifies that the steady clock moves forward.
TEST(EpochTimer, SteadyClockIsMonotonic) {
  const MonotonicClock clock = steadyClock();
  const auto first = clock();
  EXPECT_LE(first, clock());
}

EpochFigures figures(int64_t samples, double wall, double io, std::optional<double> energy,
                     std::optional<EvalTotals> eval) {
  EpochFigures f;
  f.epoch = 3;
  f.samples = samples;
  f.steps = samples / 4;
  f.wallSeconds = wall;
  f.ioSeconds = io;
  f.computeSeconds = wall - io;
  f.lossSum = 1;
  f.energyJoules = energy;
  f.eval = eval;
  return f;
}

// Verifies how ranks' figures combine: counts and sums added, times the slowest rank's, energy
// and evaluation only when every rank has them.
TEST(CombineRanks, AddsCountsAndTakesTheSlowestTimes) {
  const EpochFigures a = figures(8, 2.0, 0.5, 100.0, EvalTotals{4, 2.0, 3.0, 0.2});
  const EpochFigures b = figures(12, 1.5, 0.7, 50.0, EvalTotals{4, 1.0, 1.0, 0.3});
  const EpochFigures all = combineRanks({a, b});
  EXPECT_EQ(all.epoch, 3);
  EXPECT_EQ(all.samples, 20);
  EXPECT_EQ(all.steps, 5);
  EXPECT_EQ(all.wallSeconds, 2.0);
  EXPECT_EQ(all.ioSeconds, 0.7);
  EXPECT_EQ(all.computeSeconds, 1.5);
  EXPECT_EQ(all.lossSum, 2);
  EXPECT_EQ(all.energyJoules, 150.0);
  EXPECT_EQ(all.eval, (EvalTotals{8, 3.0, 4.0, 0.3}));

  const EpochFigures unmetered = combineRanks({a, figures(8, 1, 0, std::nullopt, std::nullopt)});
  EXPECT_FALSE(unmetered.energyJoules.has_value());
  EXPECT_FALSE(unmetered.eval.has_value());
  EXPECT_EQ(combineRanks({a}), a);

  EpochFigures other = b;
  other.epoch = 4;
  EXPECT_THROW(combineRanks({a, other}), std::invalid_argument);
  EXPECT_THROW(combineRanks({}), std::invalid_argument);
}

}  // namespace
}  // namespace hetbench::train
