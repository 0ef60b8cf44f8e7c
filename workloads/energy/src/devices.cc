#include "hetbench/energy/devices.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace hetbench::energy {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// What CUDA accepts as a device: an index, or a GPU or MIG instance UUID.
bool isDevice(std::string_view entry) {
  const bool index = !entry.empty() && std::all_of(entry.begin(), entry.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  return index || entry.starts_with("GPU-") || entry.starts_with("MIG-");
}

/// The visible devices of a CUDA_VISIBLE_DEVICES value: its entries up to the first that is not
/// a device, as CUDA reads it.
std::vector<std::string> visibleDevices(std::string_view list) {
  std::vector<std::string> devices;
  while (true) {
    const auto comma = list.find(',');
    const std::string_view entry = trim(list.substr(0, comma));
    if (!isDevice(entry)) break;
    devices.emplace_back(entry);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return devices;
}

RankDevices unavailable(std::string why) { return {{}, "energy not measured: " + why}; }

}  // namespace

RankDevices rankDevices(std::optional<std::string_view> cudaVisibleDevices,
                        std::optional<std::string_view> localRank, int devicesPerRank) {
  if (devicesPerRank < 1) {
    throw std::invalid_argument("energy: devicesPerRank must be at least 1, not " +
                                std::to_string(devicesPerRank));
  }
  int rank = 0;
  if (localRank) {
    const std::string_view text = trim(*localRank);
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (text.empty() || status != std::errc() || end != text.data() + text.size() || rank < 0) {
      return unavailable("LOCAL_RANK=" + std::string(*localRank) + " is not a rank");
    }
  }
  const long long first = static_cast<long long>(rank) * devicesPerRank;
  const long long last = first + devicesPerRank - 1;

  RankDevices result;
  if (!cudaVisibleDevices) {
    for (long long index = first; index <= last; ++index) {
      result.devices.push_back(std::to_string(index));
    }
    return result;
  }
  const std::vector<std::string> visible = visibleDevices(*cudaVisibleDevices);
  const std::string setting = "CUDA_VISIBLE_DEVICES=\"" + std::string(*cudaVisibleDevices) + "\"";
  if (visible.empty()) return unavailable(setting + " makes no GPU visible");
  if (last >= static_cast<long long>(visible.size())) {
    return unavailable("local rank " + std::to_string(rank) + " with " +
                       std::to_string(devicesPerRank) + " GPU(s) per rank needs " +
                       std::to_string(last + 1) + " visible GPUs, but " + setting + " makes " +
                       std::to_string(visible.size()) + " visible");
  }
  result.devices.assign(visible.begin() + first, visible.begin() + last + 1);
  return result;
}

RankDevices rankDevicesFromEnvironment(int devicesPerRank) {
  const auto variable = [](const char* name) -> std::optional<std::string_view> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return value;
  };
  return rankDevices(variable("CUDA_VISIBLE_DEVICES"), variable("LOCAL_RANK"), devicesPerRank);
}

}  // namespace hetbench::energy
