#include "hetbench/kube/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "files.h"
#include "kubeconfig_entry.h"

namespace hetbench::kube {
namespace {

using internal::Entry;
using internal::entryError;

std::string inQuotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// The kubeconfig files merged so far: the first file to name an entry or set current-context
/// wins, as in client-go's ClientConfigLoadingRules.
struct Merged {
  std::vector<std::string> files;
  std::string currentContext;
  std::string currentContextFile;
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
};

common::Status fileError(const std::string& file, std::string_view message) {
  return common::invalidError(file + ": " + std::string(message));
}

common::Result<YAML::Node> parseYaml(const std::string& file, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fileError(file, "line " + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
}

// Adds the named entries of one list (clusters, users or contexts) that are not already there.
common::Status mergeList(const std::string& file, const YAML::Node& root, const char* list,
                         const char* body, std::map<std::string, Entry>* into) {
  const YAML::Node items = root[list];
  if (!items.IsDefined() || items.IsNull()) return common::okStatus();
  if (!items.IsSequence()) return fileError(file, std::string(list) + ": must be a list");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Entry item{file, std::string(list) + "[" + std::to_string(i) + "]", items[i]};
    if (!item.body.IsMap()) return entryError(item, "", "must be a mapping");
    HETBENCH_ASSIGN_OR_RETURN(std::string name, internal::stringField(item, "name"));
    if (name.empty()) return entryError(item, "name", "missing");
    if (!seen.insert(name).second) return entryError(item, "name", "duplicate " + inQuotes(name));
    into->try_emplace(
        name, Entry{file, std::string(list) + "[" + inQuotes(name) + "]." + body, item.body[body]});
  }
  return common::okStatus();
}

common::Status mergeFile(const std::string& file, Merged* merged) {
  auto text = internal::readFile(file);
  if (!text) return fileError(file, text.status().message());
  HETBENCH_ASSIGN_OR_RETURN(YAML::Node root, parseYaml(file, *text));
  merged->files.push_back(file);
  if (root.IsNull()) return common::okStatus();  // an empty file is an empty config
  if (!root.IsMap()) return fileError(file, "not a kubeconfig (the top level must be a mapping)");
  HETBENCH_RETURN_IF_ERROR(mergeList(file, root, "clusters", "cluster", &merged->clusters));
  HETBENCH_RETURN_IF_ERROR(mergeList(file, root, "users", "user", &merged->users));
  HETBENCH_RETURN_IF_ERROR(mergeList(file, root, "contexts", "context", &merged->contexts));
  const YAML::Node current = root["current-context"];
  if (current.IsDefined() && !current.IsNull() && !current.IsScalar()) {
    return fileError(file, "current-context: must be a string");
  }
  if (merged->currentContext.empty() && current.IsScalar() && !current.Scalar().empty()) {
    merged->currentContext = current.Scalar();
    merged->currentContextFile = file;
  }
  return common::okStatus();
}

// The files to merge, in precedence order (client-go's loading rules).
common::Result<std::vector<std::string>> kubeconfigFiles(const KubeconfigSource& source) {
  if (!source.explicitPath.empty()) {
    if (!std::filesystem::exists(source.explicitPath)) {
      return fileError(source.explicitPath, "file not found");
    }
    return std::vector<std::string>{source.explicitPath};
  }
  if (!source.kubeconfigEnv.empty()) {
    std::vector<std::string> files;
    std::stringstream list(source.kubeconfigEnv);
    std::string file;
    while (std::getline(list, file, ':')) {
      // Missing files are skipped and repeats ignored, as kubectl does.
      if (file.empty() || !std::filesystem::exists(file)) continue;
      if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
    }
    if (files.empty()) {
      return common::invalidError("KUBECONFIG=" + source.kubeconfigEnv +
                                  ": none of its files exists");
    }
    return files;
  }
  if (source.home.empty()) {
    return common::invalidError("no kubeconfig: neither --kubeconfig, KUBECONFIG nor HOME is set");
  }
  const std::string file = source.home + "/.kube/config";
  if (!std::filesystem::exists(file)) return fileError(file, "file not found");
  return std::vector<std::string>{file};
}

std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ":") + f;
  return out;
}

}  // namespace

