#include "support/slurm_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "http/test_client.h"

extern char** environ;

namespace hetbench::testing_support {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSlurmLocal = HETBENCH_SLURM_LOCAL;
constexpr const char* kDirectoryPrefix = "hetbench-slurm-";
constexpr const char* kApiPing = "/slurm/v0.0.38/ping";
constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kCommandTimeout = std::chrono::seconds(30);
constexpr auto kStopTimeout = std::chrono::seconds(5);

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text.substr(std::min(text.size(), text.find_first_not_of(" \t\r\n")));
}

/// `program` as an absolute path: PATH, then the sbin directories where Debian puts the daemons
/// (not on a user's PATH).
std::string findProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return program;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> out;
  for (std::string& text : texts) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

/// What a child process is: its command line, its environment over this process', and the
/// user it runs as when that differs.
struct ChildSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> environment;
  std::optional<std::pair<uid_t, gid_t>> credentials;
};

/// Forks and executes `spec` with stdin from /dev/null and stdout, stderr on the given
/// descriptors. The child gets SIGKILL when the calling thread ends.
common::Result<pid_t> spawn(const ChildSpec& spec, int outFd, int errFd) {
  // Everything the child needs is made before fork: after it only async-signal-safe calls.
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (!spec.environment.contains(text.substr(0, text.find('=')))) env.push_back(text);
  }
  for (const auto& [name, value] : spec.environment) env.push_back(name + "=" + value);
  std::vector<std::string> argvText = spec.argv;
  argvText[0] = findProgram(argvText[0]);
  std::vector<char*> argv = pointers(argvText);
  std::vector<char*> envp = pointers(env);
  const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devNull < 0) return common::internalError(std::string("/dev/null: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (spec.credentials) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(spec.credentials->second) != 0 ||
          ::setuid(spec.credentials->first) != 0)
        ::_exit(126);
    }
    // After the change of user, which clears the parent-death signal.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::dup2(devNull, 0) < 0 || ::dup2(outFd, 1) < 0 || ::dup2(errFd, 2) < 0) ::_exit(127);
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  const int forkErrno = errno;
  ::close(devNull);
  if (pid < 0) return common::internalError(std::string("fork: ") + std::strerror(forkErrno));
  return pid;
}

struct Captured {
  int status = 0;  // waitpid's
  std::string out;
  std::string err;
};

/// Runs `spec` to its end (SIGKILL after `timeout`) and collects its stdout and stderr.
common::Result<Captured> capture(const ChildSpec& spec, std::chrono::milliseconds timeout) {
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return common::internalError("pipe2 failed");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return common::internalError("pipe2 failed");
  }
  common::Result<pid_t> pid = spawn(spec, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  Captured result;
  if (pid.isOk()) {
    const auto deadline = Clock::now() + timeout;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.out, &result.err};
    int open = 2;
    bool killed = false;
    while (open > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        ::kill(*pid, SIGKILL);
        killed = true;
        break;
      }
      if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || fds[i].revents == 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
        if (n > 0) {
          sinks[i]->append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          fds[i].fd = -1;
          --open;
        }
      }
    }
    while (::waitpid(*pid, &result.status, 0) < 0 && errno == EINTR) {
    }
    if (killed) {
      pid = common::timeoutError(spec.argv[0] + " did not finish in " +
                                 std::to_string(timeout.count()) + " ms");
    }
  }
  ::close(out[0]);
  ::close(err[0]);
  if (!pid.isOk()) return pid.status();
  return result;
}

std::string describeExit(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + ::strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// Runs `argv` and returns its stdout; an error with its stderr when it fails.
common::Result<std::string> run(const ChildSpec& spec) {
  common::Result<Captured> captured = capture(spec, kCommandTimeout);
  if (!captured.isOk()) return captured.status();
  if (captured->status != 0) {
    std::string line;
    for (const std::string& arg : spec.argv) line += (line.empty() ? "" : " ") + arg;
    return common::unavailableError(line + ": " + describeExit(captured->status) + ": " +
                                    trim(captured->err + captured->out));
  }
  return std::move(captured->out);
}

/// KEY=VALUE lines.
std::map<std::string, std::string> readEnvFile(const fs::path& path) {
  std::map<std::string, std::string> values;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto equals = line.find('=');
    if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return values;
}

std::string tail(const fs::path& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& line : last) out += line + "\n";
  return out;
}

