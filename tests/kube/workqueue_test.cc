#include "hetbench/kube/workqueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace hetbench::kube {
namespace {

using namespace std::chrono_literals;

/// Takes every ready key, marking each done.
std::vector<std::string> drain(WorkQueue& queue) {
  std::vector<std::string> keys;
  while (auto key = queue.tryGet()) {
    keys.push_back(*key);
    queue.done(*key);
  }
  return keys;
}

// Verifies that a key added twice before it is taken is processed once, in FIFO order.
TEST(WorkQueue, DeduplicatesWaitingKeys) {
  common::FakeClock clock;
  WorkQueue queue(clock);
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");
  EXPECT_EQ(queue.length(), 2u);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/a", "ns/b"}));
  EXPECT_FALSE(queue.tryGet().has_value());
}

// Verifies that a key re-added while processed is not handed out again until done().
TEST(WorkQueue, ProcessingIsExclusive) {
  common::FakeClock clock;
  WorkQueue queue(clock);
  queue.add("ns/a");
  ASSERT_EQ(queue.tryGet(), "ns/a");
  queue.add("ns/a");
  queue.add("ns/a");
  EXPECT_EQ(queue.length(), 0u);
  EXPECT_FALSE(queue.tryGet().has_value());
  queue.done("ns/a");
  EXPECT_EQ(queue.length(), 1u);
  ASSERT_EQ(queue.tryGet(), "ns/a");
  queue.addAfter("ns/a", 1s);
  clock.advance(1s);
  EXPECT_EQ(queue.length(), 0u);
  queue.done("ns/a");
  EXPECT_EQ(queue.length(), 1u);
}

// Verifies the per-item backoff: base·2^failures, capped at maxDelay, reset by forget().
TEST(WorkQueue, ExponentialBackoffPerItem) {
  common::FakeClock clock;
  WorkQueue queue(clock, RateLimitOptions{.baseDelay = 5ms, .maxDelay = 40ms});
  const std::vector<std::chrono::nanoseconds> expected = {5ms, 10ms, 20ms, 40ms, 40ms};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    queue.addRateLimited("ns/a");
    EXPECT_EQ(queue.retries("ns/a"), static_cast<int>(i + 1));
    clock.advance(expected[i] - 1ns);
    EXPECT_FALSE(queue.tryGet().has_value());
    clock.advance(1ns);
    ASSERT_EQ(queue.tryGet(), "ns/a");
    queue.done("ns/a");
  }
  queue.forget("ns/a");
  EXPECT_EQ(queue.retries("ns/a"), 0);
  queue.addRateLimited("ns/a");
  clock.advance(5ms);
  EXPECT_EQ(queue.tryGet(), "ns/a");
}

// Verifies that backoff is counted per key: one key's failures do not delay another.
TEST(WorkQueue, BackoffIsPerKey) {
  common::FakeClock clock;
  WorkQueue queue(clock);
  for (int i = 0; i < 4; ++i) queue.addRateLimited("ns/a");
  queue.addRateLimited("ns/b");
  EXPECT_EQ(queue.retries("ns/a"), 4);
  EXPECT_EQ(queue.retries("ns/b"), 1);
  clock.advance(5ms);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/a", "ns/b"}));
}

// Verifies the overall token bucket: after `burst` rate-limited adds, keys wait 1/qps each.
TEST(WorkQueue, TokenBucketLimitsAfterBurst) {
  common::FakeClock clock;
  WorkQueue queue(clock,
                  RateLimitOptions{.baseDelay = 1ms, .maxDelay = 1ms, .qps = 10, .burst = 3});
  for (int i = 0; i < 5; ++i) queue.addRateLimited("ns/k" + std::to_string(i));
  clock.advance(1ms);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/k0", "ns/k1", "ns/k2"}));
  clock.advance(99ms - 1ns);
  EXPECT_TRUE(drain(queue).empty());
  clock.advance(1ns);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/k3"}));
  clock.advance(100ms);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/k4"}));
}

// Verifies that a delayed key becomes ready only when the clock passes its time, that a
// second delayed add can only bring it forward, and that a delay <= 0 adds at once.
TEST(WorkQueue, DelayedAdds) {
  common::FakeClock clock;
  WorkQueue queue(clock);
  queue.addAfter("ns/a", 2s);
  queue.addAfter("ns/a", 5s);
  queue.addAfter("ns/b", 1s);
  queue.addAfter("ns/now", 0s);
  queue.addAfter("ns/past", -1s);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/now", "ns/past"}));
  clock.advance(999ms);
  EXPECT_EQ(queue.length(), 0u);
  clock.advance(1ms);
  EXPECT_EQ(queue.length(), 1u);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/b"}));
  clock.advance(1s);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/a"}));
  clock.advance(10s);
  EXPECT_TRUE(drain(queue).empty());
}

