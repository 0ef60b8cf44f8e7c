#include "hetbench/controller/slurm_connector.h"

#include <utility>

#include "hetbench/benchmark/validate.h"
#include "hetbench/common/base64.h"
#include "hetbench/common/json_fields.h"

namespace hetbench::controller {

using common::member;
using common::stringMember;
using nlohmann::json;

SlurmConnector::SlurmConnector(kube::KubeClient& client, const SlurmClusterCache& cache,
                               SlurmConnectorOptions options)
    : client_(client), cache_(cache), options_(std::move(options)) {}

common::Result<SlurmConnection> SlurmConnector::connect(const std::string& cluster) const {
  std::optional<json> object = cache_.slurmCluster(cluster);
  if (!object) return common::notFoundError("SlurmCluster " + cluster + " not found");
  return connect(*object);
}

common::Result<SlurmConnection> SlurmConnector::connect(const json& cluster) const {
  const std::string name = stringMember(member(cluster, "metadata"), "name");
  common::Result<slurm::ClusterSpec> spec = slurm::parseClusterSpec(member(cluster, "spec"));
  if (!spec.isOk()) {
    return common::invalidError("SlurmCluster " + name +
                                " is not valid: " + benchmark::describeInvalid(spec.status()));
  }
  const std::string secretName = options_.secretNamespace + "/" + spec->token.name;
  common::Result<json> secret =
      client_.get(kube::resources::kSecrets, options_.secretNamespace, spec->token.name);
  if (secret.status().isNotFound()) {
    return common::notFoundError("Secret " + secretName + " not found");
  }
  if (!secret.isOk()) return secret.status().withContext("Secret " + secretName);
  std::optional<std::string> token;
  if (const json& data = member(*secret, "data"); member(data, spec->token.key).is_string()) {
    token = common::base64Decode(stringMember(data, spec->token.key));
  }
  if (!token || token->empty()) {
    return common::notFoundError("Secret " + secretName + " has no key \"" + spec->token.key +
                                 "\"");
  }
  while (!token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();

  slurm::ClientOptions client;
  client.url = spec->url;
  client.version = spec->version;
  client.caPem = spec->caPem;
  client.timeout = options_.requestTimeout;
  client.credentials = [user = spec->user, token = *token]() -> common::Result<slurm::Credentials> {
    return slurm::Credentials{user, token};
  };
  common::Result<std::unique_ptr<slurm::SlurmApi>> api = options_.clients(std::move(client));
  if (!api.isOk())
    return common::invalidError("SlurmCluster " + name + ": " + api.status().message());
  return SlurmConnection{std::move(spec).value(), std::move(api).value()};
}

}  // namespace hetbench::controller