bool waitExit(pid_t pid, Clock::time_point deadline) {
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno == ECHILD)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

struct ProcInfo {
  pid_t parent = 0;
  char state = '?';
};

/// pid, parent and state from /proc/PID/stat (the command name may hold spaces and parentheses).
std::optional<ProcInfo> procInfo(const fs::path& dir) {
  const std::string stat = readFile(dir / "stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 1));
  ProcInfo info;
  rest >> info.state >> info.parent;
  if (!rest) return std::nullopt;
  return info;
}

/// The clusters of test processes that were killed, which no destructor stopped: what remains
/// of their processes (slurmstepd and jobs) and their directories. A directory whose owner file
/// names a live process, or has none yet, is left alone.
void sweepAbandoned() {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    if (!entry.path().filename().string().starts_with(kDirectoryPrefix)) continue;
    const std::string owner = trim(readFile(entry.path() / "owner"));
    if (owner.empty() || owner.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(static_cast<pid_t>(std::stol(owner)), 0) == 0 || errno != ESRCH) continue;
    for (pid_t pid : processesOf(entry.path().string())) ::kill(pid, SIGKILL);
    fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

std::vector<pid_t> processesOf(const std::string& directory) {
  const std::string needle = directory + "/";
  std::map<pid_t, ProcInfo> all;
  std::set<pid_t> ours;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid()) continue;
    std::optional<ProcInfo> info = procInfo(entry.path());
    if (!info) continue;
    all[pid] = *info;
    if (readFile(entry.path() / "cmdline").find(needle) != std::string::npos ||
        readFile(entry.path() / "environ").find(needle) != std::string::npos)
      ours.insert(pid);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, info] : all) {
      if (!ours.contains(pid) && ours.contains(info.parent)) {
        ours.insert(pid);
        grew = true;
      }
    }
  }
  std::vector<pid_t> live;
  for (pid_t pid : ours)
    if (all[pid].state != 'Z') live.push_back(pid);
  return live;
}

bool portOpen(std::uint16_t port) {
  return http::testing::TestConnection::connect(port) != nullptr;
}

common::Result<std::unique_ptr<SlurmCluster>> SlurmCluster::start(
    const SlurmClusterOptions& options) {
  std::unique_ptr<SlurmCluster> cluster(new SlurmCluster());
  common::Status status = cluster->launch(options);
  if (!status.isOk()) {
    // Logs first: the destructor removes the directory.
    const std::string logs = cluster->logTails();
    return common::Status(status.code(), "Slurm did not start: " + status.message() + "\n" + logs);
  }
  return cluster;
}

