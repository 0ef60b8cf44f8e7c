#include "server/store.h"

#include <algorithm>

namespace hetbench::kubesim {

std::string_view eventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

Store::Store(std::size_t historyLimit) : historyLimit_(std::max<std::size_t>(historyLimit, 1)) {}

std::uint64_t Store::currentVersion() const {
  std::lock_guard lock(mu_);
  return version_;
}

std::uint64_t Store::oldestVersion() const {
  std::lock_guard lock(mu_);
  return oldestKept_;
}

std::optional<nlohmann::json> Store::get(const std::string& key, const std::string& ns,
                                         const std::string& name) const {
  std::lock_guard lock(mu_);
  auto bucket = buckets_.find(key);
  if (bucket == buckets_.end()) return std::nullopt;
  auto it = bucket->second.objects.find(ns + "/" + name);
  if (it == bucket->second.objects.end()) return std::nullopt;
  return it->second;
}

std::pair<std::vector<nlohmann::json>, std::uint64_t> Store::list(const std::string& key,
                                                                  const std::string& ns) const {
  std::lock_guard lock(mu_);
  std::vector<nlohmann::json> out;
  auto bucket = buckets_.find(key);
  if (bucket != buckets_.end()) {
    const std::string prefix = ns.empty() ? "" : ns + "/";
    for (auto it = bucket->second.objects.lower_bound(prefix); it != bucket->second.objects.end();
         ++it) {
      if (!ns.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
      out.push_back(it->second);
    }
  }
  return {std::move(out), version_};
}

common::Result<nlohmann::json> Store::mutate(const std::string& key, const std::string& ns,
                                             const std::string& name, const Mutation& mutation) {
  std::unique_lock lock(mu_);
  Bucket& bucket = buckets_[key];
  const std::string id = ns + "/" + name;
  auto it = bucket.objects.find(id);
  std::optional<nlohmann::json> current;
  if (it != bucket.objects.end()) current = it->second;

  common::Result<std::optional<nlohmann::json>> next = mutation(current);
  if (!next.isOk()) return next.status();

  // A write that changes nothing keeps the version and notifies no watcher, as in Kubernetes.
  if (current && next->has_value()) {
    nlohmann::json candidate = next->value();
    candidate["metadata"]["resourceVersion"] = (*current)["metadata"]["resourceVersion"];
    if (candidate == *current) return *current;
  }
  const std::uint64_t rv = ++version_;
  WatchEvent event;
  event.storageKey = key;
  event.namespace_ = ns;
  event.resourceVersion = rv;
  nlohmann::json result;
  if (next->has_value()) {
    nlohmann::json& object = next->value();
    object["metadata"]["resourceVersion"] = std::to_string(rv);
    event.type = current ? EventType::kModified : EventType::kAdded;
    event.object = object;
    if (current) event.prevObject = *current;
    bucket.objects[id] = object;
    result = std::move(object);
  } else {
    if (!current) return common::notFoundError(id);
    // A deletion is observed with the version at which it happened.
    current.value()["metadata"]["resourceVersion"] = std::to_string(rv);
    event.type = EventType::kDeleted;
    event.prevObject = *current;
    event.object = *current;
    bucket.objects.erase(id);
    result = std::move(*current);
  }
  history_.push_back(std::move(event));
  while (history_.size() > historyLimit_) {
    oldestKept_ = history_.front().resourceVersion;
    history_.pop_front();
  }
  lock.unlock();
  changed_.notify_all();
  return result;
}

common::Result<Store::Batch> Store::eventsAfter(const std::string& key, const std::string& ns,
                                                std::uint64_t after,
                                                std::chrono::milliseconds wait) const {
  std::unique_lock lock(mu_);
  auto gone = [&] {
    return common::goneError("too old resource version: " + std::to_string(after) + " (" +
                             std::to_string(oldestKept_) + ")");
  };
  if (after < oldestKept_) return gone();
  const std::uint64_t wakeAtStart = wakeGeneration_;
  Batch batch;
  std::uint64_t scanned = after;
  // Scans only the part of the history not yet seen, so a long wait costs O(new events).
  auto collect = [&] {
    auto it = std::upper_bound(
        history_.begin(), history_.end(), scanned,
        [](std::uint64_t v, const WatchEvent& e) { return v < e.resourceVersion; });
    for (; it != history_.end(); ++it) {
      if ((key.empty() || it->storageKey == key) && (ns.empty() || it->namespace_ == ns)) {
        batch.events.push_back(*it);
      }
    }
    scanned = version_;
    return !batch.events.empty();
  };
  if (!collect()) {
    changed_.wait_for(lock, wait, [&] {
      return after < oldestKept_ || wakeGeneration_ != wakeAtStart || collect();
    });
    if (after < oldestKept_ && batch.events.empty()) return gone();
  }
  batch.upTo = scanned;
  return batch;
}

void Store::expireHistory() {
  {
    std::lock_guard lock(mu_);
    history_.clear();
    oldestKept_ = version_;
  }
  changed_.notify_all();
}

void Store::wakeAll() {
  {
    std::lock_guard lock(mu_);
    ++wakeGeneration_;
  }
  changed_.notify_all();
}

std::uint64_t Store::wakeGeneration() const {
  std::lock_guard lock(mu_);
  return wakeGeneration_;
}

}  // namespace hetbench::kubesim
