#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace hetbench::energy {

/// A thread that samples every `period` on a clock that tests move by hand, for the meter's power
/// integral and the health monitor's windows. The owner's mutex guards the samples and this
/// sampler alike; destroying the sampler ends its thread at once.
class PeriodicSampler {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Clock = std::function<TimePoint()>;
  /// Called with the owner's mutex held: the time of the sample, and the seconds since the
  /// previous one (or since `start`).
  using Sample = std::function<void(TimePoint now, double seconds)>;

  PeriodicSampler(std::mutex& mutex, Clock clock, std::chrono::milliseconds period, TimePoint start,
                  Sample sample)
      : mutex_(mutex),
        clock_(std::move(clock)),
        period_(period),
        sample_(std::move(sample)),
        last_(start),
        thread_([this] { run(); }) {}

  PeriodicSampler(const PeriodicSampler&) = delete;
  PeriodicSampler& operator=(const PeriodicSampler&) = delete;

  ~PeriodicSampler() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  /// Samples at `now`, out of turn; the caller holds the owner's mutex.
  void sampleLocked(TimePoint now) {
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    sample_(now, seconds);
  }

 private:
  /// Samples when a period has passed on the clock. The wait is on the condition variable, so
  /// that the destructor ends it at once.
  void run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      const TimePoint now = clock_();
      const TimePoint due = last_ + period_;
      if (now >= due) {
        sampleLocked(now);
        continue;
      }
      wake_.wait_for(lock, due - now, [this] { return stopping_; });
    }
  }

  std::mutex& mutex_;
  Clock clock_;
  std::chrono::milliseconds period_;
  Sample sample_;
  std::condition_variable wake_;
  bool stopping_ = false;
  TimePoint last_;
  // Last: it starts once everything above is set.
  std::thread thread_;
};

}  // namespace hetbench::energy
