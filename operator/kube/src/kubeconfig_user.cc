// Cluster and user sections of a kubeconfig, validated as client-go's clientcmd does.
#include <array>
#include <optional>

#include "files.h"
#include "hetbench/common/base64.h"
#include "kubeconfig_entry.h"

namespace hetbench::kube::internal {
namespace {

constexpr std::string_view kExecV1 = "client.authentication.k8s.io/v1";
constexpr std::string_view kExecV1beta1 = "client.authentication.k8s.io/v1beta1";

std::string inQuotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The content of a `<name>` file field or of its base64 `<name>-data` twin; empty when neither
// is set. Setting both is an error, as in client-go's validation.
common::Result<std::string> fileOrData(const Entry& entry, const char* fileKey,
                                       const char* dataKey) {
  HETBENCH_ASSIGN_OR_RETURN(std::string path, stringField(entry, fileKey));
  HETBENCH_ASSIGN_OR_RETURN(std::string data, stringField(entry, dataKey));
  if (!path.empty() && !data.empty()) {
    return entryError(entry, dataKey,
                      std::string("both ") + fileKey + " and " + dataKey + " are set");
  }
  if (!data.empty()) {
    auto decoded = common::base64Decode(data);
    if (!decoded) return entryError(entry, dataKey, "invalid base64");
    return *decoded;
  }
  if (path.empty()) return std::string();
  const std::string resolved = resolvePath(directoryOf(entry.file), path);
  auto content = readFile(resolved);
  if (content.status().isNotFound()) {
    return entryError(entry, fileKey, "file " + inQuotes(resolved) + " not found");
  }
  if (!content) {
    return entryError(entry, fileKey,
                      "file " + inQuotes(resolved) + ": " + content.status().message());
  }
  return std::move(content).value();
}

common::Result<std::vector<std::string>> stringList(const Entry& entry, const char* key) {
  std::vector<std::string> out;
  const YAML::Node node = entry.body[key];
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsSequence()) return entryError(entry, key, "must be a list of strings");
  for (const auto& item : node) {
    if (!item.IsScalar()) return entryError(entry, key, "must be a list of strings");
    out.push_back(item.Scalar());
  }
  return out;
}

common::Result<ExecConfig> parseExec(const Entry& user) {
  const Entry exec{user.file, user.field + ".exec", user.body["exec"]};
  if (!exec.body.IsMap()) return entryError(exec, "", "must be a mapping");
  ExecConfig out;
  HETBENCH_ASSIGN_OR_RETURN(out.apiVersion, stringField(exec, "apiVersion"));
  HETBENCH_ASSIGN_OR_RETURN(out.command, stringField(exec, "command"));
  HETBENCH_ASSIGN_OR_RETURN(out.args, stringList(exec, "args"));
  HETBENCH_ASSIGN_OR_RETURN(out.interactiveMode, stringField(exec, "interactiveMode"));
  HETBENCH_ASSIGN_OR_RETURN(bool clusterInfo, boolField(exec, "provideClusterInfo"));
  if (out.apiVersion.empty()) return entryError(exec, "apiVersion", "missing");
  if (out.apiVersion != kExecV1 && out.apiVersion != kExecV1beta1) {
    return entryError(exec, "apiVersion",
                      "unsupported " + inQuotes(out.apiVersion) + " (want " + std::string(kExecV1) +
                          " or " + std::string(kExecV1beta1) + ")");
  }
  if (out.command.empty()) return entryError(exec, "command", "missing");
  // client-go resolves the command against the kubeconfig only when it is a path, not a name
  // to look up in $PATH.
  if (out.command.find('/') != std::string::npos) {
    out.command = resolvePath(directoryOf(exec.file), out.command);
  }
  // v1beta1 defaults the mode; v1 requires it (client-go's SetDefaults_ExecConfig).
  if (out.interactiveMode.empty() && out.apiVersion == kExecV1beta1) {
    out.interactiveMode = "IfAvailable";
  }
  if (out.interactiveMode.empty()) return entryError(exec, "interactiveMode", "missing");
  if (out.interactiveMode == "Always") {
    return entryError(exec, "interactiveMode",
                      "\"Always\" needs a terminal and hetbench never prompts");
  }
  if (out.interactiveMode != "Never" && out.interactiveMode != "IfAvailable") {
    return entryError(exec, "interactiveMode", "invalid " + inQuotes(out.interactiveMode));
  }
  if (clusterInfo) return entryError(exec, "provideClusterInfo", "not supported");
  const YAML::Node env = exec.body["env"];
  if (env.IsDefined() && !env.IsNull()) {
    if (!env.IsSequence()) return entryError(exec, "env", "must be a list");
    for (std::size_t i = 0; i < env.size(); ++i) {
      const Entry var{exec.file, exec.field + ".env[" + std::to_string(i) + "]", env[i]};
      if (!var.body.IsMap()) return entryError(var, "", "must be a mapping");
      HETBENCH_ASSIGN_OR_RETURN(std::string name, stringField(var, "name"));
      HETBENCH_ASSIGN_OR_RETURN(std::string value, stringField(var, "value"));
      if (name.empty()) return entryError(var, "name", "missing");
      out.env.emplace_back(std::move(name), std::move(value));
    }
  }
  return out;
}

}  // namespace

