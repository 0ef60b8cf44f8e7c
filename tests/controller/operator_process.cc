#include "operator_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
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
constexpr auto kPollInterval = 20ms;
constexpr auto kTerminateBound = 5s;

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

int statusOf(int waitStatus) {
  if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
  return -1;
}

}  // namespace

OperatorProcess::OperatorProcess(const std::vector<std::string>& args,
                                 std::filesystem::path logFile)
    : logFile_(std::move(logFile)) {
  std::vector<std::string> strings = {HETBENCH_OPERATOR_BINARY};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  const int logFd = ::open(logFile_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (logFd < 0 || devNull < 0) {
    ADD_FAILURE() << "cannot open " << logFile_ << " or /dev/null: " << std::strerror(errno);
    if (logFd >= 0) ::close(logFd);
    if (devNull >= 0) ::close(devNull);
    return;
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    // Only async-signal-safe calls from here on: the test process has other threads.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::dup2(devNull, 0) < 0 || ::dup2(logFd, 1) < 0 || ::dup2(logFd, 2) < 0) ::_exit(127);
    // kubesim's sockets and pipes, opened by other threads, must not stay open in the child.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const int forkErrno = errno;
  ::close(logFd);
  ::close(devNull);
  if (pid_ < 0) ADD_FAILURE() << "fork: " << std::strerror(forkErrno);
}

OperatorProcess::~OperatorProcess() {
  if (pid_ > 0 && !exitStatus_ && !terminate(kTerminateBound)) kill();
  if (::testing::Test::HasFailure()) {
    std::cerr << "---- hetbench-operator log " << logFile_.string() << " ----\n"
              << log() << "---- end of log ----\n";
  }
}

std::optional<int> OperatorProcess::poll() {
  if (exitStatus_ || pid_ <= 0) return exitStatus_;
  int waitStatus = 0;
  const pid_t done = ::waitpid(pid_, &waitStatus, WNOHANG);
  if (done == pid_) exitStatus_ = statusOf(waitStatus);
  return exitStatus_;
}

bool OperatorProcess::running() { return pid_ > 0 && !poll(); }

::testing::AssertionResult OperatorProcess::waitReady(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::optional<int> exited = poll()) {
      return ::testing::AssertionFailure() << "hetbench-operator exited with status " << *exited;
    }
    if (probePort_ == 0) probePort_ = portIn(log(), kProbesLine);
    if (metricsPort_ == 0) metricsPort_ = portIn(log(), kMetricsLine);
    if (probePort_ != 0 && readyz() == 200) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(kPollInterval);
  }
  return ::testing::AssertionFailure() << "hetbench-operator not ready within " << timeout.count()
                                       << " ms (probe port " << probePort_ << ")";
}

namespace {

std::optional<http::testing::Response> get(std::uint16_t port, const std::string& path) {
  if (port == 0) return std::nullopt;
  std::unique_ptr<http::testing::TestConnection> connection =
      http::testing::TestConnection::connect(port);
  if (!connection ||
      !connection->sendAll(http::testing::getRequest(path, "Connection: close\r\n"))) {
    return std::nullopt;
  }
  return connection->readResponse();
}

}  // namespace

int OperatorProcess::readyz() const {
  std::optional<http::testing::Response> response = get(probePort_, "/readyz");
  return response ? response->status : 0;
}

std::optional<std::string> OperatorProcess::scrapeMetrics() const {
  std::optional<http::testing::Response> response = get(metricsPort_, "/metrics");
  if (!response || response->status != 200) return std::nullopt;
  return response->body;
}

std::optional<int> OperatorProcess::terminate(std::chrono::milliseconds timeout) {
  if (pid_ <= 0 || poll()) return exitStatus_;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!poll() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(kPollInterval);
  return exitStatus_;
}

void OperatorProcess::kill() {
  if (pid_ <= 0 || poll()) return;
  ::kill(pid_, SIGKILL);
  int waitStatus = 0;
  while (::waitpid(pid_, &waitStatus, 0) < 0 && errno == EINTR) {
  }
  exitStatus_ = statusOf(waitStatus);
}

bool OperatorProcess::logContains(std::string_view text) const {
  return log().find(text) != std::string::npos;
}

std::string OperatorProcess::log() const {
  std::ifstream in(logFile_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hetbench::controller::testing
