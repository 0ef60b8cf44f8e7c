#pragma once

#include <string>

#include "hetbench/common/status.h"
#include "hetbench/http/tls.h"

namespace hetbench::kubesim {

/// What a kubeconfig for kubesim says: the server URL, its CA (with TLS), and the credentials.
struct KubeconfigSpec {
  std::string server;  // "http://127.0.0.1:PORT" or "https://..."
  std::string caPem;   // empty without TLS
  std::string token;
  std::string clientCertPem;
  std::string clientKeyPem;
};

/// Renders a kubeconfig (context "kubesim", namespace "default") as YAML.
std::string renderKubeconfig(const KubeconfigSpec& spec);

/// Writes `content` to `path` atomically (a temporary file renamed into place), mode 0600.
common::Status writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace hetbench::kubesim
