#pragma once

#include <chrono>
#include <mutex>

namespace hetbench::common {

using WallTime = std::chrono::system_clock::time_point;
using MonoTime = std::chrono::steady_clock::time_point;

/// The source of time for everything that schedules or timestamps. Injected by reference so that
/// tests move time by hand instead of sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time, for timestamps written to the API and to logs.
  virtual WallTime now() const = 0;
  /// Monotonic time, for timeouts and delays; never jumps backwards.
  virtual MonoTime monotonic() const = 0;
};

/// The real clocks of the machine.
class SystemClock final : public Clock {
 public:
  WallTime now() const override { return std::chrono::system_clock::now(); }
  MonoTime monotonic() const override { return std::chrono::steady_clock::now(); }
};

/// A clock that only moves when a test says so; both time bases advance together.
class FakeClock final : public Clock {
 public:
  /// Starts at `start` (wall time); monotonic time starts at an arbitrary fixed epoch.
  explicit FakeClock(WallTime start = WallTime(std::chrono::seconds(1'700'000'000)))
      : wall_(start), mono_(MonoTime(std::chrono::hours(1))) {}

  WallTime now() const override {
    std::lock_guard lock(mu_);
    return wall_;
  }
  MonoTime monotonic() const override {
    std::lock_guard lock(mu_);
    return mono_;
  }

  /// Moves both time bases forward; a negative step is ignored (time never runs back).
  void advance(std::chrono::nanoseconds step) {
    if (step.count() <= 0) return;
    std::lock_guard lock(mu_);
    wall_ += std::chrono::duration_cast<WallTime::duration>(step);
    mono_ += std::chrono::duration_cast<MonoTime::duration>(step);
  }

  /// Sets wall time (as an NTP correction would); monotonic time is unaffected.
  void setWall(WallTime t) {
    std::lock_guard lock(mu_);
    wall_ = t;
  }

 private:
  mutable std::mutex mu_;
  WallTime wall_;
  MonoTime mono_;
};

}  // namespace hetbench::common
