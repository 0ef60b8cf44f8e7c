#include "cluster/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#if __has_include(<linux/close_range.h>)
#include <linux/close_range.h>
#endif

namespace hetbench::kubesim {
namespace {

using std::chrono::steady_clock;

// The PATH a container runtime uses when the image's environment sets none.
constexpr std::string_view kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
constexpr std::size_t kReadBytes = 64 * 1024;
// containerd splits longer lines into partial entries (max_container_log_line_size).
constexpr std::size_t kMaxLineBytes = 16 * 1024;
// How long the pipes may stay open after the process group is gone (a descendant that left the
// group holds them) before the readers give up.
constexpr auto kDrainTimeout = std::chrono::seconds(2);
// Reads allowed once the readers are told to stop, so that a writer cannot keep them forever.
constexpr int kReadsAfterStop = 16;
// Child-to-parent report of a failed set-up step: {stage, errno}.
constexpr int kStageChdir = 0;
constexpr int kStageExec = 1;

/// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

/// strerror's text in Go's lower-case spelling ("permission denied"), as runtimes print it.
std::string errnoText(int err) {
  std::string text = std::error_code(err, std::generic_category()).message();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] + 32);
  return text;
}

/// Moves a descriptor to 3 or above so that the child's dup2 onto 0..2 cannot clobber it.
common::Result<Fd> aboveStdio(Fd fd) {
  if (fd.get() < 0) return common::internalError("open: " + errnoText(errno));
  if (fd.get() > 2) return fd;
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return common::internalError("fcntl: " + errnoText(errno));
  return Fd(moved);
}

common::Result<std::pair<Fd, Fd>> makePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return common::internalError("pipe: " + errnoText(errno));
  Fd writeEnd(fds[1]);
  HETBENCH_ASSIGN_OR_RETURN(Fd r, aboveStdio(Fd(fds[0])));
  HETBENCH_ASSIGN_OR_RETURN(Fd w, aboveStdio(std::move(writeEnd)));
  return std::pair<Fd, Fd>(std::move(r), std::move(w));
}

bool isExecutableFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

