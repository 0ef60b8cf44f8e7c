#pragma once

// Private helpers shared by the schema sources: Go-compatible value formatting (the API server's
// messages are produced by Go's fmt), field-error constructors that word causes like
// k8s.io/apimachinery's field.Error, and the validation/pruning/defaulting walkers.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/field_errors.h"
#include "hetbench/common/go_text.h"
#include "hetbench/common/status.h"

namespace re2 {
class RE2;
}

namespace hetbench::kubesim::internal {

using Json = nlohmann::json;
using Causes = std::vector<common::StatusCause>;

using common::badValue;
using common::dataType;
using common::duplicateCause;
using common::forbiddenCause;
using common::goFloat;
using common::goNumber;
using common::goQuote;
using common::goSharpV;
using common::invalidCause;
using common::notSupportedCause;
using common::requiredCause;
using common::tooLongCause;
using common::tooManyCause;
using common::typeInvalidCause;

/// Whether a number is integral (int64, or a float64 with no fraction).
bool isJsonInteger(const Json& v);
double asDouble(const Json& v);
/// Unicode code points in UTF-8 text, as utf8.RuneCountInString counts them.
std::int64_t runeCount(std::string_view s);

/// "parent.child", or just one of them when the other is empty.
std::string joinPath(const std::string& parent, const std::string& child);

/// The compiled `pattern`, cached; nullptr with `goError` set (Go's regexp wording) when the
/// pattern does not compile.
const re2::RE2* compiledPattern(const std::string& pattern, std::string* goError);

/// Validates `value` against `schema` as kube-openapi's SchemaValidator does. `name` is the
/// kube-openapi path ("spec.count"); `base` prefixes field paths ("" for a whole object).
void validateValue(const Json& schema, const Json& value, const std::string& name,
                   const std::string& base, Causes& out);
/// x-kubernetes-list-type set/map uniqueness, after the schema errors as the server reports them.
void validateListTypes(const Json& schema, const Json& value, const std::string& path, Causes& out);

/// Prunes unknown fields; `root` keeps apiVersion/kind/metadata as at a resource root.
void pruneValue(Json& value, const Json* schema, bool root, const std::string& path,
                std::vector<std::string>& pruned);
/// Drops non-nullable nulls without default, then applies defaults.
void defaultValue(Json& value, const Json* schema);

/// Structural and API-level checks of a CRD schema; causes in the server's order.
Causes compileChecks(const Json& schema, const std::string& prefix);

}  // namespace hetbench::kubesim::internal
