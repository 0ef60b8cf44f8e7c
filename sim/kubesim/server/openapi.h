#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "server/resource_type.h"

namespace hetbench::kubesim {

/// One OpenAPI document as served: its body and its ETag, the SHA-512 of the body in upper-case
/// hex, as kube-openapi computes it.
struct OpenApiDocument {
  std::string body = {};
  std::string etag = {};
};

/// The OpenAPI documents of what a registry serves, as kube-apiserver publishes them: the v3
/// index (/openapi/v3, each group-version's document with its hash), one v3 document per
/// group-version: the paths of its resources and operations, and every schema they reach (the
/// built-in kinds' from protobuf/openapi.h, with apiVersion, kind,
/// x-kubernetes-group-version-kind and the strategic-merge extensions of
/// apimachinery/patch_meta.h; a custom resource's from its CRD's schema); and the v2 document of
/// them all (/openapi/v2), in JSON and in gnostic's protobuf. Kept until the registry changes;
/// thread-safe.
class OpenApiDocuments {
 public:
  explicit OpenApiDocuments(const ResourceRegistry& registry);

  std::shared_ptr<const OpenApiDocument> v3Index();
  /// The document of "api/v1" or "apis/GROUP/VERSION"; nullptr when none is served.
  std::shared_ptr<const OpenApiDocument> v3(const std::string& groupVersion);
  /// The v2 document, built when first asked for; its protobuf has the JSON's ETag, as
  /// kube-openapi gives it.
  std::shared_ptr<const OpenApiDocument> v2();
  std::shared_ptr<const OpenApiDocument> v2Protobuf();

 private:
  struct Set;
  struct V2;
  std::shared_ptr<const Set> current();
  std::shared_ptr<const V2> currentV2();

  const ResourceRegistry& registry_;
  std::mutex mu_;
  std::shared_ptr<const Set> set_ = nullptr;  // guarded by mu_
  std::shared_ptr<const V2> v2_ = nullptr;    // guarded by mu_
};

}  // namespace hetbench::kubesim
