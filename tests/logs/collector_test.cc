#include "hetbench/logs/collector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hetbench/kube/rest_client.h"
#include "support/kubesim_client.h"
#include "testing/harness.h"

namespace hetbench::logs {
namespace {

using kubesim::testing::Harness;
using nlohmann::json;
using namespace std::chrono_literals;

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The text of each line of a kept log, without its timestamp.
std::vector<std::string> texts(const std::string& content) {
  std::vector<std::string> out;
  std::istringstream in(content);
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.find(' ');
    out.push_back(space == std::string::npos ? line : line.substr(space + 1));
  }
  return out;
}

std::vector<std::string> numbered(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back("line " + std::to_string(i));
  return out;
}

class CollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hetbench-collector-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    client_ = testing_support::kubesimClient(h_, clock_, {});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  json createPod(const std::string& name, const std::string& script,
                 const std::string& initScript = "") {
    json spec = {{"restartPolicy", "Never"},
                 {"containers", json::array({{{"name", "main"},
                                              {"image", "busybox"},
                                              {"command", json::array({"sh", "-c", script})}}})}};
    if (!initScript.empty()) {
      spec["initContainers"] = json::array({{{"name", "setup"},
                                             {"image", "busybox"},
                                             {"command", json::array({"sh", "-c", initScript})}}});
    }
    auto created = client_->create(
        kube::resources::kPods, "default",
        {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}});
    EXPECT_TRUE(created.isOk()) << created.status().toString();
    return created.isOk() ? created.value() : json();
  }

  json getPod(const std::string& name) {
    auto pod = client_->get(kube::resources::kPods, "default", name);
    return pod.isOk() ? pod.value() : json();
  }

  /// Tracks the pod until its logs are complete (bounded).
  bool collect(LogCollector& collector, const std::string& name) {
    return Harness::eventually(
        [&] {
          const json pod = getPod(name);
          collector.track(pod, "default/run/0-0");
          return collector.logsOf(pod).ended;
        },
        20s);
  }

  /// Tracks the pod until its main container's log holds at least `lines` lines (bounded).
  bool followUntil(LogCollector& collector, const std::string& name, std::size_t lines) {
    return Harness::eventually(
        [&] {
          collector.track(getPod(name), "default/run/0-0");
          return texts(readFile(file(name, "main"))).size() >= lines;
        },
        10s);
  }

  std::filesystem::path file(const std::string& pod, const std::string& container) const {
    return dir_ / "default/run/0-0" / pod / (container + ".log");
  }

  Harness h_;
  common::SystemClock clock_;
  std::unique_ptr<kube::KubeClient> client_;
  std::filesystem::path dir_;
};

// Verifies a whole log, init container included, lands on disk and the pod is complete only
// once both containers have ended.
TEST_F(CollectorTest, CollectsEveryContainer) {
  createPod("p", "for i in 1 2 3; do echo line $i; done", "echo init done");
  LogCollector collector(*client_, {dir_});
  ASSERT_TRUE(collect(collector, "p"));
  EXPECT_EQ(texts(readFile(file("p", "main"))), numbered(1, 3));
  EXPECT_EQ(texts(readFile(file("p", "setup"))), std::vector<std::string>{"init done"});
  EXPECT_EQ(collector.activeStreams(), 0u);
  EXPECT_GT(collector.bytesWritten(), 0u);
}