/// Finds `name` in the PATH of the process's own environment; relative entries are relative to
/// its working directory, as they will be once it runs.
std::optional<std::string> lookPath(const std::string& name, const ProcessSpec& spec) {
  std::string_view path = kDefaultPath;
  for (const std::string& entry : spec.env) {
    if (entry.starts_with("PATH=")) path = std::string_view(entry).substr(5);
  }
  while (true) {
    std::size_t colon = path.find(':');
    std::string dir(path.substr(0, colon));
    if (dir.empty()) dir = ".";
    if (dir[0] != '/') dir = spec.workingDir + "/" + dir;
    std::string candidate = dir + "/" + name;
    if (isExecutableFile(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    path.remove_prefix(colon + 1);
  }
}

std::vector<char*> cStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

/// Everything the child needs, prepared before fork: after it only async-signal-safe calls.
struct ChildSetup {
  const char* path;
  char* const* argv;
  char* const* envp;
  const char* workingDir;
  int stdinFd;
  int stdoutFd;
  int stderrFd;
  int statusFd;
  int maxFd;
};

[[noreturn]] void failChild(int statusFd, int stage, int err) {
  int report[2] = {stage, err};
  ssize_t written = ::write(statusFd, report, sizeof report);
  static_cast<void>(written);
  ::_exit(127);
}

[[noreturn]] void runChild(const ChildSetup& setup) {
  ::setpgid(0, 0);
  // Handlers and ignored signals of the parent must not leak into the container; the mask was
  // filled by the parent around fork so that no handler runs here before this point.
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &defaults, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(setup.stdinFd, 0) < 0 || ::dup2(setup.stdoutFd, 1) < 0 ||
      ::dup2(setup.stderrFd, 2) < 0) {
    failChild(setup.statusFd, kStageExec, errno);
  }
  // Descriptors that other threads opened without O_CLOEXEC must not reach the container.
#ifdef CLOSE_RANGE_CLOEXEC
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
#endif
  {
    for (int fd = 3; fd < setup.maxFd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (::chdir(setup.workingDir) != 0) failChild(setup.statusFd, kStageChdir, errno);
  ::execve(setup.path, setup.argv, setup.envp);
  failChild(setup.statusFd, kStageExec, errno);
}

class PosixProcess final : public Process {
 public:
  PosixProcess(pid_t pid, Fd out, Fd err, Fd wakeRead, Fd wakeWrite,
               std::shared_ptr<ContainerLog> log)
      : pid_(pid),
        out_(std::move(out)),
        err_(std::move(err)),
        wakeRead_(std::move(wakeRead)),
        wakeWrite_(std::move(wakeWrite)),
        log_(std::move(log)) {}

  ~PosixProcess() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      if (!reaped_) ::kill(-pid_, SIGKILL);
    }
    cv_.notify_all();
    if (killer_.joinable()) killer_.join();
    if (reaper_.joinable()) {
      reaper_.join();
    } else {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    wakeReaders();
    if (outReader_.joinable()) outReader_.join();
    if (errReader_.joinable()) errReader_.join();
  }

  /// Starts the reaper and the two readers; separate from the constructor so that a failure to
  /// create a thread is a Status (the destructor then cleans up what did start).
  common::Status startThreads() {
    try {
      reaper_ = std::thread([this] { reap(); });
      outReader_ = std::thread([this] { readStream(out_.get(), "stdout"); });
      errReader_ = std::thread([this] { readStream(err_.get(), "stderr"); });
    } catch (const std::system_error& e) {
      return common::internalError(std::string("cannot start process threads: ") + e.what());
    }
    return common::okStatus();
  }

  int pid() const override { return pid_; }

  std::optional<int> exitCode() override {
    std::lock_guard lock(mu_);
    return finishedLocked() ? exitCode_ : std::nullopt;
  }

  void terminate(std::chrono::milliseconds grace) override {
    std::lock_guard lock(mu_);
    if (reaped_ || stopping_) return;
    ::kill(-pid_, SIGTERM);
    steady_clock::time_point deadline = steady_clock::now() + grace;
    if (!killAt_ || deadline < *killAt_) killAt_ = deadline;
    if (killer_.joinable()) {
      cv_.notify_all();
      return;
    }
    try {
      killer_ = std::thread([this] { escalate(); });
    } catch (const std::system_error&) {
      ::kill(-pid_, SIGKILL);
    }
  }

  std::optional<int> wait(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [this] { return finishedLocked(); });
    return finishedLocked() ? exitCode_ : std::nullopt;
  }

 private:
  bool finishedLocked() const { return reaped_ && readersLeft_ == 0; }

  void reap() {
    siginfo_t info{};
    // WNOWAIT keeps the zombie, and with it the process group id, until the group is killed.
    while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 &&
           errno == EINTR) {
    }
    {
      std::lock_guard lock(mu_);
      // As in a container's PID namespace, the rest dies with the main process.
      ::kill(-pid_, SIGKILL);
      int status = 0;
      pid_t reaped;
      while ((reaped = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
      }
      if (reaped == pid_ && WIFEXITED(status)) {
        exitCode_ = WEXITSTATUS(status);
      } else if (reaped == pid_ && WIFSIGNALED(status)) {
        exitCode_ = 128 + WTERMSIG(status);
      } else {
        exitCode_ = 255;  // someone else reaped it (SIGCHLD ignored): the code is lost
      }
      reaped_ = true;
    }
    cv_.notify_all();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, kDrainTimeout, [this] { return readersLeft_ == 0 || stopping_; });
    if (readersLeft_ > 0) wakeReaders();
  }

  void wakeReaders() {
    char byte = 0;
    ssize_t written = ::write(wakeWrite_.get(), &byte, 1);
    static_cast<void>(written);
  }

  void escalate() {
    std::unique_lock lock(mu_);
    while (!reaped_ && !stopping_) {
      if (steady_clock::now() >= *killAt_) {
        ::kill(-pid_, SIGKILL);
        return;
      }
      cv_.wait_until(lock, *killAt_);
    }
  }

  void readStream(int fd, std::string_view stream) {
    std::string pending;
    std::vector<char> buffer(kReadBytes);
    pollfd fds[2] = {{fd, POLLIN, 0}, {wakeRead_.get(), POLLIN, 0}};
    bool stop = false;
    int readsAfterStop = 0;
    while (true) {
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      // The wake byte is never consumed, so both readers see it.
      if (fds[1].revents != 0) stop = true;
      if (fds[0].revents == 0) {
        if (stop) break;
        continue;
      }
      ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(buffer.data(), static_cast<std::size_t>(n));
      std::size_t start = 0;
      for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        log_->append(stream, std::string_view(pending).substr(start, nl - start));
      }
      for (; pending.size() - start >= kMaxLineBytes; start += kMaxLineBytes) {
        log_->append(stream, std::string_view(pending).substr(start, kMaxLineBytes), true);
      }
      pending.erase(0, start);
      if (stop && ++readsAfterStop >= kReadsAfterStop) break;
    }
    if (!pending.empty()) log_->append(stream, pending, true);
    {
      std::lock_guard lock(mu_);
      --readersLeft_;
    }
    cv_.notify_all();
  }

  const pid_t pid_;
  Fd out_;
  Fd err_;
  Fd wakeRead_;
  Fd wakeWrite_;
  std::shared_ptr<ContainerLog> log_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool reaped_ = false;
  bool stopping_ = false;
  int readersLeft_ = 2;
  std::optional<int> exitCode_;
  std::optional<steady_clock::time_point> killAt_;
  std::thread reaper_;
  std::thread outReader_;
  std::thread errReader_;
  std::thread killer_;
};

