#include "hetbench/kube/credentials.h"

#include "files.h"

namespace hetbench::kube {
namespace {

/// An exec credential is renewed this long before it expires, so that a request does not
/// leave with a credential that expires on the way.
constexpr std::chrono::seconds kExpiryMargin(10);

/// A bearer token and/or client certificate that never change.
class StaticCredentialProvider final : public CredentialProvider {
 public:
  explicit StaticCredentialProvider(Credentials credentials)
      : credentials_(std::move(credentials)) {}
  common::Result<Credentials> get() override { return credentials_; }
  void invalidate() override {}

 private:
  const Credentials credentials_;
};

/// A token file re-read once `refresh` has passed or after invalidate(). As client-go's cached
/// file token source does, a file that becomes unreadable or empty keeps the last good token
/// (the static token of the config counts as one) and is retried on the next get(); the error
/// is returned only while there never was a token.
class TokenFileCredentialProvider final : public CredentialProvider {
 public:
  TokenFileCredentialProvider(const RestConfig& config, const common::Clock& clock,
                              std::chrono::seconds refresh)
      : path_(config.tokenFile), clock_(clock), refresh_(refresh) {
    credentials_.token = config.token;
    credentials_.clientCertPem = config.clientCertPem;
    credentials_.clientKeyPem = config.clientKeyPem;
  }

  common::Result<Credentials> get() override {
    std::lock_guard lock(mu_);
    const common::MonoTime now = clock_.monotonic();
    if (readAt_ && now - *readAt_ < refresh_) return credentials_;
    auto content = internal::readFile(path_);
    std::string token = content ? internal::trim(*content) : std::string();
    if (!token.empty()) {
      credentials_.token = std::move(token);
      readAt_ = now;
      return credentials_;
    }
    if (!credentials_.token.empty()) return credentials_;
    const std::string why = content ? "empty" : content.status().message();
    return common::unavailableError("token file \"" + path_ + "\": " + why);
  }

  void invalidate() override {
    std::lock_guard lock(mu_);
    readAt_.reset();
  }

 private:
  const std::string path_;
  const common::Clock& clock_;
  const std::chrono::seconds refresh_;
  std::mutex mu_;
  Credentials credentials_;
  std::optional<common::MonoTime> readAt_;  // when the file last gave a token
};

/// Runs an exec plugin and keeps its credential until shortly before it expires (forever when
/// it names no expiry) or until invalidate(). The lock is held while the plugin runs so that
/// concurrent callers share one run.
class ExecCredentialProvider final : public CredentialProvider {
 public:
  ExecCredentialProvider(ExecConfig exec, std::string server, const common::Clock& clock)
      : exec_(std::move(exec)), server_(std::move(server)), clock_(clock) {}

  common::Result<Credentials> get() override {
    std::lock_guard lock(mu_);
    if (cached_ && (!cached_->expiry || clock_.now() < *cached_->expiry - kExpiryMargin)) {
      return cached_->credentials;
    }
    cached_.reset();
    HETBENCH_ASSIGN_OR_RETURN(ExecResult result, runExecPlugin(exec_, server_));
    cached_ = std::move(result);
    return cached_->credentials;
  }

  void invalidate() override {
    std::lock_guard lock(mu_);
    cached_.reset();
  }

 private:
  const ExecConfig exec_;
  const std::string server_;
  const common::Clock& clock_;
  std::mutex mu_;
  std::optional<ExecResult> cached_;
};

}  // namespace

std::unique_ptr<CredentialProvider> makeCredentialProvider(const RestConfig& config,
                                                           const common::Clock& clock,
                                                           std::chrono::seconds tokenFileRefresh) {
  if (!config.tokenFile.empty()) {
    return std::make_unique<TokenFileCredentialProvider>(config, clock, tokenFileRefresh);
  }
  // A static token wins over an exec plugin, as in client-go (the plugin is not run when the
  // request already carries an Authorization header).
  if (config.exec && config.token.empty()) {
    return std::make_unique<ExecCredentialProvider>(*config.exec, config.server, clock);
  }
  return std::make_unique<StaticCredentialProvider>(
      Credentials{config.token, config.clientCertPem, config.clientKeyPem});
}

}  // namespace hetbench::kube
