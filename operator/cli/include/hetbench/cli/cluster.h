#pragma once

#include <string>
#include <string_view>

#include "hetbench/common/flags.h"
#include "hetbench/common/status.h"
#include "hetbench/kube/config.h"

namespace hetbench::cli {

/// kubectl's flags for reaching a cluster, shared by every command that reads one.
struct ClusterFlags {
  std::string kubeconfig;
  std::string context;
  std::string ns;  // empty: the context's namespace
  bool allNamespaces = false;

  /// Adds --kubeconfig, --context, -n/--namespace and, for a command that lists,
  /// -A/--all-namespaces.
  void addTo(common::FlagSet& flags, bool listing);
};

/// Where kubectl looks for a kubeconfig besides --kubeconfig: $KUBECONFIG and $HOME.
struct KubeEnvironment {
  std::string kubeconfig;
  std::string home;

  /// This process' environment.
  static KubeEnvironment current();
};

/// The namespace a command works in, as kubectl picks it: the flag's, else the context's
/// (empty when there is no kubeconfig), else "default".
std::string chooseNamespace(std::string_view flag, std::string_view contextNamespace);

/// Whether there is a kubeconfig to read: --kubeconfig, $KUBECONFIG or an existing
/// ~/.kube/config.
bool hasKubeconfig(const ClusterFlags& flags, const KubeEnvironment& env);

/// The client config of the flags' context (kube::loadKubeconfig's errors).
common::Result<kube::RestConfig> clusterConfig(const ClusterFlags& flags,
                                               const KubeEnvironment& env);

/// The flags' namespace (chooseNamespace), reading the kubeconfig only when -n is not given and
/// there is one; a kubeconfig that cannot be read is an error, as in kubectl.
common::Result<std::string> resolveNamespace(const ClusterFlags& flags, const KubeEnvironment& env);

}  // namespace hetbench::cli
