#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"

namespace hetbench::kube {

/// A resource as REST paths name it.
struct GroupVersionResource {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural
  bool namespaced = true;

  /// "v1" or "batch/v1".
  std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
  bool operator==(const GroupVersionResource&) const = default;
};

/// The resources hetbench uses.
namespace resources {
inline const GroupVersionResource kPods{"", "v1", "pods", true};
inline const GroupVersionResource kEvents{"", "v1", "events", true};
inline const GroupVersionResource kServices{"", "v1", "services", true};
inline const GroupVersionResource kSecrets{"", "v1", "secrets", true};
inline const GroupVersionResource kNamespaces{"", "v1", "namespaces", false};
inline const GroupVersionResource kJobs{"batch", "v1", "jobs", true};
inline const GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases", true};
inline const GroupVersionResource kCustomResourceDefinitions{"apiextensions.k8s.io", "v1",
                                                             "customresourcedefinitions", false};
}  // namespace resources

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::int64_t limit = 0;
  std::string continueToken;
  std::string resourceVersion;
};

struct ListResult {
  std::vector<nlohmann::json> items;  // each with apiVersion and kind filled in
  std::string resourceVersion;
  std::string continueToken;
};

struct DeleteOptions {
  std::optional<std::string> propagationPolicy;  // Background, Foreground, Orphan
  std::optional<std::int64_t> gracePeriodSeconds;
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
};

enum class PatchType { kMerge, kJson, kStrategicMerge };

struct WatchOptions {
  std::string resourceVersion;
  std::string labelSelector;
  std::string fieldSelector;
  bool allowBookmarks = true;
  std::chrono::seconds timeout{300};  // server-side timeoutSeconds
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark };
  Type type;
  nlohmann::json object;
};

/// An open watch. next() blocks for the next event; nullopt when the server ended the stream
/// normally; an error when it broke or the server sent an ERROR event (410 Expired is Gone).
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  virtual common::Result<std::optional<WatchEvent>> next() = 0;
  /// Ends the stream from another thread; next() then returns nullopt.
  virtual void cancel() = 0;
};

/// Lets another thread end a streamLogs call early, which then returns OK. Thread-safe.
class StreamCanceller {
 public:
  void cancel() {
    std::function<void()> hook;
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      hook = hook_;
    }
    if (hook) hook();
  }
  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }
  /// For KubeClient implementations: `hook` aborts the open request; it runs on cancel(), or at
  /// once when cancel() came first. clearHook() before the request's state goes away.
  void setHook(std::function<void()> hook) {
    bool now = false;
    {
      std::lock_guard lock(mu_);
      hook_ = hook;
      now = cancelled_;
    }
    if (now && hook) hook();
  }
  void clearHook() {
    std::lock_guard lock(mu_);
    hook_ = nullptr;
  }

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> hook_;
};

struct LogOptions {
  std::string container;
  bool follow = false;
  bool timestamps = false;
  bool previous = false;
  std::optional<common::WallTime> sinceTime;
  std::optional<std::int64_t> tailLines;
  std::optional<std::int64_t> limitBytes;
  std::shared_ptr<StreamCanceller> canceller;  // optional
};

/// The Kubernetes API as hetbench uses it. Errors are Status values whose code follows the
/// API's Status reason: NotFound, AlreadyExists, Conflict, Invalid (with the causes),
/// Gone (410), TooManyRequests, Unavailable (5xx and transport failures), Timeout, and
/// Internal for anything else; the message is the server's. Thread-safe.
class KubeClient {
 public:
  virtual ~KubeClient() = default;

  virtual common::Result<nlohmann::json> get(const GroupVersionResource& gvr, const std::string& ns,
                                             const std::string& name) = 0;
  /// An empty namespace lists all namespaces.
  virtual common::Result<ListResult> list(const GroupVersionResource& gvr, const std::string& ns,
                                          const ListOptions& options) = 0;
  virtual common::Result<nlohmann::json> create(const GroupVersionResource& gvr,
                                                const std::string& ns,
                                                const nlohmann::json& object) = 0;
  /// PUT of the object (named by its metadata.name, guarded by its resourceVersion).
  virtual common::Result<nlohmann::json> update(const GroupVersionResource& gvr,
                                                const std::string& ns,
                                                const nlohmann::json& object) = 0;
  /// PUT of the status subresource.
  virtual common::Result<nlohmann::json> updateStatus(const GroupVersionResource& gvr,
                                                      const std::string& ns,
                                                      const nlohmann::json& object) = 0;
  virtual common::Result<nlohmann::json> patch(const GroupVersionResource& gvr,
                                               const std::string& ns, const std::string& name,
                                               PatchType type, const nlohmann::json& patch,
                                               bool statusSubresource = false) = 0;
  virtual common::Status remove(const GroupVersionResource& gvr, const std::string& ns,
                                const std::string& name, const DeleteOptions& options) = 0;
  virtual common::Result<std::unique_ptr<WatchStream>> watch(const GroupVersionResource& gvr,
                                                             const std::string& ns,
                                                             const WatchOptions& options) = 0;
  /// Streams a container's log to `onData` as it arrives until the log ends, `onData` returns
  /// false, or the connection breaks (an error; the caller resumes with sinceTime).
  virtual common::Status streamLogs(const std::string& ns, const std::string& pod,
                                    const LogOptions& options,
                                    const std::function<bool(std::string_view)>& onData) = 0;
  /// Maps apiVersion + kind to its resource through discovery (cached; refreshed once on a
  /// miss), so that arbitrary manifests can be created. NotFound for an unknown kind.
  virtual common::Result<GroupVersionResource> resourceFor(const std::string& apiVersion,
                                                           const std::string& kind) = 0;
};

/// Maps an HTTP status and a metav1.Status body to a Status code, message and causes.
common::Status statusFromResponse(int httpStatus, std::string_view body);

}  // namespace hetbench::kube
