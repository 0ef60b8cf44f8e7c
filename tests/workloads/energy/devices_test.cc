#include "hetbench/energy/devices.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetbench::energy {
namespace {

struct Case {
  std::optional<std::string> cudaVisibleDevices;
  std::optional<std::string> localRank;
  int devicesPerRank;
  std::vector<std::string> devices;
  std::string unavailable;
};

// Verifies each rank's devices, or the reason for none, for CUDA_VISIBLE_DEVICES unset, empty,
// with indices, UUIDs and invalid entries, and for LOCAL_RANK unset, valid and invalid.
TEST(RankDevices, FollowsCudaVisibleDevicesAndLocalRank) {
  using V = std::vector<std::string>;
  const std::string none = "energy not measured: ";
  const Case cases[] = {
      // Unset: every GPU is visible, by NVML index.
      {std::nullopt, std::nullopt, 1, V{"0"}, ""},
      {std::nullopt, "3", 1, V{"3"}, ""},
      {std::nullopt, "1", 2, V{"2", "3"}, ""},
      // Indices, with spaces around entries.
      {"4,5,6,7", "1", 1, V{"5"}, ""},
      {"4,5,6,7", "1", 2, V{"6", "7"}, ""},
      {" 2, 3 ", "1", 1, V{"3"}, ""},
      {"4,5,6,7", " 0 ", 1, V{"4"}, ""},
      // UUIDs of GPUs and MIG instances.
      {"GPU-aaaa-1111,GPU-bbbb-2222", "1", 1, V{"GPU-bbbb-2222"}, ""},
      {"MIG-cccc-3333", std::nullopt, 1, V{"MIG-cccc-3333"}, ""},
      {"0,GPU-dddd-4444", std::nullopt, 2, V{"0", "GPU-dddd-4444"}, ""},
      // An invalid entry ends the list, as for CUDA.
      {"0,2,-1,1", "1", 1, V{"2"}, ""},
      {"0,2,-1,1", "2", 1, V{},
       none + "local rank 2 with 1 GPU(s) per rank needs 3 visible GPUs, but "
              "CUDA_VISIBLE_DEVICES=\"0,2,-1,1\" makes 2 visible"},
      {"0,1,2", "1", 2, V{},
       none + "local rank 1 with 2 GPU(s) per rank needs 4 visible GPUs, but "
              "CUDA_VISIBLE_DEVICES=\"0,1,2\" makes 3 visible"},
      {"0,,1", "1", 1, V{},
       none + "local rank 1 with 1 GPU(s) per rank needs 2 visible GPUs, but "
              "CUDA_VISIBLE_DEVICES=\"0,,1\" makes 1 visible"},
      // No GPU visible.
      {"", std::nullopt, 1, V{}, none + "CUDA_VISIBLE_DEVICES=\"\" makes no GPU visible"},
      {"-1", "0", 1, V{}, none + "CUDA_VISIBLE_DEVICES=\"-1\" makes no GPU visible"},
      {"NoDevFiles", "0", 1, V{},
       none + "CUDA_VISIBLE_DEVICES=\"NoDevFiles\" makes no GPU visible"},
      // LOCAL_RANK that is not a rank.
      {"0,1", "x", 1, V{}, none + "LOCAL_RANK=x is not a rank"},
      {std::nullopt, "-1", 1, V{}, none + "LOCAL_RANK=-1 is not a rank"},
      {std::nullopt, "", 1, V{}, none + "LOCAL_RANK= is not a rank"},
      {std::nullopt, "1x", 1, V{}, none + "LOCAL_RANK=1x is not a rank"},
      {"0,1", "99999999999999999999", 1, V{},
       none + "LOCAL_RANK=99999999999999999999 is not a rank"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("CUDA_VISIBLE_DEVICES=" + c.cudaVisibleDevices.value_or("(unset)") +
                 " LOCAL_RANK=" + c.localRank.value_or("(unset)") +
                 " per rank=" + std::to_string(c.devicesPerRank));
    const RankDevices result = rankDevices(c.cudaVisibleDevices, c.localRank, c.devicesPerRank);
    EXPECT_EQ(result.devices, c.devices);
    EXPECT_EQ(result.unavailable, c.unavailable);
  }
}

// Verifies that fewer than one device per rank is a programming error.
TEST(RankDevices, RefusesFewerThanOneDevicePerRank) {
  EXPECT_THROW(rankDevices(std::nullopt, std::nullopt, 0), std::invalid_argument);
}

/// Sets an environment variable (or unsets it, for nullopt) and restores it when destroyed.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { set(old_); }

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      setenv(name_, value->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

  const char* name_;
  std::optional<std::string> old_;
};

// Verifies that the environment's CUDA_VISIBLE_DEVICES and LOCAL_RANK are the ones read.
TEST(RankDevices, ReadsTheEnvironment) {
  {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-aaaa,GPU-bbbb,GPU-cccc");
    ScopedEnv rank("LOCAL_RANK", "2");
    EXPECT_EQ(rankDevicesFromEnvironment().devices, std::vector<std::string>{"GPU-cccc"});
  }
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", std::nullopt);
  ScopedEnv rank("LOCAL_RANK", std::nullopt);
  EXPECT_EQ(rankDevicesFromEnvironment(2).devices, (std::vector<std::string>{"0", "1"}));
}

}  // namespace
}  // namespace hetbench::energy
