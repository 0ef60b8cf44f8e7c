#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "schema/jsonpath.h"
#include "schema/schema.h"

namespace hetbench::kubesim {

/// The scale subresource of a custom resource version: where its replicas and selector are, as
/// the CRD's subresources.scale names them (".spec.replicas").
struct CustomResourceScale {
  std::string specReplicasPath = {};
  std::string statusReplicasPath = {};
  /// Empty when the CRD names none: the Scale then has no status.selector.
  std::string labelSelectorPath = {};
};

/// What the API server knows of one served version of a custom resource.
struct CustomResourceVersion {
  std::string name;  // "v1alpha1"
  bool served = true;
  bool storage = false;
  std::optional<StructuralSchema> schema;
  /// The version's openAPIV3Schema as the CRD writes it (null when it has none), and the CRD's
  /// list kind: what the OpenAPI documents publish.
  nlohmann::json openApiSchema = nullptr;
  std::string listKind = {};
  std::vector<PrinterColumn> printerColumns;
  std::optional<CustomResourceScale> scale = {};
};

/// One resource the server serves, e.g. pods (core/v1) or benchmarkruns (hetbench.io/v1alpha1).
struct ResourceType {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, "pods"
  std::string kind;      // "Pod"
  std::string singular;  // "pod"
  bool namespaced = true;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  std::vector<std::string> subresources;  // "status", "log", "scale"
  /// Answered but never stored: the review APIs (TokenReview, SubjectAccessReview, ...) serve
  /// POST on their collection only.
  bool createOnly = false;
  /// Set for custom resources: the CRD's name and schema of this version.
  std::string crdName;
  std::shared_ptr<const CustomResourceVersion> custom;

  bool isCustom() const { return !crdName.empty(); }
  bool hasSubresource(const std::string& name) const;
  /// "v1" or "hetbench.io/v1alpha1".
  std::string apiVersion() const;
  /// "pods" or "benchmarkruns.hetbench.io": how error messages name the resource.
  std::string qualifiedResource() const;
  /// "Pod" or "BenchmarkRun.hetbench.io": how Invalid messages name the kind.
  std::string qualifiedKind() const;
  /// The storage key shared by every version of one resource: "GROUP/RESOURCE".
  std::string storageKey() const { return group + "/" + resource; }
};

/// Every resource currently served, built-in and custom; thread-safe.
class ResourceRegistry {
 public:
  ResourceRegistry();

  void add(ResourceType type);
  /// Replaces every version of `group/resource` with `types` in one step, so that no request
  /// sees the resource missing while a CRD changes.
  void replace(const std::string& group, const std::string& resource,
               std::vector<ResourceType> types);
  /// Removes every version of `group/resource`.
  void remove(const std::string& group, const std::string& resource);

  std::optional<ResourceType> find(const std::string& group, const std::string& version,
                                   const std::string& resource) const;
  /// Finds the served version of a kind, as `kubectl` resolves apiVersion + kind.
  std::optional<ResourceType> findKind(const std::string& apiVersion,
                                       const std::string& kind) const;
  std::vector<ResourceType> all() const;
  /// A number that grows at every change, so that what is derived from the registry (the
  /// OpenAPI documents) can be kept until it changes.
  std::uint64_t generation() const;

 private:
  void removeLocked(const std::string& group, const std::string& resource);

  mutable std::mutex mu_;
  std::map<std::string, ResourceType> types_;  // "group/version/resource"
  std::uint64_t generation_ = 0;
};

}  // namespace hetbench::kubesim
