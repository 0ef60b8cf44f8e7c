#include "nvml_library.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

namespace hetbench::energy {
namespace {

bool isIndex(std::string_view selector) {
  return !selector.empty() &&
         std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

nvmlDevice_t findDevice(const NvmlLibrary& nvml, const std::string& selector, unsigned int count,
                        std::string& error) {
  nvmlDevice_t handle = nullptr;
  if (isIndex(selector)) {
    unsigned int index = 0;
    const auto [end, status] =
        std::from_chars(selector.data(), selector.data() + selector.size(), index);
    if (status != std::errc() || end != selector.data() + selector.size() || index >= count) {
      error = "no GPU with NVML index " + selector + " (NVML finds " + std::to_string(count) + ")";
      return nullptr;
    }
    const nvmlReturn_t result = nvml.handleByIndex(index, &handle);
    if (result != NVML_SUCCESS) {
      error = "nvmlDeviceGetHandleByIndex_v2(" + selector + "): " + nvml.message(result);
      return nullptr;
    }
    return handle;
  }
  if (selector.empty()) {
    error = "an empty device in the list of devices";
    return nullptr;
  }
  const nvmlReturn_t result = nvml.handleByUuid(selector.c_str(), &handle);
  if (result == NVML_ERROR_NOT_FOUND) {
    error = "no GPU with UUID " + selector;
    return nullptr;
  }
  if (result != NVML_SUCCESS) {
    error = "nvmlDeviceGetHandleByUUID(" + selector + "): " + nvml.message(result);
    return nullptr;
  }
  return handle;
}

OpenedDevices openDevices(const std::string& library, const std::vector<std::string>& selectors) {
  OpenedDevices opened;
  opened.nvml = NvmlLibrary::load(library, opened.error);
  if (opened.nvml == nullptr) return opened;
  const NvmlLibrary& nvml = *opened.nvml;
  const auto fail = [&opened](std::string why) {
    opened.nvml.reset();
    opened.devices.clear();
    opened.error = std::move(why);
    return std::move(opened);
  };
  if (const nvmlReturn_t result = opened.nvml->initialize(); result != NVML_SUCCESS) {
    return fail("nvmlInit_v2: " + nvml.message(result));
  }
  unsigned int count = 0;
  if (const nvmlReturn_t result = nvml.deviceCount(&count); result != NVML_SUCCESS) {
    return fail("nvmlDeviceGetCount_v2: " + nvml.message(result));
  }
  if (count == 0) return fail("NVML finds no GPU");

  std::vector<std::string> wanted = selectors;
  if (wanted.empty()) {
    for (unsigned int index = 0; index < count; ++index) wanted.push_back(std::to_string(index));
  }
  for (const std::string& selector : wanted) {
    std::string error;
    const nvmlDevice_t handle = findDevice(nvml, selector, count, error);
    if (handle == nullptr) return fail(error);
    // The same GPU named twice (by index and by UUID) is opened once.
    const bool listed =
        std::any_of(opened.devices.begin(), opened.devices.end(),
                    [handle](const NamedDevice& other) { return other.handle == handle; });
    if (listed) continue;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (const nvmlReturn_t result = nvml.name(handle, name, sizeof(name)); result != NVML_SUCCESS) {
      return fail("nvmlDeviceGetName on GPU " + selector + ": " + nvml.message(result));
    }
    opened.devices.push_back({handle, name, "GPU " + selector + " (" + name + ")"});
  }
  return opened;
}

}  // namespace hetbench::energy
