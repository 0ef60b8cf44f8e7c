#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/ids.h"
#include "server/api_error.h"
#include "server/resource_type.h"
#include "server/store.h"

namespace hetbench::kubesim {

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::int64_t limit = 0;
  std::string continueToken;
};

struct WriteOptions {
  bool dryRun = false;
  /// "Strict", "Warn" (the default) or "Ignore", as ?fieldValidation= says.
  std::string fieldValidation = "Warn";
  /// ?fieldManager=: who owns what the write sets (metadata.managedFields); required for apply.
  std::string fieldManager = {};
  /// The manager of a write other than apply that names none: what precedes the first "/" of
  /// the User-Agent. Writes with neither (kubesim's own controllers) are not recorded.
  std::string userAgentManager = {};
  /// ?force= of an apply: take the fields other managers own. Set at all only if given.
  std::optional<bool> force = {};
};

struct DeleteOptions {
  std::optional<std::string> propagationPolicy;  // Orphan, Background, Foreground
  std::optional<std::int64_t> gracePeriodSeconds;
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
  bool dryRun = false;
};

/// The outcome of a write: the object and the warnings the server sends back as headers.
struct WriteResult {
  nlohmann::json object;
  std::vector<std::string> warnings;
  bool created = false;
};

/// The API server's semantics without HTTP: admission (defaulting and validation), metadata
/// rules, optimistic concurrency, the status subresource, finalizers and graceful deletion.
/// The HTTP layer and kubesim's controllers both go through it.
class Api {
 public:
  Api(Store& store, ResourceRegistry& registry, const common::Clock& clock,
      common::RandomSource& random);

  Store& store() { return store_; }
  ResourceRegistry& registry() { return registry_; }
  const common::Clock& clock() const { return clock_; }

  ApiResult<nlohmann::json> get(const ResourceType& type, const std::string& ns,
                                const std::string& name) const;
  /// The autoscaling/v1 Scale of a resource with the scale subresource (server/scale.h).
  ApiResult<nlohmann::json> getScale(const ResourceType& type, const std::string& ns,
                                     const std::string& name) const;
  /// A <Kind>List with items, metadata.resourceVersion and continue.
  ApiResult<nlohmann::json> list(const ResourceType& type, const std::string& ns,
                                 const ListOptions& options) const;
  /// Filters objects by label and field selectors; field names are checked per resource.
  ApiResult<std::vector<nlohmann::json>> select(const ResourceType& type,
                                                const std::vector<nlohmann::json>& objects,
                                                const std::string& labelSelector,
                                                const std::string& fieldSelector) const;

  ApiResult<WriteResult> create(const ResourceType& type, const std::string& ns,
                                nlohmann::json body, const WriteOptions& options);
  /// PUT of the object, of its "status" subresource, or of its "scale" subresource (a Scale
  /// whose spec.replicas the object takes, conditional on the Scale's resourceVersion; the
  /// result is the Scale). Patches of "scale" apply to the Scale likewise.
  ApiResult<WriteResult> update(const ResourceType& type, const std::string& ns,
                                const std::string& name, nlohmann::json body,
                                const std::string& subresource, const WriteOptions& options);
  ApiResult<WriteResult> patch(const ResourceType& type, const std::string& ns,
                               const std::string& name, const std::string& contentType,
                               const std::string& patchBody, const std::string& subresource,
                               const WriteOptions& options);
  ApiResult<nlohmann::json> remove(const ResourceType& type, const std::string& ns,
                                   const std::string& name, const DeleteOptions& options);
  ApiResult<nlohmann::json> removeCollection(const ResourceType& type, const std::string& ns,
                                             const ListOptions& listOptions,
                                             const DeleteOptions& options);

  /// Removes an object whatever its finalizers and grace period (kubelet's final delete,
  /// garbage collector); NotFound when absent.
  ApiResult<nlohmann::json> removeNow(const ResourceType& type, const std::string& ns,
                                      const std::string& name);

  /// The ResourceType of a built-in or custom resource by group and resource (any version).
  std::optional<ResourceType> typeOf(const std::string& group, const std::string& resource) const;

 private:
  /// PATCH with application/apply-patch+yaml: creates the object when it does not exist.
  ApiResult<WriteResult> apply(const ResourceType& type, const std::string& ns,
                               const std::string& name, const std::string& patchBody,
                               const std::string& subresource, const WriteOptions& options);
  /// How a write treats metadata.managedFields: records the writer's Update entry (create,
  /// update, patch), or stores the entries an apply computed.
  enum class Tracking { kUpdate, kApplied };
  ApiResult<WriteResult> create(const ResourceType& type, const std::string& ns,
                                nlohmann::json body, const WriteOptions& options,
                                Tracking tracking);
  ApiResult<WriteResult> write(const ResourceType& type, const std::string& ns,
                               const std::string& name, nlohmann::json desired,
                               const std::string& subresource, const WriteOptions& options,
                               Tracking tracking = Tracking::kUpdate);
  /// Sets next's metadata.managedFields: what the apply computed, or the writer's Update entry.
  void trackManagedFields(const ResourceType& type, const nlohmann::json& old,
                          const nlohmann::json& desired, nlohmann::json& next,
                          const std::string& subresource, const WriteOptions& options,
                          Tracking tracking) const;
  /// NotFound for a missing namespace, Forbidden (naming the object) for a terminating one.
  std::optional<ApiError> checkNamespace(const ResourceType& type, const std::string& ns,
                                         const std::string& name) const;

  Store& store_;
  ResourceRegistry& registry_;
  const common::Clock& clock_;
  common::RandomSource& random_;
};

}  // namespace hetbench::kubesim
