#include "hetbench/distributed/world.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetbench::distributed {
namespace {

using Environment = std::map<std::string, std::string>;

World worldFrom(const Environment& environment) {
  return worldFromEnvironment([&](const char* name) -> const char* {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
}

struct Accepted {
  std::string what;
  Environment environment;
  int size;
  int rank;
  int localRank;
  std::optional<int> localSize;
  std::string masterAddr;
  int masterPort;
};

// Verifies the worlds read from torchrun's and Kubernetes' variables, with their defaults.
TEST(WorldFromEnvironment, ReadsTheLaunchersVariables) {
  const std::vector<Accepted> cases = {
      {"nothing set: one process", {}, 1, 0, 0, std::nullopt, "", 29500},
      {"torchrun",
       {{"WORLD_SIZE", "8"},
        {"RANK", "5"},
        {"LOCAL_RANK", "1"},
        {"LOCAL_WORLD_SIZE", "4"},
        {"MASTER_ADDR", "10.0.0.7"},
        {"MASTER_PORT", "29400"}},
       8,
       5,
       1,
       4,
       "10.0.0.7",
       29400},
      {"Indexed Job: the completion index is the rank, local rank 0",
       {{"WORLD_SIZE", "4"}, {"JOB_COMPLETION_INDEX", "3"}, {"MASTER_ADDR", "run-0.svc"}},
       4,
       3,
       0,
       std::nullopt,
       "run-0.svc",
       29500},
      {"RANK wins over the completion index",
       {{"WORLD_SIZE", "4"}, {"RANK", "1"}, {"JOB_COMPLETION_INDEX", "3"}, {"MASTER_ADDR", "h"}},
       4,
       1,
       0,
       std::nullopt,
       "h",
       29500},
      {"one process may name a master",
       {{"WORLD_SIZE", "1"}, {"MASTER_ADDR", "h"}},
       1,
       0,
       0,
       std::nullopt,
       "h",
       29500},
      {"one process with RANK 0",
       {{"RANK", "0"}, {"LOCAL_RANK", "0"}},
       1,
       0,
       0,
       std::nullopt,
       "",
       29500},
      {"highest port", {{"MASTER_PORT", "65535"}}, 1, 0, 0, std::nullopt, "", 65535},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const World world = worldFrom(c.environment);
    EXPECT_EQ(world.size, c.size);
    EXPECT_EQ(world.rank, c.rank);
    EXPECT_EQ(world.localRank, c.localRank);
    EXPECT_EQ(world.localSize, c.localSize);
    EXPECT_EQ(world.masterAddr, c.masterAddr);
    EXPECT_EQ(world.masterPort, c.masterPort);
    EXPECT_EQ(world.distributed(), c.size > 1);
  }
}

struct Refused {
  Environment environment;
  std::string message;
};

// Verifies that bad and inconsistent values are refused with the variable and its value.
TEST(WorldFromEnvironment, RefusesBadValuesNamingThem) {
  const Environment two = {{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}};
  const auto with = [&](Environment extra) {
    extra.insert(two.begin(), two.end());
    return extra;
  };
  const std::vector<Refused> cases = {
      {{{"WORLD_SIZE", "two"}}, "WORLD_SIZE=\"two\" is not a positive number of processes"},
      {{{"WORLD_SIZE", "0"}}, "WORLD_SIZE=\"0\" is not a positive number of processes"},
      {{{"WORLD_SIZE", ""}}, "WORLD_SIZE=\"\" is not a positive number of processes"},
      {{{"WORLD_SIZE", " 2"}}, "WORLD_SIZE=\" 2\" is not a positive number of processes"},
      {{{"WORLD_SIZE", "99999999999999999999"}},
       "WORLD_SIZE=\"99999999999999999999\" is not a positive number of processes"},
      {with({{"RANK", "2"}}), "RANK=\"2\" is not below WORLD_SIZE=2"},
      {with({{"RANK", "-1"}}), "RANK=\"-1\" is not a rank (a non-negative integer)"},
      {with({{"RANK", "1.0"}}), "RANK=\"1.0\" is not a rank (a non-negative integer)"},
      {with({{"JOB_COMPLETION_INDEX", "5"}}),
       "JOB_COMPLETION_INDEX=\"5\" is not below WORLD_SIZE=2"},
      {with({}), "WORLD_SIZE=2 needs RANK (or JOB_COMPLETION_INDEX) to say which process this is"},
      {{{"WORLD_SIZE", "2"}, {"RANK", "1"}},
       "WORLD_SIZE=2 needs MASTER_ADDR, the address of rank 0's rendezvous store"},
      {with({{"RANK", "1"}, {"MASTER_ADDR", ""}}), "MASTER_ADDR=\"\" is not an address"},
      {with({{"RANK", "0"}, {"MASTER_PORT", "65536"}}),
       "MASTER_PORT=\"65536\" is not a port (1-65535)"},
      {with({{"RANK", "0"}, {"MASTER_PORT", "0"}}), "MASTER_PORT=\"0\" is not a port (1-65535)"},
      {with({{"RANK", "0"}, {"MASTER_PORT", "http"}}),
       "MASTER_PORT=\"http\" is not a port (1-65535)"},
      {with({{"RANK", "0"}, {"LOCAL_RANK", "x"}}),
       "LOCAL_RANK=\"x\" is not a rank (a non-negative integer)"},
      {with({{"RANK", "0"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "1"}}),
       "LOCAL_RANK=\"1\" is not below LOCAL_WORLD_SIZE=1"},
      {with({{"RANK", "0"}, {"LOCAL_RANK", "2"}}), "LOCAL_RANK=\"2\" is not below WORLD_SIZE=2"},
      {with({{"RANK", "0"}, {"LOCAL_WORLD_SIZE", "3"}}),
       "LOCAL_WORLD_SIZE=\"3\" is above WORLD_SIZE=2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    try {
      worldFrom(c.environment);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
  }
}

// Verifies that GLOO_SOCKET_IFNAME is passed on and that describe() says where a rank is.
TEST(WorldFromEnvironment, DescribesTheWorld) {
  const World world = worldFrom({{"WORLD_SIZE", "4"},
                                 {"RANK", "3"},
                                 {"LOCAL_RANK", "1"},
                                 {"LOCAL_WORLD_SIZE", "2"},
                                 {"MASTER_ADDR", "10.0.0.5"},
                                 {"GLOO_SOCKET_IFNAME", "eth1"}});
  EXPECT_EQ(world.glooInterface, "eth1");
  EXPECT_EQ(describe(world), "rank 3 of 4 (local 1 of 2), rendezvous at 10.0.0.5:29500");
  EXPECT_EQ(describe(worldFrom({})), "rank 0 of 1 (local 0)");
}

}  // namespace
}  // namespace hetbench::distributed
