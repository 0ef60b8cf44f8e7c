#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/ids.h"
#include "server/api.h"
#include "server/api_error.h"
#include "server/resource_type.h"

namespace hetbench::kubesim {

/// The message of 410 Expired for a continue token older than the history.
extern const char* const kContinueExpired;

struct ContinueToken {
  std::uint64_t resourceVersion = 0;
  std::string startAfter;  // "namespace/name" of the last item returned
};
std::string encodeContinue(const ContinueToken& token);
std::optional<ContinueToken> decodeContinue(const std::string& text);

/// A random RFC 4122 version-4 UUID.
std::string newUid(common::RandomSource& random);
/// The 5 characters appended to metadata.generateName.
std::string generatedSuffix(common::RandomSource& random);

/// A single object as the server returns it: with kind and apiVersion.
nlohmann::json presentObject(const ResourceType& type, nlohmann::json object);
/// A list item: built-in lists omit kind and apiVersion of their items, custom ones keep them.
nlohmann::json presentListItem(const ResourceType& type, nlohmann::json object);

/// Checks (and for built-ins fills in) kind and apiVersion of a request body.
ApiResult<std::vector<std::string>> checkTypeMeta(const ResourceType& type, nlohmann::json& body);

/// Admission of a create (old == nullptr) or update (of the object, or of its `subresource`):
/// pruning and defaulting (custom resources by schema, built-ins by strategy), metadata and
/// object validation. Returns the warnings.
ApiResult<std::vector<std::string>> admit(const ResourceType& type, nlohmann::json& object,
                                          const nlohmann::json* old, const std::string& subresource,
                                          const WriteOptions& options, const common::Clock& clock);

/// `[]string{"a", "b"}`: the finalizers of `now` that `old` lacks, sorted, as Go prints them.
std::string newFinalizers(const nlohmann::json& now, const nlohmann::json& old);

/// The grace period of a pod deletion: the request's, else the pod's
/// terminationGracePeriodSeconds; 0 for pods never bound to a node or already finished.
std::int64_t podGracePeriod(const nlohmann::json& pod, const DeleteOptions& options);

}  // namespace hetbench::kubesim