// Verifies broken streams resume without losing or repeating a line.
TEST_F(CollectorTest, ResumesBrokenStreamsExactly) {
  createPod("p", "i=1; while [ $i -le 40 ]; do echo line $i; i=$((i+1)); sleep 0.05; done");
  LogCollector collector(*client_, {dir_, 256ull << 20, 50ms, 200ms});
  ASSERT_TRUE(Harness::eventually(
      [&] {
        collector.track(getPod("p"), "default/run/0-0");
        return collector.activeStreams() == 1;
      },
      10s));
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(400ms);
    h_.post("/kubesim/faults", {{"cutLogStreams", true}});
  }
  ASSERT_TRUE(collect(collector, "p"));
  EXPECT_EQ(texts(readFile(file("p", "main"))), numbered(1, 40));
  // Byte for byte what the container wrote, as the API serves it without timestamps.
  std::string served;
  kube::LogOptions plain;
  plain.container = "main";
  ASSERT_TRUE(client_
                  ->streamLogs("default", "p", plain,
                               [&](std::string_view data) {
                                 served.append(data);
                                 return true;
                               })
                  .isOk());
  std::string kept;
  for (const std::string& line : texts(readFile(file("p", "main")))) kept += line + "\n";
  EXPECT_EQ(kept, served);
}

// Verifies a pod deleted as soon as it has finished still leaves its whole log, when it was
// followed while it ran.
TEST_F(CollectorTest, PodDeletedRightAfterItFinishesKeepsItsLog) {
  createPod("p", "sleep 0.3; i=1; while [ $i -le 2000 ]; do echo line $i; i=$((i+1)); done");
  LogCollector collector(*client_, {dir_});
  ASSERT_TRUE(Harness::eventually(
      [&] {
        collector.track(getPod("p"), "default/run/0-0");
        return collector.activeStreams() == 1;
      },
      10s));
  ASSERT_TRUE(Harness::eventually(
      [&] { return getPod("p")["status"].value("phase", "") == "Succeeded"; }, 10s));
  ASSERT_TRUE(client_->remove(kube::resources::kPods, "default", "p", {}).isOk());
  ASSERT_TRUE(Harness::eventually([&] { return collector.activeStreams() == 0; }, 10s));
  EXPECT_EQ(texts(readFile(file("p", "main"))), numbered(1, 2000));
}

// Verifies a new collector (a restarted operator) continues the file instead of repeating it.
TEST_F(CollectorTest, RestartContinuesTheFile) {
  createPod("p", "for i in 1 2 3 4 5; do echo line $i; done; sleep 1; echo line 6");
  {
    LogCollector first(*client_, {dir_});
    ASSERT_TRUE(followUntil(first, "p", 5));
  }  // stopped mid-stream
  LogCollector second(*client_, {dir_});
  ASSERT_TRUE(collect(second, "p"));
  EXPECT_EQ(texts(readFile(file("p", "main"))), numbered(1, 6));
}

// Verifies the size cap: the file stops at the cap with one marker line.
TEST_F(CollectorTest, TruncatesAtTheCap) {
  createPod("p", "i=1; while [ $i -le 200 ]; do echo line $i; i=$((i+1)); done");
  LogCollector collector(*client_, {dir_, 2048});
  ASSERT_TRUE(collect(collector, "p"));
  const std::string content = readFile(file("p", "main"));
  std::vector<std::string> lines = texts(content);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), LogCollector::truncationMarker(2048));
  EXPECT_LE(content.size(), 2048u + 100u);
  lines.pop_back();
  EXPECT_EQ(lines, numbered(1, static_cast<int>(lines.size())));
}

// Verifies forgetRun ends a stream that would otherwise follow a silent container for minutes.
TEST_F(CollectorTest, ForgetRunEndsStreams) {
  createPod("p", "echo started; sleep 300");
  LogCollector collector(*client_, {dir_});
  ASSERT_TRUE(followUntil(collector, "p", 1));
  collector.forgetRun("default", "run");
  EXPECT_EQ(collector.activeStreams(), 0u);
  EXPECT_FALSE(collector.logsOf(getPod("p")).ended);
}

