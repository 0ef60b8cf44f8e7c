#include "hetbench/slurm/cluster.h"

#include <optional>
#include <utility>

#include "hetbench/common/base64.h"
#include "hetbench/common/field_errors.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/spec_reader.h"

namespace hetbench::slurm {
namespace {

using common::SpecReader;
using nlohmann::json;

// A required string member, empty when absent or wrong (with its cause).
std::string required(SpecReader& r, const json& object, const std::string& field,
                     const char* name) {
  const json& v = common::member(object, name);
  if (v.is_null()) {
    r.add(common::requiredCause(field));
    return "";
  }
  return r.name(field, v).value_or("");
}

std::string optional(SpecReader& r, const json& object, const std::string& field,
                     const char* name) {
  const json& v = common::member(object, name);
  if (v.is_null()) return "";
  return r.string(field, v).value_or("");
}

bool absolute(const std::string& path) { return !path.empty() && path.front() == '/'; }

}  // namespace

common::Result<ClusterSpec> parseClusterSpec(const json& spec) {
  SpecReader r;
  ClusterSpec out;
  if (!r.object("spec", spec)) return common::invalidStatus(std::move(r.causes()));

  out.url = required(r, spec, "spec.url", "url");
  if (!out.url.empty() && out.url.rfind("http://", 0) != 0 && out.url.rfind("https://", 0) != 0) {
    r.add(common::invalidCause("spec.url", out.url, "must start with http:// or https://"));
  }
  if (const json& v = common::member(spec, "openapiVersion"); v.is_null()) {
    r.add(common::requiredCause("spec.openapiVersion"));
  } else if (std::optional<std::string> name = r.string("spec.openapiVersion", v)) {
    if (common::Result<ApiVersion> version = parseApiVersion(*name); version.isOk()) {
      out.version = *version;
    } else {
      std::vector<std::string> supported;
      for (ApiVersion each : apiVersions()) supported.emplace_back(apiVersionName(each));
      r.add(common::notSupportedCause("spec.openapiVersion", v, supported));
    }
  }
  out.user = required(r, spec, "spec.user", "user");

  const json& secret = common::member(spec, "tokenSecretRef");
  if (secret.is_null()) {
    r.add(common::requiredCause("spec.tokenSecretRef"));
  } else if (r.object("spec.tokenSecretRef", secret)) {
    out.token.name = required(r, secret, "spec.tokenSecretRef.name", "name");
    if (const json& key = common::member(secret, "key"); !key.is_null()) {
      if (auto s = r.name("spec.tokenSecretRef.key", key)) out.token.key = *s;
    }
  }

  if (const json& v = common::member(spec, "caBundle"); !v.is_null()) {
    if (auto text = r.string("spec.caBundle", v)) {
      std::optional<std::string> pem = common::base64Decode(*text);
      if (!pem || pem->find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
        r.add(common::invalidCause("spec.caBundle", "(bytes)",
                                   "must be base64 of PEM-encoded certificates"));
      } else {
        out.caPem = *pem;
      }
    }
  }

  const json& defaults = common::member(spec, "defaults");
  if (!defaults.is_null() && r.object("spec.defaults", defaults)) {
    out.partition = optional(r, defaults, "spec.defaults.partition", "partition");
    out.account = optional(r, defaults, "spec.defaults.account", "account");
    out.qos = optional(r, defaults, "spec.defaults.qos", "qos");
  }

  const json& output = common::member(spec, "output");
  if (output.is_null()) {
    r.add(common::requiredCause("spec.output"));
  } else if (r.object("spec.output", output)) {
    const json& shared = common::member(output, "sharedFilesystem");
    if (shared.is_null()) {
      r.add(common::requiredCause("spec.output.sharedFilesystem"));
    } else if (r.object("spec.output.sharedFilesystem", shared)) {
      for (auto [member, target] : {std::pair{"slurmPath", &out.output.slurmPath},
                                    std::pair{"operatorPath", &out.output.operatorPath}}) {
        const std::string field = std::string("spec.output.sharedFilesystem.") + member;
        *target = required(r, shared, field, member);
        if (!target->empty() && !absolute(*target)) {
          r.add(common::invalidCause(field, *target, "must be an absolute path"));
        }
      }
    }
  }
  if (!r.causes().empty()) return common::invalidStatus(std::move(r.causes()));
  return out;
}

}  // namespace hetbench::slurm