common::Status SlurmCluster::launch(const SlurmClusterOptions& options) {
  startTimeout_ = options.startTimeout;
  const auto deadline = Clock::now() + startTimeout_;
  sweepAbandoned();
  std::string pattern =
      (fs::temp_directory_path() / (std::string(kDirectoryPrefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return common::internalError(pattern + ": " + std::strerror(errno));
  directory_ = pattern;
  std::ofstream(directory_ + "/owner") << ::getpid() << "\n";
  HETBENCH_ASSIGN_OR_RETURN(
      std::string configured,
      run({{kSlurmLocal, "config", directory_, "--nodes", std::to_string(options.nodes), "--cpus",
            std::to_string(options.cpus), "--gpus", std::to_string(options.gpus), "--partition",
            options.partition},
           {},
           std::nullopt}));
  (void)configured;
  std::map<std::string, std::string> env = readEnvFile(fs::path(directory_) / "env");
  slurmConf_ = env["SLURM_CONF"];
  restUser_ = env["SLURM_REST_USER"];
  partition_ = env["SLURM_PARTITION"];
  try {
    restPort_ = static_cast<std::uint16_t>(std::stoi(env["SLURMRESTD_PORT"]));
  } catch (const std::exception&) {
    return common::internalError(directory_ + "/env has no SLURMRESTD_PORT");
  }
  if (::geteuid() == 0) {
    // slurmrestd refuses to run as root.
    const passwd* entry = ::getpwnam(restUser_.c_str());
    if (entry == nullptr) return common::internalError("no user " + restUser_);
    restUid_ = entry->pw_uid;
    restGid_ = entry->pw_gid;
    dropToRestUser_ = true;
  }

  const std::string dir = directory_;
  HETBENCH_RETURN_IF_ERROR(
      spawnDaemon(
          "munged",
          {"munged", "-F", "-f", "--key-file=" + dir + "/munge.key",
           "--socket=" + dir + "/munge.socket", "--pid-file=" + dir + "/run/munged.pid",
           "--log-file=" + dir + "/log/munged.log", "--seed-file=" + dir + "/run/munged.seed"},
          false)
          .status());
  HETBENCH_RETURN_IF_ERROR(waitFor("munged's socket", deadline, [&] {
    struct stat info {};
    return ::stat((dir + "/munge.socket").c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
  }));
  HETBENCH_RETURN_IF_ERROR(spawnDaemon("slurmctld", {"slurmctld", "-D", "-i"}, false).status());
  for (int n = 1; n <= options.nodes; ++n) {
    const std::string node = "node" + std::to_string(n);
    HETBENCH_RETURN_IF_ERROR(
        spawnDaemon("slurmd-" + node, {"slurmd", "-D", "-N", node}, false).status());
  }
  HETBENCH_RETURN_IF_ERROR(waitFor("slurmctld to answer scontrol ping", deadline, [&] {
    common::Result<std::string> ping = command({"scontrol", "ping"});
    return ping.isOk() && ping->find("is UP") != std::string::npos;
  }));
  HETBENCH_RETURN_IF_ERROR(waitFor("every node to be idle", deadline, [&] {
    common::Result<std::string> states = command({"sinfo", "-h", "-N", "-o", "%t"});
    if (!states.isOk()) return false;
    std::istringstream lines(*states);
    int idle = 0;
    for (std::string line; std::getline(lines, line);) {
      if (trim(line) != "idle") return false;
      ++idle;
    }
    return idle == options.nodes;
  }));
  return startRestUntil(deadline);
}

common::Result<pid_t> SlurmCluster::spawnDaemon(const std::string& name,
                                                const std::vector<std::string>& argv,
                                                bool asRestUser) {
  const std::string log = directory_ + "/log/" + name + ".out";
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return common::internalError(log + ": " + std::strerror(errno));
  ChildSpec spec{argv, {{"SLURM_CONF", slurmConf_}}, std::nullopt};
  if (asRestUser) {
    spec.environment["SLURM_JWT"] = "daemon";  // else it rejects its own configuration request
    if (dropToRestUser_) spec.credentials = std::make_pair(restUid_, restGid_);
  }
  common::Result<pid_t> pid = spawn(spec, fd, fd);
  ::close(fd);
  if (pid.isOk()) daemons_.push_back({name, *pid});
  return pid;
}

common::Status SlurmCluster::checkAlive() {
  for (Daemon& daemon : daemons_) {
    if (daemon.pid <= 0) continue;
    int status = 0;
    if (::waitpid(daemon.pid, &status, WNOHANG) == daemon.pid) {
      daemon.pid = -1;
      std::string hint;
      if (::geteuid() != 0)
        hint =
            " (not running as root: every daemon runs as this user, which Debian's slurmd "
            "may refuse; run the Slurm tests as root or under sudo)";
      return common::unavailableError(daemon.name + " exited with " + describeExit(status) + hint);
    }
  }
  return common::okStatus();
}

common::Status SlurmCluster::waitFor(const std::string& what, Clock::time_point deadline,
                                     const std::function<bool()>& ready) {
  while (true) {
    HETBENCH_RETURN_IF_ERROR(checkAlive());
    if (ready()) return common::okStatus();
    if (Clock::now() >= deadline) {
      return common::timeoutError("waited " + std::to_string(startTimeout_.count()) + " s for " +
                                  what);
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

bool SlurmCluster::restAnswers() const {
  common::Result<std::string> jwt = token(std::chrono::seconds(60));
  if (!jwt.isOk()) return false;
  std::unique_ptr<http::testing::TestConnection> connection =
      http::testing::TestConnection::connect(restPort_);
  if (!connection) return false;
  const std::string headers = "X-SLURM-USER-NAME: " + restUser_ +
                              "\r\nX-SLURM-USER-TOKEN: " + *jwt + "\r\nConnection: close\r\n";
  if (!connection->sendAll(http::testing::getRequest(kApiPing, headers))) return false;
  std::optional<http::testing::Response> response = connection->readResponse();
  return response && response->status == 200;
}

common::Status SlurmCluster::startRestUntil(Clock::time_point deadline) {
  HETBENCH_RETURN_IF_ERROR(
      spawnDaemon("slurmrestd",
                  {"slurmrestd", "-a", "rest_auth/jwt", "-s", "openapi/v0.0.38",
                   "127.0.0.1:" + std::to_string(restPort_)},
                  true)
          .status());
  return waitFor("slurmrestd to answer " + std::string(kApiPing), deadline,
                 [&] { return restAnswers(); });
}

std::string SlurmCluster::restUrl() const {
  return "http://127.0.0.1:" + std::to_string(restPort_);
}

common::Result<std::string> SlurmCluster::token(std::chrono::seconds lifespan) const {
  HETBENCH_ASSIGN_OR_RETURN(
      std::string out, run({{kSlurmLocal, "token", directory_, std::to_string(lifespan.count())},
                            {},
                            std::nullopt}));
  out = trim(out);
  if (out.empty()) return common::internalError("slurm-local token printed nothing");
  return out;
}

common::Result<std::string> SlurmCluster::command(const std::vector<std::string>& argv) const {
  if (argv.empty()) return common::invalidError("no command");
  return run({argv, {{"SLURM_CONF", slurmConf_}}, std::nullopt});
}

common::Status SlurmCluster::stopRest() {
  for (Daemon& daemon : daemons_) {
    if (daemon.name == "slurmrestd") stopDaemon(daemon);
  }
  std::erase_if(daemons_, [](const Daemon& daemon) { return daemon.name == "slurmrestd"; });
  const auto deadline = Clock::now() + kStopTimeout;
  while (portOpen(restPort_)) {
    if (Clock::now() >= deadline)
      return common::timeoutError("port " + std::to_string(restPort_) + " still open");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return common::okStatus();
}

common::Status SlurmCluster::startRest() {
  for (const Daemon& daemon : daemons_) {
    if (daemon.name == "slurmrestd") return common::alreadyExistsError("slurmrestd runs");
  }
  common::Status status = startRestUntil(Clock::now() + startTimeout_);
  if (!status.isOk()) return status.withContext(logTails());
  return status;
}

common::Status SlurmCluster::waitIdle(std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    HETBENCH_ASSIGN_OR_RETURN(std::string jobs, command({"squeue", "-h", "-o", "%A %T"}));
    if (trim(jobs).empty()) return common::okStatus();
    if (Clock::now() >= deadline) {
      return common::timeoutError("jobs still queued after " + std::to_string(timeout.count()) +
                                  " s: " + trim(jobs));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::string SlurmCluster::logTails() const {
  std::string out;
  std::error_code ec;
  std::vector<fs::path> logs;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_ + "/log", ec))
    logs.push_back(entry.path());
  std::sort(logs.begin(), logs.end());
  for (const fs::path& log : logs) {
    out += "---- " + log.string() + " (last lines) ----\n" + tail(log, 15);
  }
  return out;
}

void SlurmCluster::stopDaemon(Daemon& daemon) {
  if (daemon.pid <= 0) return;
  ::kill(daemon.pid, SIGTERM);
  if (!waitExit(daemon.pid, Clock::now() + kStopTimeout)) {
    ::kill(daemon.pid, SIGKILL);
    waitExit(daemon.pid, Clock::now() + kStopTimeout);
  }
  daemon.pid = -1;
}

void SlurmCluster::stopAll() {
  const bool controllerRuns = std::any_of(daemons_.begin(), daemons_.end(), [](const Daemon& d) {
    return d.name == "slurmctld" && d.pid > 0;
  });
  if (controllerRuns) {
    common::Result<std::string> jobs = command({"squeue", "-h", "-o", "%A"});
    if (jobs.isOk() && !trim(*jobs).empty()) {
      std::vector<std::string> cancel{"scancel"};
      std::istringstream ids(*jobs);
      for (std::string id; ids >> id;) cancel.push_back(id);
      (void)command(cancel);
      (void)waitIdle(std::chrono::seconds(10));
    }
  }
  // slurmrestd, slurmd, slurmctld, munged: each stops while the ones it talks to still run.
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) stopDaemon(*it);
  daemons_.clear();
  // slurmstepd and the jobs outlive slurmd.
  const auto deadline = Clock::now() + kStopTimeout;
  for (std::vector<pid_t> left = processesOf(directory_); !left.empty();
       left = processesOf(directory_)) {
    if (Clock::now() >= deadline) break;
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

SlurmCluster::~SlurmCluster() {
  if (directory_.empty()) return;
  stopAll();
  std::error_code ec;
  fs::remove_all(directory_, ec);
}

}  // namespace hetbench::testing_support
