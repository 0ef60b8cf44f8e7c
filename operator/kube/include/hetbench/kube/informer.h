#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "hetbench/kube/client.h"

namespace hetbench::kube {

struct InformerOptions {
  std::string ns;  // empty: all namespaces
  std::string labelSelector;
  std::string fieldSelector;
  std::chrono::nanoseconds resync{0};  // 0: no periodic resync
  std::chrono::nanoseconds backoffInitial{std::chrono::milliseconds(800)};
  std::chrono::nanoseconds backoffMax{std::chrono::seconds(30)};
  std::int64_t listPageSize = 500;
};

/// Handlers run on the informer's thread, in the order of the server's changes, each change
/// exactly once (a relist turns differences into adds, updates and deletes).
struct InformerHandlers {
  std::function<void(const nlohmann::json& object)> onAdd;
  std::function<void(const nlohmann::json& old, const nlohmann::json& now)> onUpdate;
  std::function<void(const nlohmann::json& last)> onDelete;
};

/// Lists then watches one resource with resourceVersion and bookmarks, keeping a thread-safe
/// cache: relists on 410 Gone, reconnects with jittered exponential backoff after errors and
/// closed streams, resyncs periodically (onUpdate with identical objects).
class Informer {
 public:
  /// Returns the index values of an object (for example its namespace, or a label's value).
  using IndexFunc = std::function<std::vector<std::string>(const nlohmann::json&)>;

  Informer(KubeClient& client, GroupVersionResource gvr, InformerOptions options,
           const common::Clock& clock, common::RandomSource& random);
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  /// Before start().
  void addHandlers(InformerHandlers handlers);
  void addIndex(const std::string& name, IndexFunc index);

  void start();
  void stop();
  bool hasSynced() const;
  /// Waits (real time) until the first list has been delivered or `timeout` passes.
  bool waitForSync(std::chrono::milliseconds timeout) const;

  std::optional<nlohmann::json> get(const std::string& ns, const std::string& name) const;
  std::vector<nlohmann::json> list() const;
  std::vector<nlohmann::json> byIndex(const std::string& index, const std::string& value) const;
  std::string lastResourceVersion() const;
  /// How many times the watch was re-established (for the watch-restart metric).
  std::uint64_t watchRestarts() const;
  /// The resource watched ("pods", "benchmarkruns", ...).
  const std::string& resource() const { return gvr_.resource; }

 private:
  void run();
  void resyncLoop();
  common::Status listAndReplace();
  common::Status watchOnce();
  void apply(WatchEvent::Type type, const nlohmann::json& object);
  void indexLocked(const std::string& key, const nlohmann::json* old, const nlohmann::json* now);
  /// Waits (real time) for `d` or until stop(); false when stopping.
  bool sleepFor(std::chrono::nanoseconds d);

  KubeClient& client_;
  GroupVersionResource gvr_;
  InformerOptions options_;
  const common::Clock& clock_;
  common::RandomSource& random_;
  std::vector<InformerHandlers> handlers_;
  std::map<std::string, IndexFunc> indexFuncs_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, nlohmann::json> cache_;  // "namespace/name"
  std::map<std::string, std::map<std::string, std::set<std::string>>> indexes_;
  std::string resourceVersion_;
  bool synced_ = false;
  std::uint64_t restarts_ = 0;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<WatchStream> current_;
  std::mutex dispatchMu_;  // serialises handler calls from the watch and resync threads
  std::thread thread_;
  std::thread resyncThread_;
};

/// "namespace/name" of an object.
std::string objectKey(const nlohmann::json& object);

}  // namespace hetbench::kube
