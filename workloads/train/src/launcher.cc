#include "hetbench/train/launcher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <stdexcept>

extern char** environ;

namespace hetbench::train {
namespace {

/// How long the other ranks get after a failure before SIGKILL.
constexpr std::chrono::seconds kStopGrace(30);

sigset_t launcherSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

/// This process' environment with `overrides` set over it, as posix_spawn takes it.
std::vector<std::string> environmentWith(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (overrides.count(text.substr(0, text.find('='))) == 0) {
      result.push_back(text);
    }
  }
  for (const auto& [name, value] : overrides) {
    result.push_back(name + "=" + value);
  }
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> result;
  for (std::string& text : texts) {
    result.push_back(text.data());
  }
  result.push_back(nullptr);
  return result;
}

/// The exit status a wait status stands for, as a shell reports it.
int exitCode(int status) {
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/// The started processes, reaped as they end.
class LocalRanks {
 public:
  ~LocalRanks() {
    // Only after an exception: nothing is left running.
    signalAll(SIGKILL);
    while (!running_.empty()) {
      reap(/*block=*/true);
    }
  }

  void start(const std::string& program, const std::vector<std::string>& args,
             const std::map<std::string, std::string>& environment) {
    std::vector<std::string> argvText{program};
    argvText.insert(argvText.end(), args.begin(), args.end());
    std::vector<std::string> envText = environmentWith(environment);
    std::vector<char*> argv = pointers(argvText);
    std::vector<char*> envp = pointers(envText);
    // The child starts with no signal blocked and the default actions.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    const sigset_t defaults = launcherSignals();
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    const int error =
        posix_spawn(&pid, program.c_str(), nullptr, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    if (error != 0) {
      throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
    }
    running_.insert(pid);
  }

  bool empty() const { return running_.empty(); }

  void signalAll(int signal) const {
    for (const pid_t pid : running_) {
      ::kill(pid, signal);
    }
  }

  /// Reaps the processes that have ended; returns the first failure's exit code among them.
  std::optional<int> reap(bool block) {
    std::optional<int> failure;
    while (!running_.empty()) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, block ? 0 : WNOHANG);
      if (pid <= 0) {
        if (pid < 0 && errno == EINTR) {
          continue;
        }
        break;
      }
      block = false;
      if (running_.erase(pid) == 0) {
        continue;  // not one of ours
      }
      if (!failure && exitCode(status) != 0) {
        failure = exitCode(status);
      }
    }
    return failure;
  }

 private:
  std::set<pid_t> running_;
};

}  // namespace

std::map<std::string, std::string> localRankEnvironment(const distributed::World& node, int procs,
                                                        int local) {
  return {
      {"WORLD_SIZE", std::to_string(node.size * procs)},
      {"RANK", std::to_string(node.rank * procs + local)},
      {"LOCAL_RANK", std::to_string(local)},
      {"LOCAL_WORLD_SIZE", std::to_string(procs)},
      {"MASTER_ADDR", node.masterAddr.empty() ? "127.0.0.1" : node.masterAddr},
      {"MASTER_PORT", std::to_string(node.masterPort)},
  };
}

void blockLauncherSignals() {
  const sigset_t set = launcherSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void unblockLauncherSignals() {
  const sigset_t set = launcherSignals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

int launchLocalRanks(const std::string& program, const std::vector<std::string>& args,
                     const distributed::World& node, int procs, std::ostream& err) {
  if (procs < 1) {
    throw std::invalid_argument("a node needs at least one process, not " + std::to_string(procs));
  }
  blockLauncherSignals();
  LocalRanks ranks;
  for (int local = 0; local < procs; ++local) {
    ranks.start(program, args, localRankEnvironment(node, procs, local));
  }
  err << "hetbench-train: started ranks " << node.rank * procs << " to "
      << node.rank * procs + procs - 1 << " of " << node.size * procs << " on this node"
      << std::endl;

  const sigset_t signals = launcherSignals();
  std::optional<int> failure;
  bool stopping = false;  // SIGTERM sent after a failure; SIGKILL at killAt
  std::chrono::steady_clock::time_point killAt;
  while (!ranks.empty()) {
    siginfo_t info{};
    int signal = 0;
    if (stopping) {
      const auto left = std::max(std::chrono::steady_clock::duration::zero(),
                                 killAt - std::chrono::steady_clock::now());
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left);
      timespec timeout{
          static_cast<time_t>(seconds.count()),
          static_cast<long>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(left - seconds).count())};
      signal = ::sigtimedwait(&signals, &info, &timeout);
      if (signal < 0 && errno == EAGAIN) {
        err << "hetbench-train: ranks still running " << kStopGrace.count()
            << " s after SIGTERM: killing them" << std::endl;
        ranks.signalAll(SIGKILL);
        stopping = false;
        continue;
      }
    } else {
      signal = ::sigwaitinfo(&signals, &info);
    }
    if (signal == SIGTERM || signal == SIGINT) {
      ranks.signalAll(signal);
      continue;
    }
    // SIGCHLD, or an interruption: reap whatever has ended.
    const std::optional<int> failed = ranks.reap(/*block=*/false);
    if (failed && !failure) {
      failure = failed;
      if (!ranks.empty()) {
        err << "hetbench-train: a rank failed with exit status " << *failed
            << ": stopping the others" << std::endl;
        ranks.signalAll(SIGTERM);
        stopping = true;
        killAt = std::chrono::steady_clock::now() + kStopGrace;
      }
    }
  }
  return failure.value_or(0);
}

}  // namespace hetbench::train
