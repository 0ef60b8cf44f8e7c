#include "hetbench/kube/informer.h"

#include <spdlog/spdlog.h>

namespace hetbench::kube {
namespace {

using nlohmann::json;

std::string rvOf(const json& object) {
  return object.value("metadata", json::object()).value("resourceVersion", "");
}

}  // namespace

std::string objectKey(const json& object) {
  const json& meta = object.value("metadata", json::object());
  return meta.value("namespace", "") + "/" + meta.value("name", "");
}

Informer::Informer(KubeClient& client, GroupVersionResource gvr, InformerOptions options,
                   const common::Clock& clock, common::RandomSource& random)
    : client_(client),
      gvr_(std::move(gvr)),
      options_(std::move(options)),
      clock_(clock),
      random_(random) {}

Informer::~Informer() { stop(); }

void Informer::addHandlers(InformerHandlers handlers) { handlers_.push_back(std::move(handlers)); }

void Informer::addIndex(const std::string& name, IndexFunc index) {
  indexFuncs_[name] = std::move(index);
}

void Informer::start() {
  thread_ = std::thread([this] { run(); });
  if (options_.resync.count() > 0) resyncThread_ = std::thread([this] { resyncLoop(); });
}

void Informer::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_.exchange(true)) return;
    if (current_) current_->cancel();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (resyncThread_.joinable()) resyncThread_.join();
}

bool Informer::hasSynced() const {
  std::lock_guard lock(mu_);
  return synced_;
}

bool Informer::waitForSync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return synced_ || stopping_.load(); }) && synced_;
}

std::optional<json> Informer::get(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = cache_.find(ns + "/" + name);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

std::vector<json> Informer::list() const {
  std::lock_guard lock(mu_);
  std::vector<json> out;
  out.reserve(cache_.size());
  for (const auto& [key, object] : cache_) out.push_back(object);
  return out;
}

std::vector<json> Informer::byIndex(const std::string& index, const std::string& value) const {
  std::lock_guard lock(mu_);
  std::vector<json> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto keys = idx->second.find(value);
  if (keys == idx->second.end()) return out;
  for (const std::string& key : keys->second) {
    auto it = cache_.find(key);
    if (it != cache_.end()) out.push_back(it->second);
  }
  return out;
}

std::string Informer::lastResourceVersion() const {
  std::lock_guard lock(mu_);
  return resourceVersion_;
}

std::uint64_t Informer::watchRestarts() const {
  std::lock_guard lock(mu_);
  return restarts_;
}

void Informer::indexLocked(const std::string& key, const json* old, const json* now) {
  for (const auto& [name, func] : indexFuncs_) {
    auto& index = indexes_[name];
    if (old != nullptr) {
      for (const std::string& v : func(*old)) {
        auto it = index.find(v);
        if (it == index.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) index.erase(it);
      }
    }
    if (now != nullptr) {
      for (const std::string& v : func(*now)) index[v].insert(key);
    }
  }
}

bool Informer::sleepFor(std::chrono::nanoseconds d) {
  std::unique_lock lock(mu_);
  return !cv_.wait_for(lock, d, [this] { return stopping_.load(); });
}

void Informer::run() {
  std::chrono::nanoseconds backoff = options_.backoffInitial;
  auto wait = [&] {
    // Jitter spreads the reconnects of many replicas: up to twice the delay.
    const double jitter = static_cast<double>(random_.next() % 1000) / 1000.0;
    const auto delay = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::min(backoff, options_.backoffMax) * (1.0 + jitter));
    backoff = std::min(backoff * 2, options_.backoffMax);
    return sleepFor(delay);
  };
  while (!stopping_) {
    common::Status listed = listAndReplace();
    if (!listed.isOk()) {
      spdlog::warn("informer list failed resource={} error={}", gvr_.resource, listed.toString());
      if (!wait()) return;
      continue;
    }
    backoff = options_.backoffInitial;
    while (!stopping_) {
      common::Status watched = watchOnce();
      {
        std::lock_guard lock(mu_);
        ++restarts_;
      }
      if (stopping_) return;
      if (watched.isGone()) break;  // the history moved on: list again
      if (watched.isOk()) {
        backoff = options_.backoffInitial;
        continue;
      }
      spdlog::warn("informer watch failed resource={} error={}", gvr_.resource, watched.toString());
      if (!wait()) return;
    }
  }
}

