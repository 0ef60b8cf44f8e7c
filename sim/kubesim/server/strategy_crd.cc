#include <algorithm>
#include <cctype>
#include <set>

#include "hetbench/common/json_fields.h"
#include "schema/schema.h"
#include "server/api_error.h"
#include "server/strategy_kinds.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr const char* kCrdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

bool isLowercaseName(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

void prepareCrd(json& crd, const AdmissionContext&) {
  json& names = crd["spec"]["names"];
  if (!names.is_object()) return;
  const std::string kind = names.value("kind", "");
  if (!names.contains("singular") && !kind.empty()) {
    std::string singular = kind;
    for (char& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    names["singular"] = singular;
  }
  if (!names.contains("listKind") && !kind.empty()) names["listKind"] = kind + "List";
  // Deleting a CRD first deletes its custom resources; the CRD controller removes this.
  json& finalizers = crd["metadata"]["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  if (std::find(finalizers.begin(), finalizers.end(), kCrdCleanupFinalizer) == finalizers.end()) {
    finalizers.push_back(kCrdCleanupFinalizer);
  }
  if (!crd["spec"].contains("conversion")) crd["spec"]["conversion"] = {{"strategy", "None"}};
  crd["status"] = {{"conditions", json::array()},
                   {"acceptedNames", {{"kind", ""}, {"plural", ""}}},
                   {"storedVersions", json::array()}};
}

// validateSimpleJSONPath and the prefix rules of a CRD version's subresources.scale.
void validateScalePath(const json& scale, const char* name, bool required,
                       const std::vector<std::string>& prefixes, const char* where,
                       const std::string& at, std::vector<common::StatusCause>& causes) {
  const std::string field = at + ".subresources.scale." + name;
  const std::string path = common::stringMember(scale, name);
  if (path.empty()) {
    if (required) causes.push_back(common::requiredCause(field));
    return;
  }
  if (path[0] != '.') {
    causes.push_back(
        common::invalidCause(field, path, "must be a simple json path starting with ."));
    return;
  }
  for (const std::string& prefix : prefixes) {
    if (path.rfind(prefix, 0) == 0) return;
  }
  causes.push_back(
      common::invalidCause(field, path, std::string("should be a json path under ") + where));
}

std::vector<common::StatusCause> validateCrd(const json& crd) {
  std::vector<common::StatusCause> causes;
  const json& spec = crd.value("spec", json::object());
  const std::string group = spec.value("group", "");
  const json& names = spec.value("names", json::object());
  const std::string plural = names.value("plural", "");
  const std::string kind = names.value("kind", "");
  if (group.empty()) {
    causes.push_back(common::requiredCause("spec.group"));
  } else if (group.find('.') == std::string::npos) {
    causes.push_back(
        common::invalidCause("spec.group", group, "should be a domain with at least one dot"));
  }
  if (plural.empty()) {
    causes.push_back(common::requiredCause("spec.names.plural"));
  } else if (!isLowercaseName(plural)) {
    causes.push_back(common::invalidCause(
        "spec.names.plural", plural,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or "
        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  }
  if (kind.empty()) causes.push_back(common::requiredCause("spec.names.kind"));
  const std::string name = crd["metadata"].value("name", "");
  if (!plural.empty() && !group.empty() && name != plural + "." + group) {
    causes.push_back(
        common::invalidCause("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  }
  const std::string scope = spec.value("scope", "");
  if (scope != "Namespaced" && scope != "Cluster") {
    causes.push_back(common::notSupportedCause("spec.scope", scope, {"Cluster", "Namespaced"}));
  }
  const json& versions = spec.value("versions", json::array());
  if (!versions.is_array() || versions.empty()) {
    causes.push_back(common::invalidCause(
        "spec.versions", versions, "must have exactly one version marked as storage version"));
    return causes;
  }
  int storage = 0;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    const std::string at = "spec.versions[" + std::to_string(i) + "]";
    const std::string vname = v.value("name", "");
    if (vname.empty()) causes.push_back(common::requiredCause(at + ".name"));
    if (!seen.insert(vname).second) causes.push_back(common::duplicateCause(at + ".name", vname));
    if (v.value("storage", false)) ++storage;
    const json& scale = common::member(common::member(v, "subresources"), "scale");
    if (scale.is_object()) {
      validateScalePath(scale, "specReplicasPath", true, {".spec."}, ".spec", at, causes);
      validateScalePath(scale, "statusReplicasPath", true, {".status."}, ".status", at, causes);
      validateScalePath(scale, "labelSelectorPath", false, {".spec.", ".status."},
                        "either .spec or .status", at, causes);
    }
    const json& schema = v.value("schema", json::object()).value("openAPIV3Schema", json());
    if (schema.is_null()) {
      causes.push_back(
          common::requiredCause(at + ".schema.openAPIV3Schema", "schemas are required"));
      continue;
    }
    common::Result<StructuralSchema> compiled =
        StructuralSchema::compile(schema, at + ".schema.openAPIV3Schema");
    if (!compiled.isOk()) {
      const common::Status error = compiled.status();
      const std::vector<common::StatusCause>& c = error.causes();
      if (c.empty()) {
        causes.push_back(
            common::invalidCause(at + ".schema.openAPIV3Schema", nullptr, error.message()));
      }
      causes.insert(causes.end(), c.begin(), c.end());
    }
  }
  if (storage != 1) {
    causes.push_back(common::invalidCause(
        "spec.versions", versions, "must have exactly one version marked as storage version"));
  }
  return causes;
}

std::vector<common::StatusCause> validateCrdUpdate(const json& crd, const json& old) {
  std::vector<common::StatusCause> causes;
  const json& spec = crd.value("spec", json::object());
  const json& was = old.value("spec", json::object());
  if (spec.value("scope", "") != was.value("scope", "")) {
    causes.push_back(
        common::invalidCause("spec.scope", spec.value("scope", ""), "field is immutable"));
  }
  return causes;
}

}  // namespace

const Strategy& crdStrategy() {
  static const Strategy s = [] {
    Strategy c;
    c.prepareForCreate = prepareCrd;
    c.validate = validateCrd;
    c.validateUpdate = validateCrdUpdate;
    c.generation = true;
    return c;
  }();
  return s;
}

}  // namespace hetbench::kubesim
