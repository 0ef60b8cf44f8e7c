#pragma once

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "cluster/controller.h"

namespace hetbench::kubesim {

/// Serves the resources of each CustomResourceDefinition (every served version, with its
/// schema, printer columns and subresources), sets the NamesAccepted and Established
/// conditions, and on deletion removes every custom resource before the CRD itself.
class CrdController final : public Controller {
 public:
  explicit CrdController(Api& api);
  ~CrdController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
};

/// Namespace lifecycle: a "default" ServiceAccount in each namespace, and on deletion every
/// namespaced object removed before the namespace goes.
class NamespaceController final : public Controller {
 public:
  explicit NamespaceController(Api& api);
  ~NamespaceController() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
};

/// kube-controller-manager's PodGC: a pod that is terminating but was never scheduled, or that
/// is bound to a node that no longer exists, is marked Failed (condition DisruptionTarget,
/// reason DeletionByPodGC) and deleted; finalizers still hold it until their owners remove them.
class PodGarbageCollector final : public Controller {
 public:
  explicit PodGarbageCollector(Api& api);
  ~PodGarbageCollector() override { stop(); }

 private:
  std::optional<std::chrono::milliseconds> reconcile(const ObjectKey& key) override;
};

/// The garbage collector of kube-controller-manager: dependents whose owners are all gone are
/// deleted; an owner deleted with Foreground waits for its blocking dependents, with Orphan
/// its dependents lose their reference to it first.
class GarbageCollector {
 public:
  explicit GarbageCollector(Api& api);
  ~GarbageCollector();
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  void start();
  void stop();

 private:
  void run();
  void observe(const WatchEvent& event);
  void collect(const ObjectKey& dependent);
  void finishOwner(const std::string& uid);

  Api& api_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::map<std::string, ObjectKey> byUid_;                   // every live object
  std::map<std::string, std::set<std::string>> dependents_;  // owner uid -> dependent uids
  std::map<std::string, nlohmann::json> objects_;            // uid -> latest object with owners
  bool syncing_ = false;  // listing the initial state: observe now, act afterwards
};

}  // namespace hetbench::kubesim
