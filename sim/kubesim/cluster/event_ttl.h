#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "server/api.h"

namespace hetbench::kubesim {

/// The API server's --event-ttl: every Event (kubesim's own and those clients write) is deleted
/// `ttl` after it was last recorded, so that a long-running cluster does not keep them all.
/// Time is the cluster's clock; an Event updated in the meantime is kept for its new time.
class EventTtl {
 public:
  EventTtl(Api& api, std::chrono::seconds ttl,
           std::chrono::milliseconds sweepInterval = std::chrono::seconds(1));
  ~EventTtl();
  EventTtl(const EventTtl&) = delete;
  EventTtl& operator=(const EventTtl&) = delete;

  void start();
  void stop();

 private:
  struct Tracked {
    common::WallTime expires;
    std::string resourceVersion;
  };

  void run();
  void observe(const nlohmann::json& event);
  void expireDue();

  Api& api_;
  const std::chrono::seconds ttl_;
  const std::chrono::milliseconds sweepInterval_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::map<std::pair<std::string, std::string>, Tracked> tracked_;  // (namespace, name)
};

/// When an Event was last recorded: the latest of its creationTimestamp, lastTimestamp,
/// eventTime and series.lastObservedTime (the API server counts from its last write, which
/// these stamp); nullopt when it has none of them.
std::optional<common::WallTime> lastRecorded(const nlohmann::json& event);

}  // namespace hetbench::kubesim
