#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
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
  /// How /metrics is reached: over HTTPS checked against `caPem`, with the bearer token that
  /// `token` gives when it is first needed. Without it, plain HTTP (--metrics-secure=false).
  void setMetricsAccess(std::string caPem, std::function<std::string()> token);
  /// The body of GET /metrics; nullopt when it cannot be had (or metrics are off).
  std::optional<std::string> scrapeMetrics() const;
  /// The port of /metrics, once waitReady has seen it; 0 before (or when metrics are off).
  std::uint16_t metricsPort() const { return metricsPort_; }
  /// The port of the log server, once waitReady has seen it; 0 before (or when it is off).
  std::uint16_t logsPort() const { return logsPort_; }

 private:
  std::uint16_t probePort_ = 0;
  std::uint16_t metricsPort_ = 0;
  std::uint16_t logsPort_ = 0;
  std::string metricsCaPem_;
  std::function<std::string()> metricsToken_;
};

}  // namespace hetbench::controller::testing
