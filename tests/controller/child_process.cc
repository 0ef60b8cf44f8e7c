#include "child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace hetbench::controller::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kPollInterval = 20ms;
constexpr auto kTerminateBound = 5s;

int statusOf(int waitStatus) {
  if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
  return -1;
}

}  // namespace

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           std::filesystem::path logFile)
    : program_(program), logFile_(std::move(logFile)) {
  std::vector<std::string> strings = {program};
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

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exitStatus_ && !terminate(kTerminateBound)) kill();
  if (::testing::Test::HasFailure()) {
    std::cerr << "---- " << program_ << " log " << logFile_.string() << " ----\n"
              << log() << "---- end of log ----\n";
  }
}

std::optional<int> ChildProcess::poll() {
  if (exitStatus_ || pid_ <= 0) return exitStatus_;
  int waitStatus = 0;
  const pid_t done = ::waitpid(pid_, &waitStatus, WNOHANG);
  if (done == pid_) exitStatus_ = statusOf(waitStatus);
  return exitStatus_;
}

bool ChildProcess::running() { return pid_ > 0 && !poll(); }

std::optional<int> ChildProcess::terminate(std::chrono::milliseconds timeout) {
  if (pid_ <= 0 || poll()) return exitStatus_;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!poll() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(kPollInterval);
  return exitStatus_;
}

void ChildProcess::kill() {
  if (pid_ <= 0 || poll()) return;
  ::kill(pid_, SIGKILL);
  int waitStatus = 0;
  while (::waitpid(pid_, &waitStatus, 0) < 0 && errno == EINTR) {
  }
  exitStatus_ = statusOf(waitStatus);
}

bool ChildProcess::logContains(std::string_view text) const {
  return log().find(text) != std::string::npos;
}

std::string ChildProcess::log() const {
  std::ifstream in(logFile_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hetbench::controller::testing