common::Result<RestConfig> loadKubeconfig(const KubeconfigSource& source) {
  HETBENCH_ASSIGN_OR_RETURN(std::vector<std::string> files, kubeconfigFiles(source));
  Merged merged;
  for (const auto& file : files) HETBENCH_RETURN_IF_ERROR(mergeFile(file, &merged));

  std::string contextName = source.context;
  std::string namedBy = joined(merged.files) + ": --context";
  if (contextName.empty()) {
    if (merged.currentContext.empty()) {
      return common::invalidError(joined(merged.files) +
                                  ": no context: current-context is not set and no context "
                                  "was given");
    }
    contextName = merged.currentContext;
    namedBy = merged.currentContextFile + ": current-context";
  }
  const auto context = merged.contexts.find(contextName);
  if (context == merged.contexts.end()) {
    return common::invalidError(namedBy + ": context " + inQuotes(contextName) + " not found");
  }
  const Entry& ctx = context->second;
  if (!ctx.body.IsMap()) return entryError(ctx, "", "must be a mapping");

  RestConfig config;
  config.contextName = contextName;
  HETBENCH_ASSIGN_OR_RETURN(std::string clusterName, internal::stringField(ctx, "cluster"));
  HETBENCH_ASSIGN_OR_RETURN(std::string userName, internal::stringField(ctx, "user"));
  HETBENCH_ASSIGN_OR_RETURN(std::string ns, internal::stringField(ctx, "namespace"));
  if (!ns.empty()) config.namespace_ = ns;

  if (clusterName.empty()) return entryError(ctx, "cluster", "missing");
  const auto cluster = merged.clusters.find(clusterName);
  if (cluster == merged.clusters.end()) {
    return entryError(ctx, "cluster", "cluster " + inQuotes(clusterName) + " not found");
  }
  HETBENCH_RETURN_IF_ERROR(internal::applyCluster(cluster->second, &config));

  // A context without a user is anonymous, as in client-go.
  if (!userName.empty()) {
    const auto user = merged.users.find(userName);
    if (user == merged.users.end()) {
      return entryError(ctx, "user", "user " + inQuotes(userName) + " not found");
    }
    HETBENCH_RETURN_IF_ERROR(internal::applyUser(user->second, &config));
  }
  return config;
}

common::Result<RestConfig> inClusterConfig(const std::map<std::string, std::string>& environment,
                                           const std::string& serviceAccountDir) {
  const auto lookup = [&](const char* name) {
    const auto it = environment.find(name);
    return it == environment.end() ? std::string() : it->second;
  };
  std::string host = lookup("KUBERNETES_SERVICE_HOST");
  const std::string port = lookup("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return common::invalidError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "defined");
  }
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";

  RestConfig config;
  config.server = "https://" + host + ":" + port;
  const auto readRequired = [&](const char* name) -> common::Result<std::string> {
    const std::string path = serviceAccountDir + "/" + name;
    auto content = internal::readFile(path);
    if (!content) {
      return common::invalidError("in-cluster config: " + path + ": " + content.status().message());
    }
    return content;
  };
  // The token is only checked here: bound service-account tokens rotate, so the provider
  // re-reads the file.
  HETBENCH_ASSIGN_OR_RETURN(std::string token, readRequired("token"));
  if (internal::trim(token).empty()) {
    return common::invalidError("in-cluster config: " + serviceAccountDir + "/token: empty");
  }
  config.tokenFile = serviceAccountDir + "/token";
  HETBENCH_ASSIGN_OR_RETURN(config.caPem, readRequired("ca.crt"));
  if (!internal::looksLikePemCertificate(config.caPem)) {
    return common::invalidError("in-cluster config: " + serviceAccountDir +
                                "/ca.crt: not a PEM certificate");
  }
  // client-go's in-cluster namespace: $POD_NAMESPACE, then the namespace file, then "default".
  std::string ns = lookup("POD_NAMESPACE");
  if (ns.empty()) {
    auto file = internal::readFile(serviceAccountDir + "/namespace");
    if (file) ns = internal::trim(*file);
  }
  if (!ns.empty()) config.namespace_ = ns;
  return config;
}

}  // namespace hetbench::kube
