#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/child_process.h"

namespace hetbench::controller::testing {

using testing_support::ChildProcess;

/// One hetbench-operator child process, with the ports it logs.
class OperatorProcess : public ChildProcess {
 public:
  OperatorProcess(const std::vector<std::string>& args, std::filesystem::path logFile);

  /// Waits until the log names the health probes' port and /readyz answers 200.
  ::testing::AssertionResult waitReady(std::chrono::milliseconds timeout);
  /// The HTTP status of GET /readyz; 0 when it cannot be asked.
  int readyz() const;
  /// The body of GET /metrics; nullopt when it cannot be had (or metrics are off).
  std::optional<std::string> scrapeMetrics() const;
  /// The port of /metrics, once waitReady has seen it; 0 before (or when metrics are off).
  std::uint16_t metricsPort() const { return metricsPort_; }

 private:
  std::uint16_t probePort_ = 0;
  std::uint16_t metricsPort_ = 0;
};

}  // namespace hetbench::controller::testing
