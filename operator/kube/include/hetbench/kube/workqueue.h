#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "hetbench/common/clock.h"

namespace hetbench::kube {

/// Hooks for the work queue's metrics (depth, adds, time queued, work duration, retries).
/// They run under the queue's lock: keep them cheap and never call back into the queue.
struct WorkQueueObserver {
  std::function<void(std::size_t depth)> depth;
  std::function<void()> added;
  std::function<void(std::chrono::nanoseconds)> queued;  // add to get
  std::function<void(std::chrono::nanoseconds)> worked;  // get to done
  std::function<void()> retried;
};

struct RateLimitOptions {
  std::chrono::nanoseconds baseDelay{std::chrono::milliseconds(5)};  // per item, doubling
  std::chrono::nanoseconds maxDelay{std::chrono::seconds(1000)};
  double qps = 10;  // overall token bucket
  int burst = 100;
};

/// A de-duplicating, rate-limited queue of keys ("namespace/name"), as client-go's: a key is
/// never processed by two workers at once, and a key added while it is processed is processed
/// again after done(). Rate-limited adds wait max(per-item backoff, overall bucket). Time comes
/// from the injected Clock; with a FakeClock, tests advance it and call tryGet(). Thread-safe.
class WorkQueue {
 public:
  static constexpr std::chrono::milliseconds kRecheck{100};

  WorkQueue(const common::Clock& clock, RateLimitOptions limits = {},
            WorkQueueObserver observer = {});

  void add(const std::string& key);
  void addAfter(const std::string& key, std::chrono::nanoseconds delay);
  /// Adds after the key's next backoff delay, counting a retry.
  void addRateLimited(const std::string& key);
  /// Resets the key's backoff (call after a successful reconcile).
  void forget(const std::string& key);
  int retries(const std::string& key) const;

  /// Blocks until a key is ready or the queue shuts down (nullopt). Uses the clock's monotonic
  /// time for delayed keys, looking at it again at least every kRecheck of real time, so that
  /// a delayed key also comes due when a FakeClock is moved.
  std::optional<std::string> get();
  /// A ready key, if any, without blocking.
  std::optional<std::string> tryGet();
  /// Marks a key processed; a re-add during processing queues it again.
  void done(const std::string& key);

  /// Wakes blocked get() calls, which return nullopt once the queue is drained; adds are
  /// ignored from then on.
  void shutDown();
  bool shuttingDown() const;
  /// Keys ready now (not counting delayed or in-process ones).
  std::size_t length() const;

 private:
  void promoteDueLocked();
  void pushLocked(const std::string& key);
  void addAfterLocked(const std::string& key, std::chrono::nanoseconds delay);
  std::optional<std::string> popLocked();
  std::chrono::nanoseconds nextBackoffLocked(const std::string& key);

  const common::Clock& clock_;
  RateLimitOptions limits_;
  WorkQueueObserver observer_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;
  std::set<std::string> processing_;
  std::multimap<common::MonoTime, std::string> delayed_;
  std::map<std::string, common::MonoTime> addedAt_;
  std::map<std::string, common::MonoTime> startedAt_;
  std::map<std::string, int> failures_;
  double tokens_;
  common::MonoTime lastRefill_;
  bool shuttingDown_ = false;
};

}  // namespace hetbench::kube
