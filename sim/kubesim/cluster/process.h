#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/container_log.h"
#include "hetbench/common/status.h"

namespace hetbench::kubesim {

/// What kubesim's kubelet runs for one container.
struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> env;   // "KEY=VALUE", the whole environment of the process
  std::string workingDir;         // must exist
};

/// A container's process: its own process group, stdout and stderr captured line by line into
/// a ContainerLog (as the container runtime does), terminated with SIGTERM then SIGKILL.
class Process {
 public:
  virtual ~Process() = default;

  /// Starts the process. A command that cannot be executed (not found, not executable) is
  /// NotFound/Invalid with the message a container runtime gives, e.g.
  /// `exec: "nope": executable file not found in $PATH`, and nothing keeps running.
  static common::Result<std::unique_ptr<Process>> start(const ProcessSpec& spec,
                                                        std::shared_ptr<ContainerLog> log);

  virtual int pid() const = 0;
  /// The exit code once the process has exited (128 + signal number when killed by a signal),
  /// after all of its output has reached the log; nullopt while it runs. Never blocks.
  virtual std::optional<int> exitCode() = 0;
  /// Sends SIGTERM to the process group, then SIGKILL after `grace` if it still runs. Returns
  /// at once; the escalation happens in the background.
  virtual void terminate(std::chrono::milliseconds grace) = 0;
  /// Waits for the exit (at most `timeout`); returns the exit code if it exited.
  virtual std::optional<int> wait(std::chrono::milliseconds timeout) = 0;
};

}  // namespace hetbench::kubesim
