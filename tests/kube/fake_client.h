#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/kube/client.h"

namespace hetbench::kube::testing {

/// The objects of a fake API server; several FakeKubeClients may share one, each with its own
/// injected failures, as replicas talking to one cluster.
struct FakeStore {
  std::mutex mu;
  /// "group/resource" -> "namespace/name" -> object.
  std::map<std::string, std::map<std::string, nlohmann::json>> objects;
  std::int64_t resourceVersion = 0;
  std::int64_t generated = 0;
};

/// An in-memory KubeClient after controller-runtime's fake client: resourceVersions increase
/// on every write, errors carry the API's codes (NotFound, AlreadyExists, Conflict on a stale
/// resourceVersion), and chosen verbs can be made to fail, like its interceptor. Watches, logs
/// are not supported (Internal), and discovery knows only the kinds `serve` named. Thread-safe.
class FakeKubeClient final : public KubeClient {
 public:
  explicit FakeKubeClient(std::shared_ptr<FakeStore> store = std::make_shared<FakeStore>());

  /// The next `count` calls of `verb` (get, list, create, update, updateStatus, patch, remove)
  /// fail with `status` before touching the store; a negative count fails them until cleared.
  void failNext(const std::string& verb, common::Status status, int count = 1);
  void clearFailures();
  /// Makes resourceFor(apiVersion, kind) answer `gvr`, as discovery does for a served kind.
  void serve(const std::string& apiVersion, const std::string& kind, GroupVersionResource gvr);
  /// Runs before every call, outside the fake's locks (to block a call in a test).
  void setHook(std::function<void(const std::string& verb)> hook);
  /// One line per call: "<verb> <resource> <namespace>/<name>".
  std::vector<std::string> calls() const;
  int callCount(const std::string& verb) const;
  std::shared_ptr<FakeStore> store() const { return store_; }
  /// The stored objects of a resource, in name order.
  std::vector<nlohmann::json> objects(const GroupVersionResource& gvr) const;

  common::Result<nlohmann::json> get(const GroupVersionResource& gvr, const std::string& ns,
                                     const std::string& name) override;
  common::Result<ListResult> list(const GroupVersionResource& gvr, const std::string& ns,
                                  const ListOptions& options) override;
  common::Result<nlohmann::json> create(const GroupVersionResource& gvr, const std::string& ns,
                                        const nlohmann::json& object) override;
  common::Result<nlohmann::json> update(const GroupVersionResource& gvr, const std::string& ns,
                                        const nlohmann::json& object) override;
  common::Result<nlohmann::json> updateStatus(const GroupVersionResource& gvr,
                                              const std::string& ns,
                                              const nlohmann::json& object) override;
  common::Result<nlohmann::json> patch(const GroupVersionResource& gvr, const std::string& ns,
                                       const std::string& name, PatchType type,
                                       const nlohmann::json& patch,
                                       bool statusSubresource = false) override;
  common::Status remove(const GroupVersionResource& gvr, const std::string& ns,
                        const std::string& name, const DeleteOptions& options) override;
  common::Result<std::unique_ptr<WatchStream>> watch(const GroupVersionResource& gvr,
                                                     const std::string& ns,
                                                     const WatchOptions& options) override;
  common::Status streamLogs(const std::string& ns, const std::string& pod,
                            const LogOptions& options,
                            const std::function<bool(std::string_view)>& onData) override;
  common::Result<GroupVersionResource> resourceFor(const std::string& apiVersion,
                                                   const std::string& kind) override;

 private:
  std::map<std::pair<std::string, std::string>, GroupVersionResource> served_;
  struct Failure {
    common::Status status;
    int remaining;
  };
  /// Logs the call and returns the injected failure for `verb`, if any.
  common::Status intercept(const std::string& verb, const GroupVersionResource& gvr,
                           const std::string& ns, const std::string& name);
  common::Result<nlohmann::json> write(const GroupVersionResource& gvr, const std::string& ns,
                                       nlohmann::json object, bool statusOnly);

  std::shared_ptr<FakeStore> store_;
  mutable std::mutex mu_;
  std::map<std::string, Failure> failures_;
  std::function<void(const std::string& verb)> hook_;
  std::vector<std::string> calls_;
};

}  // namespace hetbench::kube::testing
