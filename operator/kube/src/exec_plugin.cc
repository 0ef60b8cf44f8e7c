// Runs client.authentication.k8s.io exec credential plugins.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "files.h"
#include "hetbench/common/time.h"
#include "hetbench/kube/credentials.h"

extern char** environ;  // NOLINT: POSIX

namespace hetbench::kube {
namespace {

constexpr std::size_t kMaxStdout = 1 << 20;
constexpr std::size_t kMaxStderr = 64 << 10;

/// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int* out() { return &fd_; }

 private:
  int fd_ = -1;
};

/// What the plugin process did.
struct Outcome {
  std::string out;
  std::string err;
  int waitStatus = 0;
  bool timedOut = false;
  bool stdoutTooLarge = false;
};

std::string describe(const ExecConfig& exec) { return "exec plugin \"" + exec.command + "\""; }

std::vector<std::string> childEnvironment(const ExecConfig& exec, const std::string& info) {
  std::vector<std::pair<std::string, std::string>> vars = exec.env;
  vars.emplace_back("KUBERNETES_EXEC_INFO", info);
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [n, v] : vars) overridden = overridden || n == name;
    if (!overridden) out.emplace_back(entry);
  }
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

// Reads both pipes until they close, the output grows too large or the deadline passes; then
// reaps the process, killing its whole process group if it is still there.
Outcome collect(pid_t pid, Fd& out, Fd& err, std::chrono::steady_clock::time_point deadline) {
  Outcome result;
  char buffer[8192];
  bool abort = false;
  while ((out.get() >= 0 || err.get() >= 0) && !abort) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      break;
    }
    pollfd fds[2] = {{out.get(), POLLIN, 0}, {err.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      Fd& fd = i == 0 ? out : err;
      std::string& sink = i == 0 ? result.out : result.err;
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fd.reset();
        continue;
      }
      const std::size_t limit = i == 0 ? kMaxStdout : kMaxStderr;
      sink.append(buffer, std::min(static_cast<std::size_t>(n), limit - sink.size()));
      if (i == 0 && sink.size() >= kMaxStdout) {
        result.stdoutTooLarge = true;
        abort = true;
      }
    }
  }
  // Both pipes closed: the plugin is exiting. Poll for it briefly rather than block forever on
  // one that closed its output and kept running.
  while (!result.timedOut && !abort) {
    const pid_t done = ::waitpid(pid, &result.waitStatus, WNOHANG);
    if (done == pid) return result;
    if (done < 0 && errno != EINTR) return result;
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &result.waitStatus, 0) < 0 && errno == EINTR) {
  }
  return result;
}

common::Result<Outcome> spawn(const ExecConfig& exec, const std::string& info,
                              std::chrono::seconds timeout) {
  Fd outRead, outWrite, errRead, errWrite;
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) return common::internalError(std::strerror(errno));
  *outRead.out() = outPipe[0];
  *outWrite.out() = outPipe[1];
  if (::pipe2(errPipe, O_CLOEXEC) != 0) return common::internalError(std::strerror(errno));
  *errRead.out() = errPipe[0];
  *errWrite.out() = errPipe[1];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outWrite.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, errWrite.get(), 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so that a timeout kills the plugin's children too.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<std::string> argStrings{exec.command};
  argStrings.insert(argStrings.end(), exec.args.begin(), exec.args.end());
  std::vector<std::string> envStrings = childEnvironment(exec, info);
  std::vector<char*> argv, envp;
  for (auto& a : argStrings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc =
      ::posix_spawnp(&pid, exec.command.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return common::unavailableError(describe(exec) + ": " + std::strerror(rc));
  outWrite.reset();
  errWrite.reset();
  return collect(pid, outRead, errRead, std::chrono::steady_clock::now() + timeout);
}

common::Result<ExecResult> parseResponse(const ExecConfig& exec, const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return common::invalidError(describe(exec) + ": invalid ExecCredential: " + why);
  };
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("stdout is not a JSON object");
  const auto str = [&](const nlohmann::json& object, const char* key) -> std::string {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (str(doc, "apiVersion") != exec.apiVersion) {
    return bad("apiVersion \"" + str(doc, "apiVersion") + "\" does not match the request's \"" +
               exec.apiVersion + "\"");
  }
  if (str(doc, "kind") != "ExecCredential") return bad("kind is not ExecCredential");
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) return bad("no status");
  ExecResult result;
  result.credentials.token = str(*status, "token");
  result.credentials.clientCertPem = str(*status, "clientCertificateData");
  result.credentials.clientKeyPem = str(*status, "clientKeyData");
  const bool hasCert = !result.credentials.clientCertPem.empty();
  if (hasCert != !result.credentials.clientKeyPem.empty()) {
    return bad("status has only one of clientCertificateData and clientKeyData");
  }
  if (result.credentials.token.empty() && !hasCert) {
    return bad("status has neither a token nor a client certificate");
  }
  const std::string expiry = str(*status, "expirationTimestamp");
  if (!expiry.empty()) {
    auto parsed = common::parseRfc3339(expiry);
    if (!parsed) return bad("status.expirationTimestamp: " + parsed.status().message());
    result.expiry = *parsed;
  }
  return result;
}

}  // namespace

common::Result<ExecResult> runExecPlugin(const ExecConfig& exec, const std::string& server,
                                         std::chrono::seconds timeout) {
  (void)server;  // only sent with provideClusterInfo, which loadKubeconfig rejects
  if (exec.command.empty()) return common::invalidError("exec plugin: no command");
  nlohmann::json request = {{"apiVersion", exec.apiVersion},
                            {"kind", "ExecCredential"},
                            {"spec", {{"interactive", false}}}};
  HETBENCH_ASSIGN_OR_RETURN(Outcome outcome, spawn(exec, request.dump(), timeout));
  const std::string err = internal::trim(outcome.err);
  const std::string stderrText = err.empty() ? "" : ": " + err;
  if (outcome.timedOut) {
    return common::timeoutError(describe(exec) + ": timed out after " +
                                std::to_string(timeout.count()) + "s" + stderrText);
  }
  if (outcome.stdoutTooLarge) {
    return common::invalidError(describe(exec) + ": output larger than " +
                                std::to_string(kMaxStdout) + " bytes");
  }
  if (WIFSIGNALED(outcome.waitStatus)) {
    return common::unavailableError(describe(exec) + ": killed by signal " +
                                    std::to_string(WTERMSIG(outcome.waitStatus)) + stderrText);
  }
  if (WIFEXITED(outcome.waitStatus) && WEXITSTATUS(outcome.waitStatus) != 0) {
    return common::unavailableError(describe(exec) + ": exit status " +
                                    std::to_string(WEXITSTATUS(outcome.waitStatus)) + stderrText);
  }
  return parseResponse(exec, outcome.out);
}

}  // namespace hetbench::kube
