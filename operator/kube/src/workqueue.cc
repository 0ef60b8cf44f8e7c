#include "hetbench/kube/workqueue.h"

#include <algorithm>
#include <cmath>

namespace hetbench::kube {

namespace {

/// base·2^failures, capped at `max` without overflowing.
std::chrono::nanoseconds exponentialBackoff(std::chrono::nanoseconds base,
                                            std::chrono::nanoseconds max, int failures) {
  if (base.count() <= 0) return std::chrono::nanoseconds(0);
  const double scaled = static_cast<double>(base.count()) * std::pow(2.0, failures);
  if (scaled >= static_cast<double>(max.count())) return max;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(scaled));
}

}  // namespace

WorkQueue::WorkQueue(const common::Clock& clock, RateLimitOptions limits,
                     WorkQueueObserver observer)
    : clock_(clock),
      limits_(limits),
      observer_(std::move(observer)),
      tokens_(static_cast<double>(limits.burst)),
      lastRefill_(clock.monotonic()) {}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  if (shuttingDown_) return;
  pushLocked(key);
}

void WorkQueue::addAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard lock(mu_);
  addAfterLocked(key, delay);
}

void WorkQueue::addRateLimited(const std::string& key) {
  std::lock_guard lock(mu_);
  if (shuttingDown_) return;
  const std::chrono::nanoseconds delay = nextBackoffLocked(key);
  if (observer_.retried) observer_.retried();
  addAfterLocked(key, delay);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int WorkQueue::retries(const std::string& key) const {
  std::lock_guard lock(mu_);
  const auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  for (;;) {
    promoteDueLocked();
    if (!queue_.empty()) return popLocked();
    if (shuttingDown_) return std::nullopt;
    if (delayed_.empty()) {
      cv_.wait(lock);
    } else {
      // The clock may not be the steady clock (a FakeClock moves when a test says), so wait
      // the remaining time, at most kRecheck, and look again.
      const auto remaining = delayed_.begin()->first - clock_.monotonic();
      cv_.wait_for(lock, std::clamp<std::chrono::nanoseconds>(
                             remaining, std::chrono::nanoseconds(0), kRecheck));
    }
  }
}

std::optional<std::string> WorkQueue::tryGet() {
  std::lock_guard lock(mu_);
  promoteDueLocked();
  if (queue_.empty()) return std::nullopt;
  return popLocked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  if (processing_.erase(key) == 0) return;
  const auto started = startedAt_.find(key);
  if (started != startedAt_.end()) {
    if (observer_.worked) observer_.worked(clock_.monotonic() - started->second);
    startedAt_.erase(started);
  }
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    if (observer_.depth) observer_.depth(queue_.size());
    cv_.notify_one();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard lock(mu_);
  shuttingDown_ = true;
  // As client-go's delaying queue: keys still waiting for their time are dropped.
  delayed_.clear();
  cv_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard lock(mu_);
  return shuttingDown_;
}

std::size_t WorkQueue::length() const {
  std::lock_guard lock(mu_);
  const common::MonoTime now = clock_.monotonic();
  std::size_t ready = queue_.size();
  for (auto it = delayed_.begin(); it != delayed_.end() && it->first <= now; ++it) {
    if (!dirty_.contains(it->second) && !processing_.contains(it->second)) ++ready;
  }
  return ready;
}

void WorkQueue::promoteDueLocked() {
  const common::MonoTime now = clock_.monotonic();
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    const std::string key = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    pushLocked(key);
  }
}

void WorkQueue::pushLocked(const std::string& key) {
  if (dirty_.contains(key)) return;
  dirty_.insert(key);
  if (observer_.added) observer_.added();
  addedAt_.try_emplace(key, clock_.monotonic());
  // A key being processed is queued again by done(), so that no two workers hold it.
  if (processing_.contains(key)) return;
  queue_.push_back(key);
  if (observer_.depth) observer_.depth(queue_.size());
  cv_.notify_one();
}

void WorkQueue::addAfterLocked(const std::string& key, std::chrono::nanoseconds delay) {
  if (shuttingDown_) return;
  if (delay.count() <= 0) {
    pushLocked(key);
    return;
  }
  const common::MonoTime due = clock_.monotonic() + delay;
  // A key waits once; a second delayed add can only bring it forward.
  for (auto it = delayed_.begin(); it != delayed_.end(); ++it) {
    if (it->second != key) continue;
    if (it->first <= due) return;
    delayed_.erase(it);
    break;
  }
  delayed_.emplace(due, key);
  cv_.notify_all();
}

std::optional<std::string> WorkQueue::popLocked() {
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  const common::MonoTime now = clock_.monotonic();
  startedAt_[key] = now;
  const auto added = addedAt_.find(key);
  if (added != addedAt_.end()) {
    if (observer_.queued) observer_.queued(now - added->second);
    addedAt_.erase(added);
  }
  if (observer_.depth) observer_.depth(queue_.size());
  return key;
}

std::chrono::nanoseconds WorkQueue::nextBackoffLocked(const std::string& key) {
  int& failures = failures_[key];
  const std::chrono::nanoseconds itemDelay =
      exponentialBackoff(limits_.baseDelay, limits_.maxDelay, failures);
  ++failures;
  if (limits_.qps <= 0) return itemDelay;
  // Token bucket as golang.org/x/time/rate's Reserve: the token is taken now, and a negative
  // balance is the time until it is earned.
  const common::MonoTime now = clock_.monotonic();
  const double elapsed = std::chrono::duration<double>(now - lastRefill_).count();
  lastRefill_ = now;
  tokens_ = std::min(static_cast<double>(limits_.burst), tokens_ + elapsed * limits_.qps);
  tokens_ -= 1;
  std::chrono::nanoseconds bucketDelay(0);
  if (tokens_ < 0) {
    bucketDelay = std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::ceil(-tokens_ / limits_.qps * 1e9)));
  }
  return std::max(itemDelay, bucketDelay);
}

}  // namespace hetbench::kube