// Verifies that output without newlines (binary data, a line of 300 kB, 300 kB with no newline
// at all) is kept as lines cut at the bound, each with its marker, and that the lines after a
// cut one are kept whole.
TEST_F(CollectorTest, CutsLinesLongerThanTheBound) {
  createPod("p",
            "head -c 300000 /dev/zero | tr '\\0' a; echo; echo after; "
            "head -c 300000 /dev/urandom | tr -d '\\n'; echo; echo binary; "
            "head -c 300000 /dev/zero");
  CollectorOptions options{dir_};
  options.maxLineBytes = 1000;
  LogCollector collector(*client_, options);
  ASSERT_TRUE(collect(collector, "p"));
  const std::string content = readFile(file("p", "main"));
  EXPECT_LT(content.size(), 10000u) << "whole lines were kept";
  const std::vector<std::string> lines = texts(content);
  const std::string marker = " " + lineCutMarker(1000);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], std::string(1000 - 31, 'a') + marker) << "31 bytes of kubelet timestamp";
  EXPECT_EQ(lines[1], "after");
  EXPECT_TRUE(lines.back().ends_with(marker));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "binary"), lines.end());
  for (const std::string& line : lines) EXPECT_LE(line.size(), 1000u + marker.size());
  EXPECT_TRUE(collector.logsOf(getPod("p")).incomplete.empty());
}

// Verifies a write that fails (the log file is /dev/full): the stream ends, the pod's logs count
// as ended but incomplete, saying why, and the failure is counted.
TEST_F(CollectorTest, WriteFailureMakesTheLogIncomplete) {
  std::filesystem::create_directories(file("p", "main").parent_path());
  std::filesystem::create_symlink("/dev/full", file("p", "main"));
  createPod("p", "i=1; while [ $i -le 3000 ]; do echo line $i; i=$((i+1)); done");
  LogCollector collector(*client_, {dir_});
  ASSERT_TRUE(collect(collector, "p"));
  const PodLogs logs = collector.logsOf(getPod("p"));
  EXPECT_NE(logs.incomplete.find("No space left on device"), std::string::npos) << logs.incomplete;
  EXPECT_EQ(collector.writeFailures(), 1u);
}

// Verifies abandon on a stream that would run for minutes: it ends at once with a marker line
// and counts as ended and incomplete, though the pod still runs.
TEST_F(CollectorTest, AbandonEndsAStreamAsIncomplete) {
  createPod("p", "echo started; sleep 300");
  LogCollector collector(*client_, {dir_});
  ASSERT_TRUE(followUntil(collector, "p", 1));
  EXPECT_FALSE(collector.logsOf(getPod("p")).ended);
  collector.abandon(getPod("p"), "given up");
  ASSERT_TRUE(Harness::eventually([&] { return collector.logsOf(getPod("p")).ended; }, 10s));
  EXPECT_EQ(collector.logsOf(getPod("p")).incomplete, "given up");
  const std::string content = readFile(file("p", "main"));
  EXPECT_TRUE(content.ends_with(LogCollector::incompleteMarker("given up") + "\n")) << content;
}

// Verifies the bounded pool: five containers that write for about a second each, followed by two
// workers taking turns of 150 ms, leave every log whole, without a line lost or repeated.
TEST_F(CollectorTest, StreamsBeyondThePoolTakeTurnsAndLoseNothing) {
  const std::vector<std::string> pods = {"a", "b", "c", "d", "e"};
  for (const std::string& pod : pods) {
    createPod(pod, "i=1; while [ $i -le 40 ]; do echo line $i; i=$((i+1)); sleep 0.025; done");
  }
  CollectorOptions options{dir_};
  options.maxStreams = 2;
  options.slice = 150ms;
  LogCollector collector(*client_, options);
  ASSERT_TRUE(Harness::eventually(
      [&] {
        bool ended = true;
        for (const std::string& pod : pods) {
          const json p = getPod(pod);
          collector.track(p, "default/run/0-0");
          ended = ended && collector.logsOf(p).ended;
        }
        return ended;
      },
      30s));
  for (const std::string& pod : pods) {
    EXPECT_EQ(texts(readFile(file(pod, "main"))), numbered(1, 40)) << pod;
  }
  EXPECT_EQ(collector.workers(), 2u);
}

