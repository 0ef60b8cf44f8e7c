#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::controller::testing {

/// One hetbench-operator child process, its stdout and stderr in a file. Destroying it ends the
/// process (SIGTERM, then SIGKILL after a bound) and reaps it, and prints its log when the test
/// has failed. The child also gets SIGKILL should the test process die first.
class OperatorProcess {
 public:
  OperatorProcess(const std::vector<std::string>& args, std::filesystem::path logFile);
  ~OperatorProcess();
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  /// Waits until the log names the health probes' port and /readyz answers 200.
  ::testing::AssertionResult waitReady(std::chrono::milliseconds timeout);
  /// The HTTP status of GET /readyz; 0 when it cannot be asked.
  int readyz() const;
  /// The body of GET /metrics; nullopt when it cannot be had (or metrics are off).
  std::optional<std::string> scrapeMetrics() const;

  /// Sends SIGTERM and waits for the exit; the exit status (128 + signal number when a signal
  /// ended it), or nullopt when it still runs after `timeout`.
  std::optional<int> terminate(std::chrono::milliseconds timeout);
  /// SIGKILL, then reaps it.
  void kill();
  bool running();

  bool logContains(std::string_view text) const;
  std::string log() const;

 private:
  /// Reaps the child if it has exited; the exit status once it has.
  std::optional<int> poll();

  std::filesystem::path logFile_;
  pid_t pid_ = -1;
  std::optional<int> exitStatus_;
  std::uint16_t probePort_ = 0;
  std::uint16_t metricsPort_ = 0;
};

}  // namespace hetbench::controller::testing
