#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/kube/client.h"

namespace hetbench::kube {

struct LeaderElectionConfig {
  std::string leaseNamespace;
  std::string leaseName;
  std::string identity;  // unique per replica, e.g. pod name + random suffix
  std::chrono::nanoseconds leaseDuration{std::chrono::seconds(15)};
  std::chrono::nanoseconds renewDeadline{std::chrono::seconds(10)};
  std::chrono::nanoseconds retryPeriod{std::chrono::seconds(2)};
  bool releaseOnCancel = true;
};

struct LeaderCallbacks {
  std::function<void()> onStartedLeading;
  std::function<void()> onStoppedLeading;
  std::function<void(const std::string& identity)> onNewLeader;
};

/// Leader election on a coordination.k8s.io/v1 Lease, as client-go's: acquire when the lease
/// is free or expired (judged by how long this replica has seen it unchanged, never by comparing
/// clocks), renew with optimistic concurrency, give up when a renewal has not succeeded within
/// renewDeadline, release on stop. isLeader() is false as soon as the lease could have expired.
class LeaderElector {
 public:
  LeaderElector(KubeClient& client, const common::Clock& clock, LeaderElectionConfig config,
                LeaderCallbacks callbacks);

  /// Runs until stop(): calls step() every retryPeriod (a real-time wait), so it suits a
  /// SystemClock; tests on a FakeClock call step() themselves instead.
  void run();
  /// One round at the clock's current time: acquire or renew the lease, start leading on
  /// success, stop leading once no renewal has succeeded for renewDeadline or another holder
  /// is seen. Callbacks run on the calling thread and should return promptly (start threads
  /// rather than run the controller inline). Does nothing after stop().
  void step();
  /// Ends run() and, when leading and releaseOnCancel, releases the lease so that another
  /// replica can take it at once. Waits for a step() in progress.
  void stop();
  bool isLeader() const;

 private:
  bool tryAcquireOrRenew();
  bool release();
  /// Notes the lease's record and restarts the expiry count when it changed.
  void observe(const nlohmann::json& lease);

  KubeClient& client_;
  const common::Clock& clock_;
  LeaderElectionConfig config_;
  LeaderCallbacks callbacks_;
  // Serializes step() and the release in stop(); held across API calls and callbacks, and
  // recursive so that a callback may call stop().
  std::recursive_mutex stepMu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool leading_ = false;
  common::MonoTime renewedAt_{};
  std::string observedRecord_;
  common::MonoTime observedAt_{};
  std::string observedHolder_;
};

}  // namespace hetbench::kube
