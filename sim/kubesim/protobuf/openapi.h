#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hetbench::kubesim::protobuf {

/// The name of the OpenAPI schema of a kind ("v1" "Pod": "io.k8s.api.core.v1.Pod"; "apps/v1"
/// "DeploymentList"), as kube-apiserver names its components: the Go package reversed at the
/// domain. "" when kubesim has no protobuf schema for the kind (a custom resource).
std::string openApiSchemaName(std::string_view apiVersion, std::string_view kind);

/// The OpenAPI v3 schemas of every message of the built-in kinds, by name: what kube-apiserver
/// publishes in components.schemas, derived from the protobuf schemas (schemas/*.proto). Each
/// field is a property under its JSON name, typed as the API server types it (integer with
/// format int32 or int64, number with format double, string with format byte for bytes, arrays
/// and maps with their element's schema); a message field is {"allOf": [{"$ref": ...}]}. Time
/// and MicroTime are date-time strings, Quantity a string or number, IntOrString an integer or
/// string (format int-or-string), RawExtension and FieldsV1 objects, an ExtraValue an array of
/// strings; embedded Go structs (kubesim.inline) are flattened into their holder. required,
/// default, enum, x-kubernetes-list-type, x-kubernetes-list-map-keys and x-kubernetes-map-type
/// come from the kubesim options, descriptions from the comments of the .proto files. The
/// kinds' apiVersion and kind, x-kubernetes-group-version-kind and the strategic-merge
/// extensions are the API server's to add (server/openapi.cc). Built once.
const nlohmann::json& openApiSchemas();

}  // namespace hetbench::kubesim::protobuf
