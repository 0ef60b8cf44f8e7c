#pragma once

#include <chrono>
#include <functional>

namespace hetbench::train {

/// Reads a monotonic clock; injected so that tests move time by hand.
using MonotonicClock = std::function<std::chrono::nanoseconds()>;

/// std::chrono::steady_clock since its epoch.
MonotonicClock steadyClock();

/// What an epoch's timer measured, in seconds; compute is wall minus I/O.
struct EpochTimes {
  double wallSeconds = 0;
  double ioSeconds = 0;
  double computeSeconds = 0;
};

/// Splits an epoch's wall time into I/O (waiting for the next batch and copying it to the
/// device) and compute (the rest), as docs/metrics.md defines them. `synchronize` runs before
/// every reading of the clock: on a device that runs asynchronously it waits for the queued
/// work, so that each interval holds exactly the work issued inside it. Throws std::logic_error
/// when called out of order.
class EpochTimer {
 public:
  EpochTimer(MonotonicClock clock, std::function<void()> synchronize);

  void startEpoch();
  void startIo();
  void stopIo();
  EpochTimes stopEpoch();

 private:
  enum class State { kIdle, kEpoch, kIo };

  std::chrono::nanoseconds read();

  MonotonicClock clock_;
  std::function<void()> synchronize_;
  State state_ = State::kIdle;
  std::chrono::nanoseconds epochStart_{0};
  std::chrono::nanoseconds ioStart_{0};
  std::chrono::nanoseconds io_{0};
};

}  // namespace hetbench::train
