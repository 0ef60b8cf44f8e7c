#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hetbench::kubesim::protobuf {

/// The media type of /openapi/v2 in protobuf, as kube-openapi answers it, and the older name
/// that kubectl asks for.
inline constexpr std::string_view kOpenApiV2MediaType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
inline constexpr std::string_view kOpenApiV2LegacyMediaType =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// A Swagger 2.0 document (JSON) as gnostic's OpenAPI v2 protobuf (schemas/openapiv2.proto),
/// what kube-openapi serves for kubectl's client-side validation and patches: maps as lists of
/// named entries, a schema's type as a list, vendor extensions, defaults and enum values as YAML
/// text (kubesim writes their JSON, which is YAML too).
std::string encodeOpenApiV2(const nlohmann::json& swagger);

}  // namespace hetbench::kubesim::protobuf
