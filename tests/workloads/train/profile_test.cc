#include "hetbench/train/profile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hetbench::train {
namespace {

// Verifies that activities add up by device and name, the longest total first, ties in the
// order of device and name.
TEST(Profile, SummarizesByDeviceAndName) {
  struct Case {
    std::string name;
    std::vector<ProfiledActivity> activities;
    std::vector<ProfileEntry> expected;
  };
  const std::vector<Case> cases = {
      {"nothing recorded", {}, {}},
      {"one activity", {{"cpu", "aten::add", 2.5}}, {{"cpu", "aten::add", 1, 2.5}}},
      {"calls of a name add up",
       {{"cuda", "gemm", 10}, {"cpu", "aten::mm", 4}, {"cuda", "gemm", 30}},
       {{"cuda", "gemm", 2, 40}, {"cpu", "aten::mm", 1, 4}}},
      {"the same name on two devices stays apart",
       {{"cpu", "copy", 1}, {"cuda", "copy", 5}, {"cpu", "copy", 1}},
       {{"cuda", "copy", 1, 5}, {"cpu", "copy", 2, 2}}},
      {"ties by device, then name",
       {{"cuda", "b", 3}, {"cuda", "a", 3}, {"cpu", "z", 3}},
       {{"cpu", "z", 1, 3}, {"cuda", "a", 1, 3}, {"cuda", "b", 1, 3}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(summarizeProfile(c.activities), c.expected) << c.name;
  }
}

TEST(Profile, PathOfEachRank) {
  EXPECT_EQ(profilePathOfRank("/out/p.json", 0, 1), "/out/p.json");
  EXPECT_EQ(profilePathOfRank("/out/p.json", 0, 2), "/out/p.json.rank0");
  EXPECT_EQ(profilePathOfRank("/out/p.json", 7, 8), "/out/p.json.rank7");
}

TEST(Profile, WritesTheReportAsJson) {
  const ProfileReport report{3, 1, 10, 2.5, "cuda:1", {{"cuda", "gemm", 20, 1500.5}}};
  const auto json = nlohmann::json::parse(profileJson(report));
  EXPECT_EQ(json.at("v"), 1);
  EXPECT_EQ(json.at("epoch"), 3);
  EXPECT_EQ(json.at("rank"), 1);
  EXPECT_EQ(json.at("steps"), 10);
  EXPECT_EQ(json.at("wall_seconds"), 2.5);
  EXPECT_EQ(json.at("device"), "cuda:1");
  EXPECT_TRUE(json.at("torch").is_string());
  EXPECT_EQ(
      json.at("entries"),
      nlohmann::json::parse(R"([{"device":"cuda","name":"gemm","calls":20,"total_us":1500.5}])"));
}

}  // namespace
}  // namespace hetbench::train
