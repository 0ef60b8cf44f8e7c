#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "server/resource_type.h"

namespace hetbench::kubesim {

class ResourceRegistry;

/// What kubesim knows at admission time; strategies may allocate (cluster IPs) through it.
struct AdmissionContext {
  const common::Clock& clock;
  std::uint64_t serial;  // a per-write number, for allocations
};

/// Per-kind rules, as each registry's strategy in kube-apiserver defines them.
struct Strategy {
  /// The API's defaults (SetDefaults_<Kind>), applied to every object written, created or
  /// updated, as the API server's decoder applies them to every request body.
  void (*applyDefaults)(nlohmann::json& object) = nullptr;
  /// Defaults and server-set fields on create (e.g. a Pod's restartPolicy, status.phase).
  void (*prepareForCreate)(nlohmann::json& object, const AdmissionContext& ctx) = nullptr;
  /// Validation of a new object; causes name fields as "spec.containers[0].image".
  std::vector<common::StatusCause> (*validate)(const nlohmann::json& object) = nullptr;
  /// Extra rules on update (immutable fields).
  std::vector<common::StatusCause> (*validateUpdate)(const nlohmann::json& object,
                                                     const nlohmann::json& old) = nullptr;
  /// Whether metadata.generation is maintained.
  bool generation = false;
  /// Propagation policy when a delete names none.
  const char* defaultPropagation = "Background";
  /// "subdomain" (DNS-1123 subdomain), "label" (DNS-1123 label) or "label1035".
  const char* nameFormat = "subdomain";
  /// Field selectors the resource supports beyond metadata.name and metadata.namespace.
  std::vector<std::string> fieldLabels;
  /// Whether a delete that removes the object at once answers with it (the registry's
  /// ReturnDeletedObject) instead of a Success Status naming it.
  bool returnDeletedObject = false;
};

/// The strategy of a built-in resource ("/pods", "batch/jobs"), or a CR's from its schema.
const Strategy& strategyFor(const ResourceType& type);

/// Registers every built-in resource kubesim serves.
void registerBuiltinResources(ResourceRegistry& registry);

/// Validates object names: DNS-1123 subdomain or label, or DNS-1035 label; messages as the
/// API server words them.
std::vector<common::StatusCause> validateName(const std::string& field, const std::string& name,
                                              const std::string& format);

}  // namespace hetbench::kubesim
