#pragma once

// Field errors worded as the Kubernetes API server words its StatusCauses (apimachinery's
// field.Error and the OpenAPI schema validator), for kubesim, which must answer as the server
// does, and for the controller, so that a spec it rejects reads like one the server rejected.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/go_text.h"
#include "hetbench/common/status.h"

namespace hetbench::common {

/// The JSON type of a value as kube-openapi infers it from decoded data ("integer", "number",
/// "string", "boolean", "array", "object", "null").
std::string dataType(const nlohmann::json& v);

/// The value part of a field.Error message: %v for numbers and booleans, %q for strings, %#v
/// for arrays and objects, "null" quoted for null.
std::string badValue(const nlohmann::json& v);

StatusCause requiredCause(std::string field, std::string_view detail = {});
StatusCause forbiddenCause(std::string field, std::string_view detail);
StatusCause invalidCause(std::string field, const nlohmann::json& value, std::string_view detail);
StatusCause typeInvalidCause(std::string field, const nlohmann::json& value,
                             std::string_view detail);
/// The OpenAPI validator's type error for a custom resource's field: `value` is the field's
/// value, `expected` the schema type ("integer", "integer or string").
StatusCause schemaTypeCause(std::string field, const nlohmann::json& value,
                            std::string_view expected);
StatusCause notSupportedCause(std::string field, const nlohmann::json& value,
                              const std::vector<std::string>& supported);
/// `max` < 0 leaves the limit out, as field.TooLong does for an unknown limit.
StatusCause tooLongCause(std::string field, std::int64_t max);
/// `actual` or `max` < 0 leaves that number out.
StatusCause tooManyCause(std::string field, std::int64_t actual, std::int64_t max);
StatusCause duplicateCause(std::string field, const nlohmann::json& value);

/// Invalid with one cause per problem; the message lists them as the API server does
/// ("f: m" for one, "[f: m, g: n]" for several).
Status invalidStatus(std::vector<StatusCause> causes);

}  // namespace hetbench::common
