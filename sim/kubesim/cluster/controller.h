#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/api.h"

namespace hetbench::kubesim {

/// Names one object: a storage key ("/pods", "batch/jobs"), namespace and name.
struct ObjectKey {
  std::string storageKey;
  std::string ns;
  std::string name;
  auto operator<=>(const ObjectKey&) const = default;
};

/// A level-based controller inside kubesim, as kube-controller-manager runs them: watches
/// resources in the store, maps each change to the keys to reconcile, and reconciles each key
/// on one worker thread, de-duplicated, with delayed requeues. It starts from the current
/// state (every existing object is reconciled once) and never misses a change.
class Controller {
 public:
  Controller(Api& api, std::string name);
  virtual ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void start();
  /// Stops the watch and worker threads; idempotent. Subclasses call it in their destructor.
  void stop();

 protected:
  using Mapper = std::function<std::vector<ObjectKey>(const WatchEvent& event)>;

  /// Watches a resource; call before start(). The default mapper reconciles the changed object.
  void watch(const std::string& storageKey, Mapper mapper = nullptr);
  /// Reconciles one object; returns a delay to be called again after, or nullopt when done.
  virtual std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) = 0;
  /// Queues a key now.
  void enqueue(const ObjectKey& key);
  bool stopping() const { return stopping_; }

  Api& api_;
  const std::string name_;

 private:
  void watchLoop(std::string storageKey, Mapper mapper);
  void workLoop();

  struct Watch {
    std::string storageKey;
    Mapper mapper;
  };
  std::vector<Watch> watches_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  std::set<ObjectKey> ready_;
  std::multimap<std::chrono::steady_clock::time_point, ObjectKey> delayed_;
};

/// Reads, changes and writes an object through the API (admission, finalizer rules and all),
/// retrying on conflicts. `change` returns false when there is nothing to write. False when the
/// object is gone or the write fails for another reason (logged).
bool updateObject(Api& api, const ResourceType& type, const std::string& ns,
                  const std::string& name, const std::function<bool(nlohmann::json&)>& change);

/// The keys (in `storageKey`) of the objects of `kind` that control the changed object, from
/// its controller owner references: a Watch mapper for a controller's dependents.
std::vector<ObjectKey> controllersOf(const WatchEvent& event, const std::string& kind,
                                     const std::string& storageKey);

/// The owner reference a controller puts on what it creates (metav1.NewControllerRef):
/// controller and blockOwnerDeletion true.
nlohmann::json controllerReference(const std::string& apiVersion, const std::string& kind,
                                   const std::string& name, const std::string& uid);

/// Removes a finalizer from an object's metadata; false when it was not there.
bool removeFinalizer(nlohmann::json& object, const std::string& finalizer);
bool hasFinalizer(const nlohmann::json& object, const std::string& finalizer);

/// The ResourceType of a built-in resource that must exist (e.g. "", "pods").
ResourceType builtinType(const Api& api, const std::string& group, const std::string& resource);

}  // namespace hetbench::kubesim
