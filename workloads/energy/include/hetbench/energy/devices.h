#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetbench::energy {

/// The GPUs one rank drives, for MeterOptions::devices, or why it has none.
struct RankDevices {
  /// NVML indices or GPU UUIDs; never empty when unavailable is empty.
  std::vector<std::string> devices;
  /// One line to print ("energy not measured: ..."); empty when devices is usable.
  std::string unavailable;
};

/// The devices of local rank `localRank` (LOCAL_RANK's value; unset is rank 0) when each rank
/// drives `devicesPerRank` consecutive GPUs of those CUDA_VISIBLE_DEVICES makes visible (unset:
/// all, by index). Reads the list as CUDA does: comma-separated indices or UUIDs (GPU-...,
/// MIG-...), ending at the first entry that is neither. An index means NVML's index, which is
/// CUDA's under CUDA_DEVICE_ORDER=PCI_BUS_ID or on GPUs of one model. Throws std::invalid_argument
/// when devicesPerRank is below 1.
RankDevices rankDevices(std::optional<std::string_view> cudaVisibleDevices,
                        std::optional<std::string_view> localRank, int devicesPerRank = 1);

/// rankDevices with this process' CUDA_VISIBLE_DEVICES and LOCAL_RANK.
RankDevices rankDevicesFromEnvironment(int devicesPerRank = 1);

}  // namespace hetbench::energy