common::Status entryError(const Entry& entry, std::string_view key, std::string_view message) {
  std::string text = entry.file + ": " + entry.field;
  if (!key.empty()) text += "." + std::string(key);
  return common::invalidError(text + ": " + std::string(message));
}

common::Result<std::string> stringField(const Entry& entry, const char* key) {
  const YAML::Node node = entry.body[key];
  if (!node.IsDefined() || node.IsNull()) return std::string();
  if (!node.IsScalar()) return entryError(entry, key, "must be a string");
  return node.Scalar();
}

common::Result<bool> boolField(const Entry& entry, const char* key) {
  const YAML::Node node = entry.body[key];
  if (!node.IsDefined() || node.IsNull()) return false;
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    return entryError(entry, key, "must be true or false");
  }
  return value;
}

common::Status applyCluster(const Entry& cluster, RestConfig* config) {
  if (!cluster.body.IsMap()) return entryError(cluster, "", "must be a mapping");
  HETBENCH_ASSIGN_OR_RETURN(std::string server, stringField(cluster, "server"));
  if (server.empty()) return entryError(cluster, "server", "missing");
  while (server.size() > 1 && server.back() == '/') server.pop_back();
  config->server = server;
  HETBENCH_ASSIGN_OR_RETURN(
      config->caPem, fileOrData(cluster, "certificate-authority", "certificate-authority-data"));
  if (!config->caPem.empty() && !looksLikePemCertificate(config->caPem)) {
    HETBENCH_ASSIGN_OR_RETURN(std::string caFile, stringField(cluster, "certificate-authority"));
    return entryError(cluster,
                      caFile.empty() ? "certificate-authority-data" : "certificate-authority",
                      "not a PEM certificate");
  }
  HETBENCH_ASSIGN_OR_RETURN(config->insecureSkipTlsVerify,
                            boolField(cluster, "insecure-skip-tls-verify"));
  if (config->insecureSkipTlsVerify && !config->caPem.empty()) {
    // client-go's transport refuses this combination rather than silently ignoring the CA.
    return entryError(cluster, "insecure-skip-tls-verify",
                      "cannot be combined with a certificate authority");
  }
  HETBENCH_ASSIGN_OR_RETURN(config->tlsServerName, stringField(cluster, "tls-server-name"));
  return common::okStatus();
}

common::Status applyUser(const Entry& user, RestConfig* config) {
  if (user.body.IsNull()) return common::okStatus();
  if (!user.body.IsMap()) return entryError(user, "", "must be a mapping");
  for (const char* key : {"username", "password"}) {
    if (user.body[key].IsDefined()) {
      return entryError(user, key, "basic authentication is not supported");
    }
  }
  if (user.body["auth-provider"].IsDefined()) {
    return entryError(user, "auth-provider", "not supported; use an exec plugin");
  }
  HETBENCH_ASSIGN_OR_RETURN(config->token, stringField(user, "token"));
  HETBENCH_ASSIGN_OR_RETURN(std::string tokenFile, stringField(user, "tokenFile"));
  if (!tokenFile.empty()) {
    config->tokenFile = resolvePath(directoryOf(user.file), tokenFile);
    auto content = readFile(config->tokenFile);
    if (!content) {
      return entryError(user, "tokenFile",
                        "file " + inQuotes(config->tokenFile) + " " +
                            (content.status().isNotFound() ? std::string("not found")
                                                           : content.status().message()));
    }
  }
  HETBENCH_ASSIGN_OR_RETURN(config->clientCertPem,
                            fileOrData(user, "client-certificate", "client-certificate-data"));
  HETBENCH_ASSIGN_OR_RETURN(config->clientKeyPem,
                            fileOrData(user, "client-key", "client-key-data"));
  if (!config->clientCertPem.empty() && config->clientKeyPem.empty()) {
    return entryError(user, "client-key", "missing (client-certificate needs a key)");
  }
  if (config->clientCertPem.empty() && !config->clientKeyPem.empty()) {
    return entryError(user, "client-certificate", "missing (client-key needs a certificate)");
  }
  if (user.body["exec"].IsDefined() && !user.body["exec"].IsNull()) {
    HETBENCH_ASSIGN_OR_RETURN(config->exec, parseExec(user));
  }
  return common::okStatus();
}

}  // namespace hetbench::kube::internal
