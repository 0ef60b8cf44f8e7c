#pragma once

// Private helpers shared by the schema sources: Go-compatible value formatting (the API server's
// messages are produced by Go's fmt), field-error constructors that word causes like
// k8s.io/apimachinery's field.Error, and the validation/pruning/defaulting walkers.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/go_text.h"
#include "hetbench/common/status.h"

namespace re2 {
class RE2;
}

namespace hetbench::kubesim::internal {

using Json = nlohmann::json;
using Causes = std::vector<common::StatusCause>;

using kubesim::goQuote;
/// fmt's %v of a float64 ("1", "0.5", "1e+06").
std::string goFloat(double v);
/// fmt's %v of a JSON number as decoded by the API server (int64 or float64).
std::string goNumber(const Json& v);
/// fmt's %#v of a decoded JSON value ("map[string]interface {}{\"a\":1}").
std::string goSharpV(const Json& v);
/// The value part of field.Error's message: %v for numbers/bools, %q for strings, %#v else.
std::string badValue(const Json& v);

/// JSON type name as kube-openapi infers it from decoded data ("integer", "number", ...).
std::string dataType(const Json& v);
/// Whether a number is integral (int64, or a float64 with no fraction).
bool isJsonInteger(const Json& v);
double asDouble(const Json& v);
/// Unicode code points in UTF-8 text, as utf8.RuneCountInString counts them.
std::int64_t runeCount(std::string_view s);

/// "parent.child", or just one of them when the other is empty.
std::string joinPath(const std::string& parent, const std::string& child);

common::StatusCause requiredCause(std::string field, const std::string& detail = "");
common::StatusCause forbiddenCause(std::string field, const std::string& detail);
common::StatusCause invalidCause(std::string field, const Json& value, const std::string& detail);
common::StatusCause typeInvalidCause(std::string field, const Json& value,
                                     const std::string& detail);
common::StatusCause notSupportedCause(std::string field, const Json& value,
                                      const std::vector<std::string>& supported);
common::StatusCause tooLongCause(std::string field, std::int64_t max);
common::StatusCause tooManyCause(std::string field, std::int64_t actual, std::int64_t max);
common::StatusCause duplicateCause(std::string field, const Json& value);

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
