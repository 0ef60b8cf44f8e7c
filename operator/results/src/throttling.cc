#include "hetbench/results/throttling.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace hetbench::results {
namespace {

/// One GPU of one rank over the measured epochs: the seconds it spent slowed, by cause.
struct SlowedTime {
  double seconds = 0;
  double thermal = 0;
  double hardware = 0;
  double reducedPowerCap = 0;
  std::int64_t eccUncorrected = 0;
  std::vector<std::int64_t> xids;
};

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

}  // namespace

std::optional<std::string> untrustworthyGpus(const std::vector<EpochSample>& epochs,
                                             const std::set<std::int64_t>& measured,
                                             const ThrottleLimits& limits) {
  std::map<std::pair<std::int64_t, std::string>, SlowedTime> gpus;  // (rank, device)
  for (const EpochSample& epoch : epochs) {
    if (!measured.contains(epoch.epoch)) continue;
    for (const GpuEpoch& gpu : epoch.gpus) {
      SlowedTime& time = gpus[{epoch.rank, gpu.device}];
      time.seconds += epoch.wallSeconds;
      time.thermal += gpu.thermalShare.value_or(0) * epoch.wallSeconds;
      time.hardware += gpu.hardwareShare.value_or(0) * epoch.wallSeconds;
      const bool reducedLimit = gpu.powerLimitWatts && gpu.defaultPowerLimitWatts &&
                                *gpu.powerLimitWatts < *gpu.defaultPowerLimitWatts;
      if (reducedLimit) time.reducedPowerCap += gpu.powerCapShare.value_or(0) * epoch.wallSeconds;
      time.eccUncorrected += gpu.eccUncorrected.value_or(0);
      time.xids.insert(time.xids.end(), gpu.xids.begin(), gpu.xids.end());
    }
  }
  for (const auto& [key, time] : gpus) {
    const std::string gpu = "rank " + std::to_string(key.first) + ", " + key.second + ": ";
    if (!time.xids.empty()) {
      // A GPU in trouble can raise thousands: the message stays short.
      constexpr std::size_t kListed = 5;
      std::string list;
      for (std::size_t i = 0; i < std::min(kListed, time.xids.size()); ++i) {
        list += (i == 0 ? "" : ", ") + std::to_string(time.xids[i]);
      }
      if (time.xids.size() > kListed) {
        list += " and " + std::to_string(time.xids.size() - kListed) + " more";
      }
      return gpu + "Xid " + list + " during the measured epochs";
    }
    if (time.eccUncorrected > 0) {
      return gpu + std::to_string(time.eccUncorrected) +
             " uncorrected ECC error(s) during the measured epochs";
    }
    if (time.seconds <= 0) continue;
    for (const auto& [cause, seconds] :
         {std::pair<const char*, double>{"thermal slowdown", time.thermal},
          {"hardware slowdown", time.hardware},
          {"a power cap below the default limit", time.reducedPowerCap}}) {
      const double share = seconds / time.seconds;
      if (share > limits.maxShare) {
        return gpu + cause + " for " + percent(share) + " of the measured time (at most " +
               percent(limits.maxShare) + ")";
      }
    }
  }
  return std::nullopt;
}

}  // namespace hetbench::results
