#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/slurm/dialect.h"
#include "hetbench/slurm/job.h"

namespace hetbench::slurm {

/// One Slurm cluster through slurmrestd. Errors are answerStatus's (dialect.h), with the
/// request in the message; a slurmrestd that cannot be reached is Unavailable.
class SlurmApi {
 public:
  virtual ~SlurmApi() = default;
  /// Submits a batch job. Never retried: when the answer is lost (Unavailable) the job may
  /// exist, so a caller looks for it by name or comment in jobs() before submitting again.
  virtual common::Result<Submitted> submit(const JobRequest& request) = 0;
  /// NotFound once slurmctld has forgotten the job (MinJobAge after it ended).
  virtual common::Result<JobInfo> job(std::int64_t id) = 0;
  /// Every job slurmctld knows, or with `changedSince`, none unless one changed after it.
  virtual common::Result<std::vector<JobInfo>> jobs(
      std::optional<common::WallTime> changedSince = std::nullopt) = 0;
  /// Cancels a job; Ok when it has already ended.
  virtual common::Status cancel(std::int64_t id) = 0;
  virtual common::Result<std::vector<NodeInfo>> nodes() = 0;
  virtual common::Result<std::vector<PartitionInfo>> partitions() = 0;
  /// Ok when slurmrestd answers and reaches slurmctld.
  virtual common::Status ping() = 0;
};

/// Who the requests are from: slurmrestd's `rest_auth/jwt` headers X-SLURM-USER-NAME and
/// X-SLURM-USER-TOKEN.
struct Credentials {
  std::string user;
  std::string token;
};
/// Read before every request, so that a renewed token is used as soon as it is stored.
using CredentialSource = std::function<common::Result<Credentials>()>;

struct ClientOptions {
  std::string url;  // slurmrestd's root: http://host:6820 or https://host/slurmrestd
  ApiVersion version = ApiVersion::kV0_0_42;
  CredentialSource credentials;
  std::string caPem;  // the CA of an HTTPS URL; the system's when empty
  bool insecureSkipTlsVerify = false;
  std::chrono::milliseconds timeout{10000};
};

/// A client over HTTP(S); Invalid for a URL that is not http:// or https://.
common::Result<std::unique_ptr<SlurmApi>> makeSlurmClient(ClientOptions options);

}  // namespace hetbench::slurm
