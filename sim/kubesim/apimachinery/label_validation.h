#pragma once

// Private helpers shared by the selector parsers: the apimachinery validation messages and the
// field.Error text the API server builds from them.

#include <string>
#include <string_view>
#include <vector>

namespace hetbench::kubesim::detail {

/// validation.IsQualifiedName: the messages for a label key (empty when valid).
std::vector<std::string> qualifiedNameErrors(std::string_view value);

/// validation.IsValidLabelValue: the messages for a label value (empty when valid).
std::vector<std::string> labelValueErrors(std::string_view value);

/// field.Invalid(path, value, detail).Error(): `<path>: Invalid value: "<value>": <detail>`.
std::string invalidValueError(std::string_view path, std::string_view value,
                              std::string_view detail);

/// utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets.
std::string aggregateError(const std::vector<std::string>& messages);

}  // namespace hetbench::kubesim::detail
