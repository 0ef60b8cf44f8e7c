#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/kube/config.h"

namespace hetbench::kube {

/// What a request presents: a bearer token and/or a client certificate.
struct Credentials {
  std::string token;
  std::string clientCertPem;
  std::string clientKeyPem;
};

/// Supplies current credentials. Static tokens never change; token files are re-read after a
/// period; exec plugins are run again once their credential expires. Thread-safe.
class CredentialProvider {
 public:
  virtual ~CredentialProvider() = default;
  virtual common::Result<Credentials> get() = 0;
  /// Called after a 401: the next get() must not reuse cached credentials.
  virtual void invalidate() = 0;
};

/// Builds the provider a RestConfig asks for (exec plugin, token file, static token or
/// certificate). `tokenFileRefresh` is how long a token file's content is trusted.
std::unique_ptr<CredentialProvider> makeCredentialProvider(
    const RestConfig& config, const common::Clock& clock,
    std::chrono::seconds tokenFileRefresh = std::chrono::seconds(60));

/// Runs an exec plugin once: the ExecCredential request on KUBERNETES_EXEC_INFO, the
/// ExecCredential response on stdout (status.token, clientCertificateData/clientKeyData,
/// expirationTimestamp). Errors name the command and quote its stderr.
struct ExecResult {
  Credentials credentials;
  std::optional<common::WallTime> expiry;
};
common::Result<ExecResult> runExecPlugin(const ExecConfig& exec, const std::string& server,
                                         std::chrono::seconds timeout = std::chrono::seconds(30));

}  // namespace hetbench::kube
