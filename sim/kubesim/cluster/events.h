#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/api.h"

namespace hetbench::kubesim {

/// Event types, reasons and recording components as Kubernetes 1.32 writes them
/// (pkg/kubelet/events, kube-scheduler, pkg/controller/job and controller_utils).
namespace events {

inline constexpr std::string_view kNormal = "Normal";
inline constexpr std::string_view kWarning = "Warning";

inline constexpr std::string_view kScheduler = "default-scheduler";
inline constexpr std::string_view kKubelet = "kubelet";
inline constexpr std::string_view kJobController = "job-controller";

// default-scheduler, with the events.k8s.io actions it names.
inline constexpr std::string_view kScheduled = "Scheduled";
inline constexpr std::string_view kFailedScheduling = "FailedScheduling";
inline constexpr std::string_view kActionBinding = "Binding";
inline constexpr std::string_view kActionScheduling = "Scheduling";

// kubelet
inline constexpr std::string_view kPulling = "Pulling";
inline constexpr std::string_view kPulled = "Pulled";
inline constexpr std::string_view kCreated = "Created";
inline constexpr std::string_view kStarted = "Started";
inline constexpr std::string_view kKilling = "Killing";
inline constexpr std::string_view kBackOff = "BackOff";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kDeadlineExceeded = "DeadlineExceeded";

// job-controller
inline constexpr std::string_view kSuccessfulCreate = "SuccessfulCreate";
inline constexpr std::string_view kFailedCreate = "FailedCreate";
inline constexpr std::string_view kSuccessfulDelete = "SuccessfulDelete";
inline constexpr std::string_view kCompleted = "Completed";
inline constexpr std::string_view kSuspended = "Suspended";
inline constexpr std::string_view kResumed = "Resumed";

}  // namespace events

/// Who records an Event, and through which of client-go's two recorders.
struct EventSource {
  enum class Recorder {
    /// tools/record (kubelet, kube-controller-manager): `source`, `firstTimestamp`,
    /// `lastTimestamp` and `count`; reportingComponent/Instance copied from the source.
    kCoreV1,
    /// tools/events, the events.k8s.io/v1 recorder (kube-scheduler): `eventTime`, `action`,
    /// `reportingComponent`/`reportingInstance` and a `series` once it repeats; no source.
    kEventsV1,
  };
  Recorder recorder = Recorder::kCoreV1;
  std::string component;
  /// source.host (the kubelet's node) or reportingInstance; may be empty.
  std::string instance;
};

/// The involvedObject of an Event about `object` (kind, namespace, name, uid, apiVersion,
/// resourceVersion) as client-go's reference helpers make it; `fieldPath` names a part of it,
/// such as "spec.containers{main}".
nlohmann::json objectReference(const nlohmann::json& object, std::string_view fieldPath = {});

/// A map that keeps only the `capacity` most recently used keys, as the bounded LRU caches of
/// client-go's event correlator.
template <typename Value>
class LruMap {
 public:
  explicit LruMap(std::size_t capacity) : capacity_(capacity) {}

  /// The value of `key`, default-constructed (evicting the least recently used key when full)
  /// when absent; `created` tells which.
  Value& touch(const std::string& key, bool* created = nullptr) {
    auto it = index_.find(key);
    if (created != nullptr) *created = it == index_.end();
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    if (index_.size() >= capacity_ && !order_.empty()) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    order_.emplace_front(key, Value{});
    index_[key] = order_.begin();
    return order_.front().second;
  }
  std::size_t size() const { return index_.size(); }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, Value>> order_;
  std::unordered_map<std::string, typename std::list<std::pair<std::string, Value>>::iterator>
      index_;
};

struct EventRecorderOptions {
  /// Events remembered for aggregation, and sources-and-objects for the spam filter
  /// (client-go's maxLruCacheEntries).
  std::size_t cacheSize = 4096;
  /// client-go's spam filter: a source may write `burst` Events about one object at once, then
  /// one more per `refill` (defaultSpamBurst, defaultSpamQPS).
  double burst = 25;
  std::chrono::seconds refill{300};
};

/// Writes the Events of kubesim's emulated components, as client-go's recorders do: a repeat of
/// an Event (same source, object, field path, type, reason and message) updates the stored one
/// (count and lastTimestamp, or the series) instead of adding another; names are
/// `<object>.<hex nanoseconds>`; a spam filter bounds the writes about one object. Recording
/// never fails the caller: an Event that cannot be written is logged and dropped. Thread-safe.
class EventRecorder {
 public:
  explicit EventRecorder(Api& api, EventRecorderOptions options = {});

  /// Records an Event about `involvedObject` (from objectReference). `action` is the
  /// events.k8s.io action, for Recorder::kEventsV1 only.
  void record(const EventSource& source, const nlohmann::json& involvedObject,
              std::string_view type, std::string_view reason, const std::string& message,
              std::string_view action = {});

 private:
  struct Seen {
    std::string name;
    std::int64_t count = 0;
    common::WallTime first;
  };
  struct Bucket {
    double tokens = 0;
    common::WallTime refilled;
  };

  bool allow(const std::string& objectKey, common::WallTime now);
  std::string uniqueName(const std::string& objectName, common::WallTime now);
  void write(const EventSource& source, nlohmann::json event, const Seen& seen,
             common::WallTime now);

  Api& api_;
  const EventRecorderOptions options_;
  const ResourceType eventType_;
  std::mutex mu_;
  LruMap<Seen> seen_;
  LruMap<Bucket> buckets_;
  std::int64_t lastNameNanos_ = 0;
};

}  // namespace hetbench::kubesim
