#include "hetbench/logs/layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace hetbench::logs {
namespace {

// Verifies the paths of the layout and that they read back into their unit.
TEST(LogLayout, PathsReadBack) {
  constexpr const char* kUid = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
  const std::string unit = LogLayout::unitDir("ns", "run", kUid, 3, 1);
  EXPECT_EQ(unit, std::string("ns/run/") + kUid + "/3-1");
  EXPECT_EQ(LogLayout::runDir("ns", "run"), "ns/run/");
  EXPECT_EQ(LogLayout::generationDir("ns", "run", kUid), std::string("ns/run/") + kUid + "/");
  EXPECT_EQ(LogLayout::deletedMarker(LogLayout::generationDir("ns", "run", kUid)),
            std::string("ns/run/") + kUid + "/deleted");
  EXPECT_EQ(LogLayout::manifestFile(unit), unit + "/manifest.json");
  const std::string log = LogLayout::containerLog(unit, "pod", "train");
  EXPECT_EQ(log, unit + "/pod/train.log");
  EXPECT_TRUE(LogLayout::isContainerLog(log));
  EXPECT_FALSE(LogLayout::isContainerLog(LogLayout::manifestFile(unit)));
  EXPECT_FALSE(LogLayout::isContainerLog(".log"));
  const auto generation =
      LogLayout::generationOf(log.substr(LogLayout::runDir("ns", "run").size()));
  ASSERT_TRUE(generation);
  EXPECT_EQ(generation->first, kUid);
  EXPECT_EQ(generation->second, "3-1/pod/train.log");
  const auto parsed = LogLayout::unitOf(generation->second);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, std::make_pair(std::int64_t{3}, std::int64_t{1}));
  for (const char* bad : {"3-1", "x-1/p/c.log", "3-/p/c.log", "3_1/p/c.log", "-1/p/c.log"})
    EXPECT_FALSE(LogLayout::unitOf(bad)) << bad;
  for (const char* bad :
       {"3-1/p/c.log", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D/3-1/p/c.log",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4/3-1/p/c.log", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"})
    EXPECT_FALSE(LogLayout::generationOf(bad)) << bad;
}

// Verifies that a unit's logs on disk are its container logs only, sorted, each named by its
// path below the unit.
TEST(LogLayout, UnitLogsOnDisk) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("hetbench-layout-" + std::to_string(::getpid()));
  const std::filesystem::path unit =
      dir / LogLayout::unitDir("ns", "r", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", 0, 0);
  for (const char* file : {"pod-1/b.log", "pod-0/a.log", "manifest.json", "pod-0/a.log.tmp"}) {
    std::filesystem::create_directories((unit / file).parent_path());
    std::ofstream(unit / file) << "x\n";
  }
  const std::vector<LogLayout::UnitLog> logs = LogLayout::unitLogs(unit);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].source, "pod-0/a.log");
  EXPECT_EQ(logs[1].source, "pod-1/b.log");
  EXPECT_TRUE(LogLayout::unitLogs(dir / "missing").empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetbench::logs