// Verifies shutdown: adds are ignored, waiting keys drain, then get() returns nullopt.
TEST(WorkQueue, ShutDownDrains) {
  common::SystemClock clock;
  WorkQueue queue(clock);
  queue.add("ns/a");
  queue.addAfter("ns/later", 1h);
  queue.shutDown();
  EXPECT_TRUE(queue.shuttingDown());
  queue.add("ns/b");
  EXPECT_EQ(queue.get(), "ns/a");
  queue.done("ns/a");
  EXPECT_EQ(queue.get(), std::nullopt);
}

// Verifies that shutDown() wakes a get() blocked on an empty queue.
TEST(WorkQueue, ShutDownWakesBlockedGet) {
  common::SystemClock clock;
  WorkQueue queue(clock);
  std::optional<std::string> got = "unset";
  std::thread worker([&] { got = queue.get(); });
  queue.shutDown();
  worker.join();
  EXPECT_EQ(got, std::nullopt);
}

// Verifies the observer hooks: adds, depth, time queued, work duration and retries.
TEST(WorkQueue, ObserverCounts) {
  common::FakeClock clock;
  int added = 0;
  int retried = 0;
  std::size_t lastDepth = 99;
  std::vector<std::chrono::nanoseconds> queued;
  std::vector<std::chrono::nanoseconds> worked;
  WorkQueueObserver observer{
      .depth = [&](std::size_t d) { lastDepth = d; },
      .added = [&] { ++added; },
      .queued = [&](std::chrono::nanoseconds d) { queued.push_back(d); },
      .worked = [&](std::chrono::nanoseconds d) { worked.push_back(d); },
      .retried = [&] { ++retried; },
  };
  WorkQueue queue(clock, {}, observer);
  queue.add("ns/a");
  queue.add("ns/a");
  queue.add("ns/b");
  EXPECT_EQ(added, 2);
  EXPECT_EQ(lastDepth, 2u);
  clock.advance(3s);
  ASSERT_EQ(queue.tryGet(), "ns/a");
  EXPECT_EQ(lastDepth, 1u);
  clock.advance(2s);
  queue.done("ns/a");
  queue.addRateLimited("ns/a");
  EXPECT_EQ(retried, 1);
  EXPECT_EQ(queued, (std::vector<std::chrono::nanoseconds>{3s}));
  EXPECT_EQ(worked, (std::vector<std::chrono::nanoseconds>{2s}));
  clock.advance(5ms);
  drain(queue);
  EXPECT_EQ(added, 3);
  EXPECT_EQ(lastDepth, 0u);
  EXPECT_EQ(queued.size(), 3u);
}

// Verifies with real threads that no key is processed by two workers at once and none is lost.
TEST(WorkQueue, ConcurrentWorkersNeverShareAKey) {
  common::SystemClock clock;
  WorkQueue queue(clock,
                  RateLimitOptions{.baseDelay = 100us, .maxDelay = 1ms, .qps = 1e6, .burst = 1000});
  constexpr int kKeys = 20;
  constexpr int kRounds = 200;
  std::mutex mu;
  std::set<std::string> active;
  std::set<std::string> seen;
  std::atomic<bool> overlap{false};
  std::atomic<bool> lastRound{false};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = queue.get()) {
        {
          std::lock_guard lock(mu);
          if (!active.insert(*key).second) overlap = true;
          // Taken after the last round of adds began, so it covers that add.
          if (lastRound) seen.insert(*key);
        }
        std::this_thread::yield();
        {
          std::lock_guard lock(mu);
          active.erase(*key);
        }
        if (processed.fetch_add(1) % 3 == 0) queue.addRateLimited(*key);
        queue.done(*key);
      }
    });
  }
  for (int r = 0; r < kRounds; ++r) {
    for (int k = 0; k < kKeys; ++k) queue.add("ns/k" + std::to_string(k));
  }
  lastRound = true;
  for (int k = 0; k < kKeys; ++k) queue.add("ns/k" + std::to_string(k));
  // A lost add would leave a key unseen past the deadline.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (seen.size() == kKeys && active.empty() && queue.length() == 0) break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(1ms);
  }
  queue.shutDown();
  for (auto& worker : workers) worker.join();
  EXPECT_FALSE(overlap);
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kKeys));
  EXPECT_GE(processed.load(), kKeys);
}

}  // namespace
}  // namespace hetbench::kube
