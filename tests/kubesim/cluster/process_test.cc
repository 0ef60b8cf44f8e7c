#include "cluster/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace hetbench::kubesim {
namespace {

using namespace std::chrono_literals;

struct LogLine {
  std::string stream;
  std::string tag;
  std::string text;
};

class ProcessTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "process_test.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto log = ContainerLog::create(dir_ + "/0.log", clock_);
    ASSERT_TRUE(log.isOk()) << log.status().toString();
    log_ = *log;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessSpec shell(const std::string& script) const {
    return ProcessSpec{{"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, dir_};
  }

  std::unique_ptr<Process> startOrDie(const ProcessSpec& spec) {
    auto process = Process::start(spec, log_);
    EXPECT_TRUE(process.isOk()) << process.status().toString();
    return process.isOk() ? std::move(process).value() : nullptr;
  }

  /// The log file's entries, parsed back.
  std::vector<LogLine> lines() const {
    std::vector<LogLine> result;
    std::ifstream in(log_->path());
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string timestamp;
      LogLine entry;
      fields >> timestamp >> entry.stream >> entry.tag;
      fields.get();
      std::getline(fields, entry.text);
      result.push_back(entry);
    }
    return result;
  }

  std::vector<std::string> texts(const std::string& stream) const {
    std::vector<std::string> result;
    for (const LogLine& line : lines()) {
      if (line.stream == stream) result.push_back(line.text);
    }
    return result;
  }

  /// Waits until the log holds at least `count` lines.
  bool waitForLines(std::uint64_t count) const {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (log_->lineCount() < count) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  common::SystemClock clock_;
  std::string dir_;
  std::shared_ptr<ContainerLog> log_;
};

/// True once `pid` is gone or a zombie (killed, waiting for its new parent to reap it).
bool isDead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string content;
  if (!std::getline(stat, content)) return true;
  std::size_t paren = content.rfind(')');
  return paren != std::string::npos && paren + 2 < content.size() && content[paren + 2] == 'Z';
}

bool waitDead(pid_t pid) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!isDead(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Verifies that the exit status of the command is its exit code.
TEST_F(ProcessTest, ReportsExitCodes) {
  auto ok = startOrDie(shell("exit 0"));
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->wait(10s), 0);
  EXPECT_EQ(ok->exitCode(), 0);
  auto failed = startOrDie(shell("exit 3"));
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->wait(10s), 3);
  EXPECT_GT(failed->pid(), 0);
}

// Verifies that stdout and stderr lines reach the log in order, each tagged with its stream.
TEST_F(ProcessTest, CapturesStdoutAndStderrLines) {
  auto process = startOrDie(shell("echo one; echo err1 >&2; echo two; echo err2 >&2; echo"));
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->wait(10s), 0);
  EXPECT_EQ(texts("stdout"), (std::vector<std::string>{"one", "two", ""}));
  EXPECT_EQ(texts("stderr"), (std::vector<std::string>{"err1", "err2"}));
  for (const LogLine& line : lines()) EXPECT_EQ(line.tag, "F");
}

// Verifies that a last line without a newline is kept as a partial entry.
TEST_F(ProcessTest, KeepsUnterminatedLastLineAsPartial) {
  auto process = startOrDie(shell("echo full; printf 'no newline'"));
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->wait(10s), 0);
  std::vector<LogLine> all = lines();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].tag, "F");
  EXPECT_EQ(all[1].tag, "P");
  EXPECT_EQ(all[1].text, "no newline");
}

// Verifies that the spec's environment is the process's whole environment.
TEST_F(ProcessTest, PassesEnvironment) {
  ProcessSpec spec = shell("echo \"$GREETING\"; echo \"home=${HOME:-unset}\"");
  spec.env.push_back("GREETING=hello world");
  auto process = startOrDie(spec);
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->wait(10s), 0);
  EXPECT_EQ(texts("stdout"), (std::vector<std::string>{"hello world", "home=unset"}));
}

// Verifies that the process runs in the spec's working directory with stdin at /dev/null.
TEST_F(ProcessTest, RunsInWorkingDirectoryWithEmptyStdin) {
  auto process = startOrDie(shell("pwd; cat; echo read-done"));
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->wait(10s), 0);
  EXPECT_EQ(texts("stdout"),
            (std::vector<std::string>{std::filesystem::canonical(dir_).string(), "read-done"}));
}

// Verifies that the child gets only stdin, stdout and stderr, even descriptors that were opened
// elsewhere without O_CLOEXEC.
TEST_F(ProcessTest, ChildInheritsNoOtherDescriptors) {
  int leaky = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leaky, 0);
  auto process = startOrDie(shell("ls /proc/$$/fd/"));
  ::close(leaky);
  ASSERT_NE(process, nullptr);
  ASSERT_EQ(process->wait(10s), 0);
  EXPECT_EQ(texts("stdout"), (std::vector<std::string>{"0", "1", "2"}));
}