common::Status execError(const std::string& name, int stage, int err, const ProcessSpec& spec) {
  if (stage == kStageChdir) {
    return common::invalidError("chdir to cwd (\"" + spec.workingDir +
                                "\") failed: " + errnoText(err));
  }
  if (err == ENOENT) {
    return common::notFoundError("exec: \"" + name + "\": stat " + name +
                                 ": no such file or directory");
  }
  return common::invalidError("exec: \"" + name + "\": " + errnoText(err));
}

}  // namespace

common::Result<std::unique_ptr<Process>> Process::start(const ProcessSpec& spec,
                                                        std::shared_ptr<ContainerLog> log) {
  if (spec.argv.empty() || spec.argv[0].empty()) return common::invalidError("no command");
  if (!log) return common::invalidError("no container log");
  const std::string& name = spec.argv[0];
  std::string path = name;
  if (name.find('/') == std::string::npos) {
    std::optional<std::string> found = lookPath(name, spec);
    if (!found) {
      return common::notFoundError("exec: \"" + name + "\": executable file not found in $PATH");
    }
    path = *found;
  }
  std::vector<std::string> argvStrings = spec.argv;
  std::vector<std::string> envStrings = spec.env;
  std::vector<char*> argv = cStrings(argvStrings);
  std::vector<char*> envp = cStrings(envStrings);

  HETBENCH_ASSIGN_OR_RETURN(Fd devNull, aboveStdio(Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC))));
  HETBENCH_ASSIGN_OR_RETURN(auto outPipe, makePipe());
  HETBENCH_ASSIGN_OR_RETURN(auto errPipe, makePipe());
  HETBENCH_ASSIGN_OR_RETURN(auto statusPipe, makePipe());
  HETBENCH_ASSIGN_OR_RETURN(auto wakePipe, makePipe());

  long openMax = ::sysconf(_SC_OPEN_MAX);
  ChildSetup setup{path.c_str(),
                   argv.data(),
                   envp.data(),
                   spec.workingDir.c_str(),
                   devNull.get(),
                   outPipe.second.get(),
                   errPipe.second.get(),
                   statusPipe.second.get(),
                   static_cast<int>(std::clamp(openMax, 256L, 65536L))};

  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = ::fork();
  if (pid == 0) runChild(setup);
  int forkErrno = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) return common::internalError("fork: " + errnoText(forkErrno));
  // Also here, so that a signal to the group reaches the child however early it is sent.
  ::setpgid(pid, pid);

  devNull.reset();
  outPipe.second.reset();
  errPipe.second.reset();
  statusPipe.second.reset();
  int report[2] = {0, 0};
  ssize_t n;
  while ((n = ::read(statusPipe.first.get(), report, sizeof report)) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    // The child wrote why it could not exec and exits at once: reap it here.
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return execError(name, report[0], report[1], spec);
  }

  auto process = std::make_unique<PosixProcess>(pid, std::move(outPipe.first),
                                                std::move(errPipe.first), std::move(wakePipe.first),
                                                std::move(wakePipe.second), std::move(log));
  HETBENCH_RETURN_IF_ERROR(process->startThreads());
  return std::unique_ptr<Process>(std::move(process));
}

}  // namespace hetbench::kubesim
