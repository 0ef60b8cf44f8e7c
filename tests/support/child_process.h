#pragma once

// Test support for tests that start programs: a port free on 127.0.0.1, and a child process
// with its output in a file that is stopped and reaped whatever the test does.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace hetbench::testing_support {

/// A port that was free a moment ago: bound to 127.0.0.1:0, read, closed.
inline uint16_t freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool bound = fd >= 0 &&
                     ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (fd >= 0) ::close(fd);
  if (!bound) throw std::runtime_error("no free port on 127.0.0.1");
  return ntohs(address.sin_port);
}

/// A child process of the test: `program` with `args`, this process' environment with
/// `environment` set over it, no stdin, stdout and stderr in the file `log`. It gets SIGKILL
/// should the test process die first; destroying it ends it (SIGTERM, then SIGKILL after a
/// bound), reaps it, and prints its log when the test has failed. Statuses are waitpid's
/// (0 for a clean exit; WIFEXITED and WEXITSTATUS read the rest).
class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::map<std::string, std::string>& environment, std::filesystem::path log)
      : program_(program), log_(std::move(log)) {
    // Everything the child needs is made before fork: after it only async-signal-safe calls.
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text = *entry;
      if (!environment.contains(text.substr(0, text.find('=')))) env.push_back(text);
    }
    for (const auto& [name, value] : environment) env.push_back(name + "=" + value);
    std::vector<std::string> argvText{program};
    argvText.insert(argvText.end(), args.begin(), args.end());
    std::vector<char*> argv = pointers(argvText);
    std::vector<char*> envp = pointers(env);
    const int logFd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (logFd < 0 || devNull < 0) {
      ADD_FAILURE() << "cannot open " << log_ << " or /dev/null: " << std::strerror(errno);
      if (logFd >= 0) ::close(logFd);
      if (devNull >= 0) ::close(devNull);
      return;
    }
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      if (::dup2(devNull, 0) < 0 || ::dup2(logFd, 1) < 0 || ::dup2(logFd, 2) < 0) ::_exit(127);
      // Sockets and pipes that other threads of the test opened must not stay open in the child.
      ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    const int forkErrno = errno;
    ::close(logFd);
    ::close(devNull);
    if (pid_ < 0) ADD_FAILURE() << "fork: " << std::strerror(forkErrno);
  }
  virtual ~ChildProcess() {
    resume();  // a paused process would not see SIGTERM
    if (pid_ > 0 && !status_ && !terminate(std::chrono::seconds(5))) kill();
    if (::testing::Test::HasFailure()) {
      std::cerr << "---- " << program_ << " log " << log_.string() << " ----\n"
                << output() << "---- end of log ----\n";
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// The status once the process has exited, or nullopt if it still runs at the deadline.
  std::optional<int> waitUntil(std::chrono::steady_clock::time_point deadline) {
    while (!poll() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return status_;
  }
  /// Sends SIGTERM and waits for the exit: the status, or nullopt when it still runs after
  /// `timeout`.
  std::optional<int> terminate(std::chrono::milliseconds timeout) {
    if (pid_ <= 0 || poll()) return status_;
    ::kill(pid_, SIGTERM);
    return waitUntil(std::chrono::steady_clock::now() + timeout);
  }
  /// SIGKILL, then reaps it.
  void kill() {
    if (pid_ <= 0 || poll()) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    status_ = status;
  }
  bool running() { return pid_ > 0 && !poll(); }
  /// The process's peak resident memory so far (VmHWM) in KiB; -1 once it has exited.
  long peakResidentKiB() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
  }
  /// SIGSTOP and SIGCONT: the process frozen and thawed, as a paused VM or a long stall would.
  void pause() {
    if (pid_ > 0 && !poll()) ::kill(pid_, SIGSTOP);
  }
  void resume() {
    if (pid_ > 0 && !poll()) ::kill(pid_, SIGCONT);
  }

  std::string output() const {
    std::ifstream in(log_, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  bool logContains(std::string_view text) const { return output().find(text) != std::string::npos; }

 protected:
  /// Reaps the child if it has exited; its status once it has.
  std::optional<int> poll() {
    if (status_ || pid_ <= 0) return status_;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
    return status_;
  }

 private:
  static std::vector<char*> pointers(std::vector<std::string>& texts) {
    std::vector<char*> out;
    for (std::string& text : texts) out.push_back(text.data());
    out.push_back(nullptr);
    return out;
  }

  std::string program_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace hetbench::testing_support
