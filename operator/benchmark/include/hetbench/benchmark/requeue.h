#pragma once

#include <chrono>
#include <optional>

#include "hetbench/common/clock.h"

namespace hetbench::benchmark {

/// The earliest of the deadlines a pass meets, which its reconcile returns as a requeue.
class Deadlines {
 public:
  void note(common::WallTime at) {
    if (!earliest_ || at < *earliest_) earliest_ = at;
  }
  void note(const std::optional<common::WallTime>& at) {
    if (at) note(*at);
  }
  const std::optional<common::WallTime>& earliest() const { return earliest_; }

 private:
  std::optional<common::WallTime> earliest_;
};

/// The least a pass waits before it looks again, so that a deadline in the past cannot spin.
inline constexpr std::chrono::milliseconds kMinRequeue{100};

/// When to reconcile again: at the earliest deadline, no sooner than kMinRequeue from now;
/// never without one.
std::optional<std::chrono::nanoseconds> requeueAfter(const Deadlines& deadlines,
                                                     common::WallTime now);

}  // namespace hetbench::benchmark