// Verifies that a silent stream gives its worker up at the end of its turn: with one worker, a
// container that prints nothing for 3 s does not hold back the log of one that finishes at once.
TEST_F(CollectorTest, SilentStreamDoesNotHoldTheOnlyWorker) {
  createPod("quiet", "sleep 3; echo late");
  ASSERT_TRUE(Harness::eventually(
      [&] { return getPod("quiet")["status"].value("phase", "") == "Running"; }, 10s));
  CollectorOptions options{dir_};
  options.maxStreams = 1;
  options.slice = 150ms;
  LogCollector collector(*client_, options);
  collector.track(getPod("quiet"), "default/run/0-0");
  createPod("busy", "for i in 1 2 3; do echo line $i; done");
  ASSERT_TRUE(collect(collector, "busy"));
  EXPECT_EQ(texts(readFile(file("busy", "main"))), numbered(1, 3));
  EXPECT_EQ(getPod("quiet")["status"].value("phase", ""), "Running")
      << "the busy pod's log waited for the quiet one to end";
  ASSERT_TRUE(collect(collector, "quiet"));
  EXPECT_EQ(texts(readFile(file("quiet", "main"))), std::vector<std::string>{"late"});
}

// Verifies the fence: once it says no, the stream ends though its container keeps printing, and
// its log counts as neither ended nor incomplete; once it says yes again, the next track()
// follows the container again from where the file ends, losing and repeating nothing.
TEST_F(CollectorTest, FencedStreamStopsWritingAndResumesExactly) {
  createPod("p", "i=1; while [ $i -le 60 ]; do echo line $i; i=$((i+1)); sleep 0.05; done");
  std::atomic<bool> leading{true};
  CollectorOptions options{dir_};
  options.mayWrite = [&leading] { return leading.load(); };
  LogCollector collector(*client_, options);
  ASSERT_TRUE(followUntil(collector, "p", 5));
  leading = false;
  ASSERT_TRUE(Harness::eventually([&] { return collector.activeStreams() == 0; }, 10s));
  EXPECT_LT(texts(readFile(file("p", "main"))).size(), 60u) << "the stream ran to its end";
  EXPECT_FALSE(collector.logsOf(getPod("p")).ended);
  EXPECT_TRUE(collector.logsOf(getPod("p")).incomplete.empty());

  leading = true;
  ASSERT_TRUE(collect(collector, "p"));
  EXPECT_EQ(texts(readFile(file("p", "main"))), numbered(1, 60));
}

TEST(ResumePoint, ReadsTheLastTimestampAndItsLines) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hetbench-resume-" + std::to_string(::getpid()) + ".log");
  struct Row {
    const char* content;
    const char* timestamp;
    std::uint64_t lines;
    bool truncated;
  };
  const Row rows[] = {
      {"", "", 0, false},
      {"2026-11-22T10:00:00.000000001Z a\n", "2026-11-22T10:00:00.000000001Z", 1, false},
      {"2026-11-22T10:00:00.1Z a\n2026-11-22T10:00:00.2Z b\n2026-11-22T10:00:00.2Z c\n",
       "2026-11-22T10:00:00.2Z", 2, false},
      {"2026-11-22T10:00:00.1Z a\n2026-11-22T10:00:00.1Z [hetbench: log truncated at 10 bytes]\n",
       "2026-11-22T10:00:00.1Z", 2, true},
      {"no timestamp\n", "", 0, false},
  };
  for (const Row& row : rows) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << row.content;
    }
    const ResumePoint point = resumePoint(path);
    EXPECT_EQ(point.timestamp, row.timestamp) << row.content;
    EXPECT_EQ(point.linesAtTimestamp, row.lines) << row.content;
    EXPECT_EQ(point.truncated, row.truncated) << row.content;
    EXPECT_EQ(point.size, std::string(row.content).size()) << row.content;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace hetbench::logs