// Verifies that starting, running and destroying processes leaves no descriptor open here.
TEST_F(ProcessTest, LeavesNoDescriptorsBehind) {
  auto openFds = [] {
    auto entries = std::filesystem::directory_iterator("/proc/self/fd");
    return std::distance(begin(entries), end(entries));
  };
  auto before = openFds();
  {
    auto process = startOrDie(shell("echo out; echo err >&2"));
    ASSERT_NE(process, nullptr);
    ASSERT_EQ(process->wait(10s), 0);
    EXPECT_FALSE(Process::start({{dir_}, {}, dir_}, log_).isOk());
  }
  EXPECT_EQ(openFds(), before);
}

// Verifies that a command that cannot run is an error like a runtime's and leaves no child.
TEST_F(ProcessTest, CommandThatCannotRunIsAnError) {
  auto missing = Process::start({{"no-such-command-xyz"}, {"PATH=/usr/bin:/bin"}, dir_}, log_);
  ASSERT_FALSE(missing.isOk());
  EXPECT_TRUE(missing.status().isNotFound());
  EXPECT_EQ(missing.status().message(),
            "exec: \"no-such-command-xyz\": executable file not found in $PATH");

  std::string script = dir_ + "/not-executable.sh";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  ::chmod(script.c_str(), 0644);
  auto denied = Process::start({{script}, {}, dir_}, log_);
  ASSERT_FALSE(denied.isOk());
  EXPECT_TRUE(denied.status().isInvalid());
  // Root may execute any file that has an execute bit, but this one has none.
  EXPECT_EQ(denied.status().message(), "exec: \"" + script + "\": permission denied");

  auto absent = Process::start({{dir_ + "/absent"}, {}, dir_}, log_);
  ASSERT_FALSE(absent.isOk());
  EXPECT_TRUE(absent.status().isNotFound());

  // No child of this test process is left, not even a zombie.
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(log_->lineCount(), 0u);
}

// Verifies that terminate ends a process with SIGTERM (exit code 143).
TEST_F(ProcessTest, TerminateSendsSigterm) {
  auto process = startOrDie(shell("echo ready; exec sleep 100"));
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waitForLines(1));
  EXPECT_EQ(process->exitCode(), std::nullopt);
  process->terminate(10s);
  EXPECT_EQ(process->wait(10s), 143);
}

// Verifies that a process that ignores SIGTERM is killed with SIGKILL after the grace period.
TEST_F(ProcessTest, TerminateEscalatesToSigkill) {
  // The ignored disposition is inherited by sleep, so neither process stops on SIGTERM.
  auto process = startOrDie(shell("trap '' TERM; echo ready; sleep 100"));
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waitForLines(1));
  auto begin = std::chrono::steady_clock::now();
  process->terminate(200ms);
  EXPECT_EQ(process->wait(10s), 137);
  EXPECT_GE(std::chrono::steady_clock::now() - begin, 200ms);
}

// Verifies that terminate reaches every process of the group, not only the main one.
TEST_F(ProcessTest, TerminateKillsWholeGroup) {
  auto process = startOrDie(shell("sleep 100 & echo $!; wait"));
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waitForLines(1));
  pid_t child = std::stoi(texts("stdout").at(0));
  EXPECT_FALSE(isDead(child));
  process->terminate(10s);
  EXPECT_EQ(process->wait(10s), 143);
  EXPECT_TRUE(waitDead(child));
}

// Verifies that, as in a container, background processes die when the main process exits, so
// that they cannot hold the output pipes open.
TEST_F(ProcessTest, MainExitEndsTheGroup) {
  auto process = startOrDie(shell("sleep 100 & echo $!; exit 4"));
  ASSERT_NE(process, nullptr);
  EXPECT_EQ(process->wait(10s), 4);
  pid_t child = std::stoi(texts("stdout").at(0));
  EXPECT_TRUE(waitDead(child));
}

// Verifies that the exit code is reported only after all output has reached the log.
TEST_F(ProcessTest, ExitCodeAfterOutputDrained) {
  auto process = startOrDie(
      shell("i=0; while [ $i -lt 10000 ]; do echo line $i; i=$((i+1)); done; echo done >&2"));
  ASSERT_NE(process, nullptr);
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::optional<int> code;
  while (!(code = process->exitCode()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(code, 0);
  EXPECT_EQ(log_->lineCount(), 10001u);
  std::vector<std::string> out = texts("stdout");
  ASSERT_EQ(out.size(), 10000u);
  EXPECT_EQ(out.front(), "line 0");
  EXPECT_EQ(out.back(), "line 9999");
}

// Verifies that destroying a running process kills and reaps it.
TEST_F(ProcessTest, DestructorKillsRunningProcess) {
  auto process = startOrDie(shell("echo ready; sleep 100"));
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waitForLines(1));
  pid_t pid = process->pid();
  process.reset();
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

}  // namespace
}  // namespace hetbench::kubesim
