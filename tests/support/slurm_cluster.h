#pragma once

// A real Slurm of one or more nodes (Debian 12's Slurm 22.05 packages) on 127.0.0.1 for the tests
// of the Slurm target: munged, slurmctld, slurmd and slurmrestd started by the test, in a temporary
// directory written by scripts/slurm-local config, and stopped with every job when it ends.
//
// As root, the daemons run as root except slurmrestd, which refuses root and runs as nobody;
// tokens are for nobody and jobs submitted through REST run as nobody. As another user every
// daemon, and every job, runs as that user (tried on Debian 12 as nobody); should Slurm refuse
// that on a machine, start() fails and says so.
//
// The daemons get SIGKILL when the thread that called start() ends (PR_SET_PDEATHSIG), so a
// test that crashes leaves none running. What outlives a test process killed with SIGKILL, which
// runs no destructor, is a running job's slurmstepd and the job's processes (slurmd detaches
// them from itself) and the cluster's directory; they run until the job ends by itself, or
// until the next start() in any test process removes them (the directory's owner file names a
// process that no longer exists).

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::testing_support {

struct SlurmClusterOptions {
  /// slurmd daemons on this machine, node1 to nodeN, each with `cpus` and `gpus`.
  int nodes = 1;
  int cpus = 4;
  int gpus = 2;  // stand-in device files: jobs can ask for gres gpu:N, nothing more
  std::string partition = "gpu";
  /// How long start() and startRest() wait for the daemons to answer.
  std::chrono::seconds startTimeout{60};
};

/// One running cluster; the destructor cancels the jobs, stops the daemons and kills whatever
/// process of this cluster remains, then removes its directory.
class SlurmCluster {
 public:
  /// Writes the configuration (scripts/slurm-local config), starts the daemons and waits until
  /// slurmctld answers `scontrol ping`, the node is idle and slurmrestd answers a ping with a
  /// token. Errors carry the tails of the daemons' logs.
  static common::Result<std::unique_ptr<SlurmCluster>> start(
      const SlurmClusterOptions& options = {});
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  /// http://127.0.0.1:PORT, slurmrestd's address.
  std::string restUrl() const;
  std::uint16_t restPort() const { return restPort_; }
  /// The user whose tokens slurmrestd accepts (X-SLURM-USER-NAME); REST jobs run as this user.
  std::string user() const { return restUser_; }
  /// A JWT for user() (X-SLURM-USER-TOKEN), from scripts/slurm-local token.
  common::Result<std::string> token(
      std::chrono::seconds lifespan = std::chrono::seconds(600)) const;
  /// A directory that jobs can write and the test can read.
  std::string outputDir() const { return directory_ + "/output"; }
  std::string partition() const { return partition_; }
  /// The cluster's directory: slurm.conf, env, log/, output/.
  std::string directory() const { return directory_; }

  /// Runs a Slurm client (scontrol, squeue, sbatch, scancel, sinfo...) with this cluster's
  /// SLURM_CONF: its stdout, or an error with its stderr when it exits non-zero.
  common::Result<std::string> command(const std::vector<std::string>& argv) const;

  /// Stops slurmrestd (its port then refuses connections) and starts it again on the same port,
  /// waiting until it answers.
  common::Status stopRest();
  common::Status startRest();

  /// Waits until no job is pending, running or completing.
  common::Status waitIdle(std::chrono::seconds timeout);

  /// The last lines of every daemon's log, for a failure message.
  std::string logTails() const;

 private:
  struct Daemon {
    std::string name;
    pid_t pid = -1;
  };

  SlurmCluster() = default;
  common::Status launch(const SlurmClusterOptions& options);
  common::Result<pid_t> spawnDaemon(const std::string& name, const std::vector<std::string>& argv,
                                    bool asRestUser);
  /// An error when a daemon has exited, naming it.
  common::Status checkAlive();
  common::Status waitFor(const std::string& what, std::chrono::steady_clock::time_point deadline,
                         const std::function<bool()>& ready);
  common::Status startRestUntil(std::chrono::steady_clock::time_point deadline);
  bool restAnswers() const;
  void stopDaemon(Daemon& daemon);
  void stopAll();

  std::string directory_;
  std::string slurmConf_;
  std::string restUser_;
  std::string partition_;
  std::uint16_t restPort_ = 0;
  std::chrono::seconds startTimeout_{60};
  uid_t restUid_ = 0;
  gid_t restGid_ = 0;
  bool dropToRestUser_ = false;
  std::vector<Daemon> daemons_;  // munged, slurmctld, slurmd, slurmrestd: started in that order
};

/// The live processes (not zombies) that belong to the cluster in `directory`: those whose
/// command line or environment names it (the daemons, slurmstepd, the jobs, which inherit
/// SLURM_CONF) and their descendants. Readable only for this user's processes unless root.
std::vector<pid_t> processesOf(const std::string& directory);

/// True when something accepts a TCP connection on 127.0.0.1:`port`.
bool portOpen(std::uint16_t port);

}  // namespace hetbench::testing_support
