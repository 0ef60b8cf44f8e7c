#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// The OpenAPI v3 schema of one CustomResourceDefinition version, used as the API server uses
/// it: defaulting, pruning of unknown fields, and validation. At the root, apiVersion, kind and
/// metadata are never pruned and metadata is not validated by the schema.
class StructuralSchema {
 public:
  /// Checks that the schema is structural (a type on every node except where
  /// x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields allow none, no
  /// additionalProperties beside properties, ...). Errors are Invalid with one cause per
  /// problem, fields named from "spec.versions[i].schema.openAPIV3Schema".
  static common::Result<StructuralSchema> compile(const nlohmann::json& openApiV3Schema,
                                                  const std::string& fieldPrefix);

  /// Fills `default` values where a field is absent (after pruning, as the API server does).
  void applyDefaults(nlohmann::json& object) const;

  /// Drops fields the schema does not declare (unless x-kubernetes-preserve-unknown-fields),
  /// returning their paths ("spec.foo", "spec.items[0].bar") for strict field validation.
  std::vector<std::string> prune(nlohmann::json& object) const;

  /// Validates type, format (int32, int64, date-time...), enum, minimum/maximum (and the
  /// exclusive forms), multipleOf, minLength/maxLength, pattern, minItems/maxItems,
  /// uniqueItems, minProperties/maxProperties, required, nullable, additionalProperties and
  /// items. Each cause has the field path and the API server's message, e.g. field
  /// "spec.repetitions", reason "FieldValueInvalid", message "Invalid value: -1:
  /// spec.repetitions in body should be greater than or equal to 1".
  std::vector<common::StatusCause> validate(const nlohmann::json& object) const;

  /// The sub-schema at a dotted path ("status"), for subresource handling; nullptr if absent.
  const nlohmann::json* at(const std::string& dottedPath) const;

 private:
  std::shared_ptr<const nlohmann::json> schema_;
};

}  // namespace hetbench::kubesim
