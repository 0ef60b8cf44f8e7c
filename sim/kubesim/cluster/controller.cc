#include "cluster/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace hetbench::kubesim {

Controller::Controller(Api& api, std::string name) : api_(api), name_(std::move(name)) {}

Controller::~Controller() { stop(); }

void Controller::watch(const std::string& storageKey, Mapper mapper) {
  watches_.push_back({storageKey, std::move(mapper)});
}

void Controller::start() {
  for (const Watch& w : watches_) {
    threads_.emplace_back([this, w] { watchLoop(w.storageKey, w.mapper); });
  }
  threads_.emplace_back([this] { workLoop(); });
}

void Controller::stop() {
  {
    // Under the lock that workLoop checks stopping_ under, so that the wake-up cannot fall
    // between its check and its wait.
    std::lock_guard lock(mu_);
    if (stopping_.exchange(true)) return;
  }
  wake_.notify_all();
  api_.store().wakeAll();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Controller::enqueue(const ObjectKey& key) {
  {
    std::lock_guard lock(mu_);
    ready_.insert(key);
  }
  wake_.notify_one();
}

void Controller::watchLoop(std::string storageKey, Mapper mapper) {
  auto keysOf = [&](const WatchEvent& e) {
    if (mapper) return mapper(e);
    return std::vector<ObjectKey>{
        {storageKey, e.namespace_, e.object["metadata"].value("name", "")}};
  };
  while (!stopping_) {
    // List, then follow from the list's version; a lost history means list again.
    auto [objects, after] = api_.store().list(storageKey, "");
    for (const nlohmann::json& object : objects) {
      WatchEvent e{EventType::kAdded, storageKey, object["metadata"].value("namespace", ""), object,
                   nullptr,           after};
      for (const ObjectKey& k : keysOf(e)) enqueue(k);
    }
    while (!stopping_) {
      common::Result<Store::Batch> batch =
          api_.store().eventsAfter(storageKey, "", after, std::chrono::milliseconds(200));
      if (!batch.isOk()) break;
      for (const WatchEvent& e : batch->events) {
        for (const ObjectKey& k : keysOf(e)) enqueue(k);
      }
      after = std::max(after, batch->upTo);
    }
  }
}

void Controller::workLoop() {
  while (true) {
    ObjectKey key;
    {
      std::unique_lock lock(mu_);
      while (true) {
        if (stopping_) return;
        const auto now = std::chrono::steady_clock::now();
        while (!delayed_.empty() && delayed_.begin()->first <= now) {
          ready_.insert(delayed_.begin()->second);
          delayed_.erase(delayed_.begin());
        }
        if (!ready_.empty()) break;
        if (delayed_.empty()) {
          wake_.wait(lock);
        } else {
          wake_.wait_until(lock, delayed_.begin()->first);
        }
      }
      key = *ready_.begin();
      ready_.erase(ready_.begin());
    }
    std::optional<std::chrono::milliseconds> again;
    try {
      again = reconcile(key);
    } catch (const std::exception& e) {
      // A controller bug must not take the emulator down; log it and retry later.
      spdlog::error("kubesim controller failed controller={} key={}/{} error={}", name_, key.ns,
                    key.name, e.what());
      again = std::chrono::seconds(1);
    }
    if (again) {
      std::lock_guard lock(mu_);
      delayed_.emplace(std::chrono::steady_clock::now() + *again, key);
    }
  }
}

bool updateObject(Api& api, const ResourceType& type, const std::string& ns,
                  const std::string& name, const std::function<bool(nlohmann::json&)>& change) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    ApiResult<nlohmann::json> current = api.get(type, ns, name);
    if (!current.isOk()) return false;
    if (!change(*current)) return true;
    ApiResult<WriteResult> written = api.update(type, ns, name, *current, "", WriteOptions{});
    if (written.isOk()) return true;
    if (written.error().code == 404) return false;
    if (written.error().code != 409) {
      spdlog::warn("kubesim update failed resource={} name={} error={}", type.resource, name,
                   written.error().message);
      return false;
    }
  }
  return false;
}

bool removeFinalizer(nlohmann::json& object, const std::string& finalizer) {
  nlohmann::json& list = object["metadata"]["finalizers"];
  if (!list.is_array()) return false;
  auto it = std::find(list.begin(), list.end(), finalizer);
  if (it == list.end()) return false;
  list.erase(it);
  if (list.empty()) object["metadata"].erase("finalizers");
  return true;
}

bool hasFinalizer(const nlohmann::json& object, const std::string& finalizer) {
  const nlohmann::json& list = object["metadata"].value("finalizers", nlohmann::json::array());
  return std::find(list.begin(), list.end(), finalizer) != list.end();
}

ResourceType builtinType(const Api& api, const std::string& group, const std::string& resource) {
  std::optional<ResourceType> type = api.typeOf(group, resource);
  if (!type) {
    spdlog::critical("kubesim: built-in resource {}/{} is not registered", group, resource);
    std::abort();
  }
  return *type;
}

std::vector<ObjectKey> controllersOf(const WatchEvent& event, const std::string& kind,
                                     const std::string& storageKey) {
  std::vector<ObjectKey> keys;
  for (const nlohmann::json& ref :
       event.object["metadata"].value("ownerReferences", nlohmann::json::array())) {
    if (ref.value("kind", "") == kind && ref.value("controller", false)) {
      keys.push_back({storageKey, event.namespace_, ref.value("name", "")});
    }
  }
  return keys;
}

nlohmann::json controllerReference(const std::string& apiVersion, const std::string& kind,
                                   const std::string& name, const std::string& uid) {
  return {{"apiVersion", apiVersion},
          {"kind", kind},
          {"name", name},
          {"uid", uid},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

}  // namespace hetbench::kubesim
