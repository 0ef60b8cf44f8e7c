#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::controller::testing {

/// A child process of the test, its stdout and stderr in a file. Destroying it ends the process
/// (SIGTERM, then SIGKILL after a bound) and reaps it, and prints its log when the test has
/// failed. The child also gets SIGKILL should the test process die first.
class ChildProcess {
 public:
  /// Runs `program` with `args`.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               std::filesystem::path logFile);
  virtual ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Sends SIGTERM and waits for the exit; the exit status (128 + signal number when a signal
  /// ended it), or nullopt when it still runs after `timeout`.
  std::optional<int> terminate(std::chrono::milliseconds timeout);
  /// SIGKILL, then reaps it.
  void kill();
  bool running();

  bool logContains(std::string_view text) const;
  std::string log() const;

 protected:
  /// Reaps the child if it has exited; the exit status once it has.
  std::optional<int> poll();

 private:
  std::string program_;
  std::filesystem::path logFile_;
  pid_t pid_ = -1;
  std::optional<int> exitStatus_;
};

}  // namespace hetbench::controller::testing
