#include "cluster/container_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using namespace std::chrono_literals;

/// Records what a log stream writes; can be told that its client went away.
class FakeResponseWriter final : public http::ResponseWriter {
 public:
  bool send(int, const http::Headers&, std::string_view) override { return false; }
  bool startStream(int status, const http::Headers& headers) override {
    {
      std::lock_guard lock(mu_);
      status_ = status;
      headers_ = headers;
    }
    changed_.notify_all();
    return !closed();
  }
  bool write(std::string_view chunk) override {
    {
      std::lock_guard lock(mu_);
      if (closed_) return false;
      body_.append(chunk);
      ++writes_;
    }
    changed_.notify_all();
    return true;
  }
  bool closed() override {
    std::lock_guard lock(mu_);
    return closed_;
  }

  void setClosed() {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  std::string body() const {
    std::lock_guard lock(mu_);
    return body_;
  }
  int status() const {
    std::lock_guard lock(mu_);
    return status_;
  }
  http::Headers headers() const {
    std::lock_guard lock(mu_);
    return headers_;
  }
  int writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }
  /// Waits until startStream has been called.
  bool waitStarted() const {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 10s, [&] { return status_ != 0; });
  }
  /// Waits until the body is `expected`.
  bool waitForBody(const std::string& expected) const {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 10s, [&] { return body_ == expected; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  int status_ = 0;
  http::Headers headers_;
  std::string body_;
  int writes_ = 0;
  bool closed_ = false;
};

/// Runs stream() on its own thread, as a follow request's connection thread would. Closes the
/// log before joining, so that a test that fails early cannot hang on a follower.
class BackgroundStream {
 public:
  BackgroundStream(ContainerLog& log, LogSelection selection, FakeResponseWriter& out,
                   std::function<bool()> cut = nullptr)
      : log_(log), cut_(std::move(cut)), thread_([this, &log, selection, &out] {
          log.stream(selection, out, cut_);
          std::lock_guard lock(mu_);
          done_ = true;
          doneCv_.notify_all();
        }) {}
  ~BackgroundStream() {
    log_.close();
    thread_.join();
  }

  bool waitDone() {
    std::unique_lock lock(mu_);
    return doneCv_.wait_for(lock, 10s, [&] { return done_; });
  }

 private:
  ContainerLog& log_;
  std::function<bool()> cut_;
  std::mutex mu_;
  std::condition_variable doneCv_;
  bool done_ = false;
  std::thread thread_;
};

class ContainerLogTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "container_log_test.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto log = ContainerLog::create(dir_ + "/0.log", clock_);
    ASSERT_TRUE(log.isOk()) << log.status().toString();
    log_ = *log;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Appends "line 0".."line N-1" to stdout, one millisecond apart.
  void appendLines(int count) {
    for (int i = 0; i < count; ++i) {
      log_->append("stdout", "line " + std::to_string(i));
      clock_.advance(1ms);
    }
  }

  std::string streamed(const LogSelection& selection) {
    FakeResponseWriter out;
    log_->stream(selection, out, nullptr);
    EXPECT_EQ(out.status(), 200);
    return out.body();
  }

  std::string fileContent() const {
    std::ifstream in(log_->path());
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

  common::FakeClock clock_{common::WallTime(std::chrono::seconds(1'700'000'000))};
  std::string dir_;
  std::shared_ptr<ContainerLog> log_;
};

// Verifies that lines are written in CRI format with nanosecond timestamps from the clock.
TEST_F(ContainerLogTest, WritesCriLines) {
  log_->append("stdout", "hello world");
  clock_.advance(1500us);
  log_->append("stderr", "");
  clock_.advance(1ns);
  log_->append("stdout", "half", true);
  EXPECT_EQ(fileContent(),
            "2023-11-14T22:13:20Z stdout F hello world\n"
            "2023-11-14T22:13:20.0015Z stderr F \n"
            "2023-11-14T22:13:20.001500001Z stdout P half\n");
  EXPECT_EQ(log_->lineCount(), 3u);
  EXPECT_FALSE(log_->closed());
  log_->close();
  EXPECT_TRUE(log_->closed());
  log_->append("stdout", "after close");
  EXPECT_EQ(log_->lineCount(), 3u);
}

// Verifies that a newline inside an appended line cannot break the file's format.
TEST_F(ContainerLogTest, SplitsEmbeddedNewlines) {
  log_->append("stdout", "a\nb", true);
  EXPECT_EQ(fileContent(),
            "2023-11-14T22:13:20Z stdout F a\n"
            "2023-11-14T22:13:20Z stdout P b\n");
}

// Verifies that creating a log where no file can be made is an error.
TEST_F(ContainerLogTest, CreateFailsForMissingDirectory) {
  EXPECT_FALSE(ContainerLog::create(dir_ + "/missing/0.log", clock_).isOk());
}

// Verifies that a stream is text/plain and sends each line's text with a newline, a partial
// line without one, both streams interleaved.
TEST_F(ContainerLogTest, StreamsText) {
  log_->append("stdout", "one");
  log_->append("stderr", "two");
  log_->append("stdout", "thr", true);
  log_->append("stdout", "ee");
  FakeResponseWriter out;
  log_->stream({}, out, nullptr);
  EXPECT_EQ(out.status(), 200);
  EXPECT_EQ(out.headers(), (http::Headers{{"Content-Type", "text/plain"}}));
  EXPECT_EQ(out.body(), "one\ntwo\nthree\n");
}

// Verifies that timestamps prefix each line with its time in nine fractional digits, as the
// kubelet writes them (the file itself keeps RFC3339Nano, trailing zeros dropped).
TEST_F(ContainerLogTest, StreamsTimestamps) {
  appendLines(2);
  LogSelection selection;
  selection.timestamps = true;
  EXPECT_EQ(streamed(selection),
            "2023-11-14T22:13:20.000000000Z line 0\n2023-11-14T22:13:20.001000000Z line 1\n");
}

// Verifies that since selects lines at or after the time.
TEST_F(ContainerLogTest, SinceSelectsLaterLines) {
  appendLines(5);
  LogSelection selection;
  selection.since = common::WallTime(std::chrono::seconds(1'700'000'000)) + 3ms;
  EXPECT_EQ(streamed(selection), "line 3\nline 4\n");
  selection.since = clock_.now() + 1h;
  EXPECT_EQ(streamed(selection), "");
}

// Verifies that tailLines selects the last lines, of those since `since` when both are set.
TEST_F(ContainerLogTest, TailSelectsLastLines) {
  appendLines(5);
  LogSelection selection;
  selection.tailLines = 2;
  EXPECT_EQ(streamed(selection), "line 3\nline 4\n");
  selection.tailLines = 0;
  EXPECT_EQ(streamed(selection), "");
  selection.tailLines = 100;
  EXPECT_EQ(streamed(selection), "line 0\nline 1\nline 2\nline 3\nline 4\n");
  selection.tailLines = 3;
  selection.since = common::WallTime(std::chrono::seconds(1'700'000'000)) + 3ms;
  EXPECT_EQ(streamed(selection), "line 3\nline 4\n");
}

// Verifies that limitBytes cuts the output, timestamps included, in the middle of a line.
TEST_F(ContainerLogTest, LimitBytesTruncates) {
  appendLines(3);
  LogSelection selection;
  selection.limitBytes = 10;
  EXPECT_EQ(streamed(selection), "line 0\nlin");
  selection.limitBytes = 7;
  EXPECT_EQ(streamed(selection), "line 0\n");
  selection.timestamps = true;
  selection.limitBytes = 35;
  EXPECT_EQ(streamed(selection), "2023-11-14T22:13:20.000000000Z line");
}

// Verifies that a large log is streamed in large chunks, and that a tail of it is exact.
TEST_F(ContainerLogTest, StreamsLargeLogInChunks) {
  constexpr int kLines = 50'000;
  constexpr int kTail = 20'000;
  std::string expected;
  std::string expectedTail;
  for (int i = 0; i < kLines; ++i) {
    std::string text = "entry number " + std::to_string(i) + "\n";
    log_->append(i % 2 == 0 ? "stdout" : "stderr", text.substr(0, text.size() - 1));
    expected += text;
    if (i >= kLines - kTail) expectedTail += text;
    clock_.advance(1us);
  }
  FakeResponseWriter out;
  log_->stream({}, out, nullptr);
  EXPECT_EQ(out.body(), expected);
  EXPECT_LT(out.writes(), kLines / 100);

  LogSelection selection;
  selection.tailLines = kTail;
  EXPECT_EQ(streamed(selection), expectedTail);
}

// Verifies that follow sends the existing lines, then lines appended later, and ends after the
// log is closed.
TEST_F(ContainerLogTest, FollowStreamsUntilClosed) {
  appendLines(1);
  FakeResponseWriter out;
  LogSelection selection;
  selection.follow = true;
  BackgroundStream stream(*log_, selection, out);
  ASSERT_TRUE(out.waitForBody("line 0\n"));
  log_->append("stdout", "later");
  ASSERT_TRUE(out.waitForBody("line 0\nlater\n"));
  log_->append("stderr", "last");
  log_->close();
  EXPECT_TRUE(stream.waitDone());
  EXPECT_EQ(out.body(), "line 0\nlater\nlast\n");
}

// Verifies that follow with tail 0 sends only lines appended after the stream started.
TEST_F(ContainerLogTest, FollowWithTailZeroSendsOnlyNewLines) {
  appendLines(3);
  FakeResponseWriter out;
  LogSelection selection;
  selection.follow = true;
  selection.tailLines = 0;
  BackgroundStream stream(*log_, selection, out);
  ASSERT_TRUE(out.waitStarted());
  log_->append("stdout", "new");
  log_->close();
  EXPECT_TRUE(stream.waitDone());
  EXPECT_EQ(out.body(), "new\n");
}

// Verifies that follow ends when the client is gone, although the log stays open.
TEST_F(ContainerLogTest, FollowEndsWhenClientGone) {
  appendLines(1);
  FakeResponseWriter out;
  LogSelection selection;
  selection.follow = true;
  BackgroundStream stream(*log_, selection, out);
  ASSERT_TRUE(out.waitForBody("line 0\n"));
  out.setClosed();
  EXPECT_TRUE(stream.waitDone());
  EXPECT_FALSE(log_->closed());
}

// Verifies that follow ends when cut() turns true, although the log stays open.
TEST_F(ContainerLogTest, FollowEndsWhenCut) {
  appendLines(1);
  FakeResponseWriter out;
  LogSelection selection;
  selection.follow = true;
  std::atomic<bool> cut = false;
  BackgroundStream stream(*log_, selection, out, [&] { return cut.load(); });
  ASSERT_TRUE(out.waitForBody("line 0\n"));
  cut = true;
  EXPECT_TRUE(stream.waitDone());
  EXPECT_FALSE(log_->closed());
  EXPECT_EQ(out.body(), "line 0\n");
}

}  // namespace
}  // namespace hetbench::kubesim