common::Status Informer::listAndReplace() {
  std::map<std::string, json> fresh;
  std::string rv;
  ListOptions options;
  options.labelSelector = options_.labelSelector;
  options.fieldSelector = options_.fieldSelector;
  options.limit = options_.listPageSize;
  while (!stopping_) {
    common::Result<ListResult> page = client_.list(gvr_, options_.ns, options);
    if (!page.isOk()) {
      if (page.status().isGone() && !options.continueToken.empty()) {
        // The continue token expired: start over with one unpaged list.
        fresh.clear();
        options.continueToken.clear();
        options.limit = 0;
        continue;
      }
      return page.status();
    }
    for (json& item : page->items) {
      std::string key = objectKey(item);  // before the move: operator= takes its argument first
      fresh[std::move(key)] = std::move(item);
    }
    rv = page->resourceVersion;
    if (page->continueToken.empty()) break;
    options.continueToken = page->continueToken;
  }
  if (stopping_) return common::okStatus();

  std::vector<std::pair<std::optional<json>, std::optional<json>>> changes;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, object] : fresh) {
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        changes.emplace_back(std::nullopt, object);
      } else if (rvOf(it->second) != rvOf(object)) {
        changes.emplace_back(it->second, object);
      }
    }
    for (const auto& [key, object] : cache_) {
      if (!fresh.count(key)) changes.emplace_back(object, std::nullopt);
    }
    indexes_.clear();
    for (const auto& [key, object] : fresh) indexLocked(key, nullptr, &object);
    cache_ = std::move(fresh);
    resourceVersion_ = rv;
  }
  {
    std::lock_guard dispatch(dispatchMu_);
    for (const auto& [old, now] : changes) {
      for (const InformerHandlers& h : handlers_) {
        if (!old && h.onAdd) h.onAdd(*now);
        if (old && now && h.onUpdate) h.onUpdate(*old, *now);
        if (old && !now && h.onDelete) h.onDelete(*old);
      }
    }
  }
  {
    std::lock_guard lock(mu_);
    synced_ = true;
  }
  cv_.notify_all();
  return common::okStatus();
}

common::Status Informer::watchOnce() {
  WatchOptions options;
  options.labelSelector = options_.labelSelector;
  options.fieldSelector = options_.fieldSelector;
  options.allowBookmarks = true;
  // As client-go: a server-side timeout of 5 to 10 minutes, so watches of replicas spread out.
  options.timeout = std::chrono::seconds(300 + static_cast<long>(random_.next() % 300));
  {
    std::lock_guard lock(mu_);
    options.resourceVersion = resourceVersion_;
  }
  common::Result<std::unique_ptr<WatchStream>> stream = client_.watch(gvr_, options_.ns, options);
  if (!stream.isOk()) return stream.status();
  {
    std::lock_guard lock(mu_);
    if (stopping_) return common::okStatus();
    current_ = std::move(*stream);
  }
  common::Status result;
  while (true) {
    common::Result<std::optional<WatchEvent>> event = current_->next();
    if (!event.isOk()) {
      result = event.status();
      break;
    }
    if (!event->has_value()) break;
    WatchEvent& e = **event;
    if (e.type == WatchEvent::Type::kBookmark) {
      std::lock_guard lock(mu_);
      const std::string rv = rvOf(e.object);
      if (!rv.empty()) resourceVersion_ = rv;
      continue;
    }
    apply(e.type, e.object);
  }
  std::lock_guard lock(mu_);
  current_.reset();
  return result;
}

void Informer::apply(WatchEvent::Type type, const json& object) {
  const std::string key = objectKey(object);
  std::optional<json> old;
  bool deliver = true;
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) old = it->second;
    if (type == WatchEvent::Type::kDeleted) {
      deliver = old.has_value();
      if (deliver) {
        indexLocked(key, &*old, nullptr);
        cache_.erase(it);
      }
    } else if (old && rvOf(*old) == rvOf(object)) {
      deliver = false;  // already seen (a replay after a reconnect)
    } else {
      indexLocked(key, old ? &*old : nullptr, &object);
      cache_[key] = object;
    }
    const std::string rv = rvOf(object);
    if (!rv.empty()) resourceVersion_ = rv;
  }
  if (!deliver) return;
  std::lock_guard dispatch(dispatchMu_);
  for (const InformerHandlers& h : handlers_) {
    if (type == WatchEvent::Type::kDeleted) {
      if (h.onDelete) h.onDelete(object);
    } else if (old) {
      if (h.onUpdate) h.onUpdate(*old, object);
    } else if (h.onAdd) {
      h.onAdd(object);
    }
  }
}

void Informer::resyncLoop() {
  while (sleepFor(options_.resync)) {
    if (!hasSynced()) continue;
    std::vector<json> objects = list();
    std::lock_guard dispatch(dispatchMu_);
    for (const json& object : objects) {
      for (const InformerHandlers& h : handlers_) {
        if (h.onUpdate) h.onUpdate(object, object);
      }
    }
  }
}

}  // namespace hetbench::kube
