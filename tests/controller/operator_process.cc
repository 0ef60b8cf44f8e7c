#include "operator_process.h"

#include <charconv>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "http/test_client.h"

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kProbesLine = "health probes listening on ";
constexpr std::string_view kMetricsLine = "metrics listening on ";
constexpr std::string_view kLogsLine = "logs served on ";
constexpr auto kPollInterval = 20ms;

/// The port of "<prefix>HOST:PORT" among JSON log lines; 0 before it is logged.
std::uint16_t portIn(const std::string& log, std::string_view prefix) {
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (!entry.is_object() || !entry.contains("msg") || !entry["msg"].is_string()) continue;
    const std::string message = entry["msg"].get<std::string>();
    if (!message.starts_with(prefix)) continue;
    const std::size_t colon = message.rfind(':');
    std::uint16_t port = 0;
    if (colon != std::string::npos)
      std::from_chars(message.data() + colon + 1, message.data() + message.size(), port);
    return port;
  }
  return 0;
}

}  // namespace

OperatorProcess::OperatorProcess(const std::vector<std::string>& args,
                                 std::filesystem::path logFile)
    : ChildProcess(HETBENCH_OPERATOR_BINARY, args, {}, std::move(logFile)) {}

::testing::AssertionResult OperatorProcess::waitReady(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::optional<int> exited = poll()) {
      return ::testing::AssertionFailure() << "hetbench-operator exited with status " << *exited;
    }
    if (probePort_ == 0) probePort_ = portIn(output(), kProbesLine);
    if (metricsPort_ == 0) metricsPort_ = portIn(output(), kMetricsLine);
    if (logsPort_ == 0) logsPort_ = portIn(output(), kLogsLine);
    if (probePort_ != 0 && readyz() == 200) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(kPollInterval);
  }
  return ::testing::AssertionFailure() << "hetbench-operator not ready within " << timeout.count()
                                       << " ms (probe port " << probePort_ << ")";
}

int OperatorProcess::readyz() const {
  if (probePort_ == 0) return 0;
  std::optional<http::testing::Response> response = http::testing::get(probePort_, "/readyz");
  return response ? response->status : 0;
}

void OperatorProcess::setMetricsAccess(std::string caPem, std::function<std::string()> token) {
  metricsCaPem_ = std::move(caPem);
  metricsToken_ = std::move(token);
}

std::optional<std::string> OperatorProcess::scrapeMetrics() const {
  if (metricsPort_ == 0) return std::nullopt;
  std::optional<http::testing::Response> response;
  if (metricsToken_) {
    http::testing::TlsClientOptions tls;
    tls.caPem = metricsCaPem_;
    tls.verifyIp = "127.0.0.1";
    response = http::testing::getTls(metricsPort_, "/metrics", tls,
                                     "Authorization: Bearer " + metricsToken_() + "\r\n");
  } else {
    response = http::testing::get(metricsPort_, "/metrics");
  }
  if (!response || response->status != 200) return std::nullopt;
  return response->body;
}

}  // namespace hetbench::controller::testing
