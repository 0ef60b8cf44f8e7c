#include "hetbench/logs/janitor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "hetbench/common/time.h"
#include "hetbench/logs/layout.h"

namespace hetbench::logs {
namespace {

namespace fs = std::filesystem;
using std::chrono::hours;

constexpr const char* kActive = "00000000-0000-4000-8000-000000000001";
constexpr const char* kGone = "00000000-0000-4000-8000-000000000002";
constexpr const char* kFinished = "00000000-0000-4000-8000-000000000003";
constexpr const char* kElsewhere = "00000000-0000-4000-8000-000000000004";

class LogJanitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetbench-janitor-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes `bytes` bytes into a container log of one unit of a run.
  void log(const std::string& ns, const std::string& run, const std::string& uid,
           std::size_t bytes) {
    const fs::path file =
        dir_ / LogLayout::containerLog(LogLayout::unitDir(ns, run, uid, 0, 0), "pod", "c");
    fs::create_directories(file.parent_path());
    std::ofstream(file) << std::string(bytes, 'x');
  }
  fs::path generation(const std::string& ns, const std::string& run, const std::string& uid) {
    return dir_ / LogLayout::generationDir(ns, run, uid);
  }

  fs::path dir_;
  const common::WallTime t0_{std::chrono::seconds(1'800'000'000)};
};

// Verifies a sweep: a gone run is marked when first seen gone and its logs deleted once the
// retention has passed since then; active runs, unwatched namespaces and files outside any
// run's directory stay; the bytes in use are those left.
TEST_F(LogJanitorTest, DeletesTheLogsOfGoneRunsAfterTheRetention) {
  log("lab", "live", kActive, 100);
  log("lab", "again", kGone, 200);
  log("other", "x", kElsewhere, 300);
  fs::create_directories(dir_ / "lab/legacy/0-0/pod");
  std::ofstream(dir_ / "lab/legacy/0-0/pod/c.log") << std::string(50, 'y');
  LogJanitor janitor(dir_, {hours(24), 0}, {"lab"});
  const std::vector<LiveRun> live = {{"lab", "live", kActive, std::nullopt},
                                     {"lab", "again", kFinished, t0_}};

  janitor.sweep(t0_, [&] { return live; });
  const fs::path marker =
      dir_ / LogLayout::deletedMarker(LogLayout::generationDir("lab", "again", kGone));
  ASSERT_TRUE(fs::exists(marker));
  std::ifstream in(marker);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, common::formatRfc3339(t0_));
  EXPECT_FALSE(fs::exists(
      dir_ / LogLayout::deletedMarker(LogLayout::generationDir("other", "x", kElsewhere))))
      << "a namespace the operator does not watch is not judged";
  EXPECT_GE(janitor.bytesInUse(), 650u);

  janitor.sweep(t0_ + hours(23), [&] { return live; });
  EXPECT_TRUE(fs::exists(generation("lab", "again", kGone)));

  janitor.sweep(t0_ + hours(24), [&] { return live; });
  EXPECT_FALSE(fs::exists(generation("lab", "again", kGone)));
  EXPECT_FALSE(fs::exists(dir_ / "lab/again")) << "the emptied run name's directory goes too";
  EXPECT_TRUE(fs::exists(generation("lab", "live", kActive)));
  EXPECT_TRUE(fs::exists(generation("other", "x", kElsewhere)));
  EXPECT_TRUE(fs::exists(dir_ / "lab/legacy/0-0/pod/c.log"));
  EXPECT_EQ(janitor.bytesInUse(), 450u);
  EXPECT_EQ(janitor.prunedRuns(), (std::map<std::string, std::uint64_t>{{"retention", 1}}));
  EXPECT_GT(janitor.freeBytes(), 0u);
}

// Verifies that a run a lagging list missed is not deleted: its mark goes when the run is seen
// again, and the retention starts over when it is next missed.
TEST_F(LogJanitorTest, ARunSeenAgainLosesItsMark) {
  log("lab", "live", kActive, 10);
  LogJanitor janitor(dir_, {hours(1), 0}, {});
  const fs::path marker =
      dir_ / LogLayout::deletedMarker(LogLayout::generationDir("lab", "live", kActive));
  janitor.sweep(t0_, [] { return std::vector<LiveRun>{}; });
  ASSERT_TRUE(fs::exists(marker));
  janitor.sweep(t0_ + hours(2), [] {
    return std::vector<LiveRun>{{"lab", "live", kActive, std::nullopt}};
  });
  EXPECT_FALSE(fs::exists(marker));
  janitor.sweep(t0_ + hours(3), [] { return std::vector<LiveRun>{}; });
  EXPECT_TRUE(fs::exists(generation("lab", "live", kActive)));
  EXPECT_TRUE(janitor.prunedRuns().empty());
}

// Verifies the size bound: over it, the oldest finished run's logs go first and an active
// run's never do.
TEST_F(LogJanitorTest, KeepsTheDirectoryWithinItsBound) {
  log("lab", "old", kGone, 400);
  log("lab", "new", kFinished, 400);
  log("lab", "live", kActive, 400);
  LogJanitor janitor(dir_, {hours(24 * 365), 1000}, {""});
  janitor.sweep(t0_, [&] {
    return std::vector<LiveRun>{{"lab", "old", kGone, t0_ - hours(2)},
                                {"lab", "new", kFinished, t0_ - hours(1)},
                                {"lab", "live", kActive, std::nullopt}};
  });
  EXPECT_FALSE(fs::exists(generation("lab", "old", kGone)));
  EXPECT_TRUE(fs::exists(generation("lab", "new", kFinished)));
  EXPECT_TRUE(fs::exists(generation("lab", "live", kActive)));
  EXPECT_EQ(janitor.bytesInUse(), 800u);
  EXPECT_EQ(janitor.prunedRuns(), (std::map<std::string, std::uint64_t>{{"size", 1}}));
}

}  // namespace
}  // namespace hetbench::logs
