#include "hetbench/train/epoch_timer.h"

#include <stdexcept>
#include <utility>

namespace hetbench::train {

MonotonicClock steadyClock() {
  return [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch());
  };
}

EpochTimer::EpochTimer(MonotonicClock clock, std::function<void()> synchronize)
    : clock_(std::move(clock)), synchronize_(std::move(synchronize)) {}

std::chrono::nanoseconds EpochTimer::read() {
  synchronize_();
  return clock_();
}

void EpochTimer::startEpoch() {
  if (state_ != State::kIdle) {
    throw std::logic_error("EpochTimer: startEpoch while an epoch is open");
  }
  io_ = std::chrono::nanoseconds(0);
  epochStart_ = read();
  state_ = State::kEpoch;
}

void EpochTimer::startIo() {
  if (state_ != State::kEpoch) {
    throw std::logic_error("EpochTimer: startIo outside an epoch or inside I/O");
  }
  ioStart_ = read();
  state_ = State::kIo;
}

void EpochTimer::stopIo() {
  if (state_ != State::kIo) {
    throw std::logic_error("EpochTimer: stopIo without startIo");
  }
  io_ += read() - ioStart_;
  state_ = State::kEpoch;
}

EpochTimes EpochTimer::stopEpoch() {
  if (state_ != State::kEpoch) {
    throw std::logic_error("EpochTimer: stopEpoch outside an epoch or inside I/O");
  }
  const std::chrono::nanoseconds wall = read() - epochStart_;
  state_ = State::kIdle;
  const auto seconds = [](std::chrono::nanoseconds d) {
    return std::chrono::duration<double>(d).count();
  };
  // Compute comes from the integer nanoseconds: io + compute is the wall time up to rounding.
  return {seconds(wall), seconds(io_), seconds(wall - io_)};
}

}  // namespace hetbench::train
