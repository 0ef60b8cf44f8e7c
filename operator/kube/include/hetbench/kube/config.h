#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::kube {

/// A client.authentication.k8s.io exec credential plugin, as a kubeconfig user declares it.
struct ExecConfig {
  std::string apiVersion;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactiveMode;  // Never, IfAvailable, Always; hetbench never prompts
};

/// Everything needed to reach one API server as one user: the merged result of a kubeconfig
/// context or of the in-cluster service account.
struct RestConfig {
  std::string server;  // "https://10.0.0.1:6443", no trailing slash
  std::string caPem;   // empty: the system's trust store
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;
  std::string token;      // a static bearer token
  std::string tokenFile;  // re-read periodically (bound service-account tokens rotate)
  std::string clientCertPem;
  std::string clientKeyPem;
  std::optional<ExecConfig> exec;
  std::string namespace_ = "default";  // the context's namespace
  std::string contextName;
};

/// Where to find a kubeconfig, as kubectl resolves it.
struct KubeconfigSource {
  std::string explicitPath;   // --kubeconfig; wins over everything
  std::string kubeconfigEnv;  // $KUBECONFIG: files separated by ':', merged first-wins
  std::string home;           // $HOME, for ~/.kube/config
  std::string context;        // --context; empty: current-context
};

/// Loads and merges kubeconfig files as kubectl does (the first file to set a map entry or
/// current-context wins; relative paths resolve against the file that names them), then
/// resolves the context. Errors are Invalid with one message naming the file and the field,
/// e.g. `/home/u/.kube/config: users[0].user.client-key: file "/x/key.pem" not found`.
common::Result<RestConfig> loadKubeconfig(const KubeconfigSource& source);

/// The in-cluster config of a pod: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT, the
/// service-account token file, CA and namespace under `serviceAccountDir`
/// (/var/run/secrets/kubernetes.io/serviceaccount in a pod).
common::Result<RestConfig> inClusterConfig(
    const std::map<std::string, std::string>& environment,
    const std::string& serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace hetbench::kube
