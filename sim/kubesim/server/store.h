#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

enum class EventType { kAdded, kModified, kDeleted };
std::string_view eventTypeName(EventType type);

/// One change to one object, as a watch delivers it.
struct WatchEvent {
  EventType type;
  std::string storageKey;  // ResourceType::storageKey()
  std::string namespace_;
  nlohmann::json object;      // the object after the change (before it, for deletions)
  nlohmann::json prevObject;  // the object before the change (null for additions)
  std::uint64_t resourceVersion = 0;
};

/// The cluster's objects with one monotonically increasing resourceVersion, like etcd behind
/// the watch cache: every write gets the next version, and a bounded history of changes serves
/// watches that start from a past version. Objects are stored exactly as written (metadata
/// included); the Store does not interpret them beyond namespace, name and resourceVersion.
class Store {
 public:
  explicit Store(std::size_t historyLimit = 10000);

  std::uint64_t currentVersion() const;
  /// The oldest version from which history is still complete (watches and continue tokens
  /// from before it are Gone).
  std::uint64_t oldestVersion() const;

  std::optional<nlohmann::json> get(const std::string& key, const std::string& ns,
                                    const std::string& name) const;
  /// Objects in key order ("namespace/name"); an empty `ns` lists every namespace. The second
  /// member is the resourceVersion the list is consistent with.
  std::pair<std::vector<nlohmann::json>, std::uint64_t> list(const std::string& key,
                                                             const std::string& ns) const;

  /// Writes under the store's lock: `mutate` gets the current object (nullopt when absent) and
  /// returns the new one, nullopt to delete it, or an error to abort. The new object's
  /// metadata.resourceVersion is set here. Returns the stored object (or the deleted one).
  using Mutation = std::function<common::Result<std::optional<nlohmann::json>>(
      const std::optional<nlohmann::json>& current)>;
  common::Result<nlohmann::json> mutate(const std::string& key, const std::string& ns,
                                        const std::string& name, const Mutation& mutation);

  /// What one wait for events brought: the events, and the version up to which the history
  /// was read (a watcher can resume, or send a bookmark, from there).
  struct Batch {
    std::vector<WatchEvent> events;
    std::uint64_t upTo = 0;
  };

  /// Events with resourceVersion > `after` for `key` (every resource when empty) and `ns`
  /// (every namespace when empty), waiting up to
  /// `wait` for the first. Gone when `after` is older than the history.
  common::Result<Batch> eventsAfter(const std::string& key, const std::string& ns,
                                    std::uint64_t after, std::chrono::milliseconds wait) const;

  /// Forgets the event history (fault injection: later watches from older versions get Gone).
  void expireHistory();
  /// Wakes every waiting watcher (used on shutdown and for fault injection).
  void wakeAll();
  /// A generation counter of wakeAll() calls, so watchers can tell a forced wake-up.
  std::uint64_t wakeGeneration() const;

 private:
  struct Bucket {
    std::map<std::string, nlohmann::json> objects;  // "namespace/name"
  };

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::map<std::string, Bucket> buckets_;
  std::deque<WatchEvent> history_;
  std::size_t historyLimit_;
  std::uint64_t version_ = 1;
  std::uint64_t oldestKept_ = 1;  // events after this version are all in history_
  std::uint64_t wakeGeneration_ = 0;
};

}  // namespace hetbench::kubesim
