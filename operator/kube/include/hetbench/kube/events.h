#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/kube/client.h"

namespace hetbench::kube {

enum class EventType { kNormal, kWarning };

/// Records core/v1 Events about objects; never blocks the caller.
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  /// `object` is the involved object (kind, apiVersion, metadata.name/namespace/uid/rv).
  virtual void event(const nlohmann::json& object, EventType type, const std::string& reason,
                     const std::string& message) = 0;
};

/// Writes Events through a KubeClient from a background thread. Repeats of the same object,
/// type, reason and message within `aggregationWindow` update the existing Event's count and
/// lastTimestamp instead of creating new ones; a bounded queue drops (and counts) the excess.
class KubeEventRecorder final : public EventRecorder {
 public:
  KubeEventRecorder(KubeClient& client, const common::Clock& clock, common::RandomSource& random,
                    std::string component,
                    std::chrono::nanoseconds aggregationWindow = std::chrono::minutes(10),
                    std::size_t maxQueued = 1000);
  ~KubeEventRecorder() override;

  void event(const nlohmann::json& object, EventType type, const std::string& reason,
             const std::string& message) override;
  /// Waits until every queued event has been written (for tests and shutdown).
  void flush();
  std::uint64_t dropped() const;

 private:
  struct Pending {
    nlohmann::json object;
    EventType type;
    std::string reason;
    std::string message;
    common::WallTime at;
  };
  struct Seen {
    std::string ns;
    std::string name;
    int count = 0;
    common::WallTime last;
  };
  void run();
  void write(const Pending& p);

  KubeClient& client_;
  const common::Clock& clock_;
  common::RandomSource& random_;
  std::string component_;
  std::chrono::nanoseconds window_;
  std::size_t maxQueued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable drained_;
  std::deque<Pending> queue_;
  std::map<std::string, Seen> seen_;
  std::uint64_t dropped_ = 0;
  bool writing_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hetbench::kube
