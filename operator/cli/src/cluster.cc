#include "hetbench/cli/cluster.h"

#include <cstdlib>
#include <filesystem>

namespace hetbench::cli {

void ClusterFlags::addTo(common::FlagSet& flags, bool listing) {
  flags.addString("kubeconfig", &kubeconfig,
                  "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config).");
  flags.addString("context", &context, "The kubeconfig context (default: current-context).");
  flags.addString("namespace", &ns,
                  "The namespace (default: the context's namespace, else \"default\").");
  flags.setShorthand("namespace", 'n');
  if (listing) {
    flags.addBool("all-namespaces", &allNamespaces, "Runs of every namespace.");
    flags.setShorthand("all-namespaces", 'A');
  }
}

KubeEnvironment KubeEnvironment::current() {
  const char* kubeconfig = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  return {kubeconfig != nullptr ? kubeconfig : "", home != nullptr ? home : ""};
}

std::string chooseNamespace(std::string_view flag, std::string_view contextNamespace) {
  if (!flag.empty()) return std::string(flag);
  if (!contextNamespace.empty()) return std::string(contextNamespace);
  return "default";
}

bool hasKubeconfig(const ClusterFlags& flags, const KubeEnvironment& env) {
  if (!flags.kubeconfig.empty() || !env.kubeconfig.empty()) return true;
  std::error_code ec;
  return !env.home.empty() && std::filesystem::exists(env.home + "/.kube/config", ec);
}

common::Result<kube::RestConfig> clusterConfig(const ClusterFlags& flags,
                                               const KubeEnvironment& env) {
  return kube::loadKubeconfig({flags.kubeconfig, env.kubeconfig, env.home, flags.context});
}

common::Result<std::string> resolveNamespace(const ClusterFlags& flags,
                                             const KubeEnvironment& env) {
  if (!flags.ns.empty() || !hasKubeconfig(flags, env)) return chooseNamespace(flags.ns, "");
  HETBENCH_ASSIGN_OR_RETURN(kube::RestConfig config, clusterConfig(flags, env));
  return chooseNamespace("", config.namespace_);
}

}  // namespace hetbench::cli
