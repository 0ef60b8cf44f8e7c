// A stand-in for libnvidia-ml: the NVML functions the meter calls, over devices that the tests
// describe through the fake_nvml_* control functions (looked up with dlsym, see fake_nvml.h).

#include "fake_nvml.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "nvml.h"

namespace {

struct FakeDevice {
  std::string name;
  std::string uuid;
  unsigned long long millijoules = 0;
  unsigned int milliwatts = 0;
};

struct State {
  std::mutex mutex;
  std::condition_variable powerRead;
  std::vector<FakeDevice> devices;
  /// Results forced by fake_nvml_fail: by function name, then device index (-1: every call).
  std::map<std::pair<std::string, int>, nvmlReturn_t> failures;
  int initialized = 0;
  unsigned long powerReads = 0;
};

State& state() {
  static State instance;
  return instance;
}

/// The device behind a handle: handles are index + 1, so that none is null.
int indexOf(nvmlDevice_t device) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(device)) - 1;
}

nvmlDevice_t handleOf(int index) {
  return reinterpret_cast<nvmlDevice_t>(static_cast<std::uintptr_t>(index + 1));
}

/// The forced result of `function` for `index`, or NVML_SUCCESS. Caller holds the mutex.
nvmlReturn_t forced(const char* function, int index = -1) {
  const auto& failures = state().failures;
  for (const int key : {index, -1}) {
    const auto found = failures.find({function, key});
    if (found != failures.end()) return found->second;
  }
  return NVML_SUCCESS;
}

/// The device of a handle, or null (with `result` set) when the call must fail.
FakeDevice* device(const char* function, nvmlDevice_t handle, nvmlReturn_t& result) {
  const int index = indexOf(handle);
  if (state().initialized == 0) {
    result = NVML_ERROR_UNINITIALIZED;
    return nullptr;
  }
  if (index < 0 || index >= static_cast<int>(state().devices.size())) {
    result = NVML_ERROR_INVALID_ARGUMENT;
    return nullptr;
  }
  result = forced(function, index);
  return result == NVML_SUCCESS ? &state().devices[index] : nullptr;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  std::lock_guard lock(state().mutex);
  const nvmlReturn_t result = forced("nvmlInit_v2");
  if (result == NVML_SUCCESS) ++state().initialized;
  return result;
}

nvmlReturn_t nvmlShutdown() {
  std::lock_guard lock(state().mutex);
  if (state().initialized == 0) return NVML_ERROR_UNINITIALIZED;
  --state().initialized;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  std::lock_guard lock(state().mutex);
  if (state().initialized == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t result = forced("nvmlDeviceGetCount_v2"); result != NVML_SUCCESS) {
    return result;
  }
  *deviceCount = static_cast<unsigned int>(state().devices.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  std::lock_guard lock(state().mutex);
  if (state().initialized == 0) return NVML_ERROR_UNINITIALIZED;
  if (index >= state().devices.size()) return NVML_ERROR_INVALID_ARGUMENT;
  if (const nvmlReturn_t result = forced("nvmlDeviceGetHandleByIndex_v2", static_cast<int>(index));
      result != NVML_SUCCESS) {
    return result;
  }
  *device = handleOf(static_cast<int>(index));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  std::lock_guard lock(state().mutex);
  if (state().initialized == 0) return NVML_ERROR_UNINITIALIZED;
  const auto& devices = state().devices;
  for (std::size_t index = 0; index < devices.size(); ++index) {
    if (devices[index].uuid == uuid) {
      *device = handleOf(static_cast<int>(index));
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t handle, char* name, unsigned int length) {
  std::lock_guard lock(state().mutex);
  nvmlReturn_t result = NVML_SUCCESS;
  const FakeDevice* found = device("nvmlDeviceGetName", handle, result);
  if (found == nullptr) return result;
  if (found->name.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(name, found->name.c_str(), found->name.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t handle, unsigned long long* energy) {
  std::lock_guard lock(state().mutex);
  nvmlReturn_t result = NVML_SUCCESS;
  const FakeDevice* found = device("nvmlDeviceGetTotalEnergyConsumption", handle, result);
  if (found == nullptr) return result;
  *energy = found->millijoules;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t handle, unsigned int* power) {
  nvmlReturn_t result = NVML_SUCCESS;
  {
    std::lock_guard lock(state().mutex);
    ++state().powerReads;
    const FakeDevice* found = device("nvmlDeviceGetPowerUsage", handle, result);
    if (found != nullptr) *power = found->milliwatts;
  }
  state().powerRead.notify_all();
  return result;
}

void fake_nvml_reset() {
  std::lock_guard lock(state().mutex);
  state().devices.clear();
  state().failures.clear();
  state().initialized = 0;
  state().powerReads = 0;
}

int fake_nvml_add_device(const char* name, const char* uuid) {
  std::lock_guard lock(state().mutex);
  state().devices.push_back({name, uuid});
  return static_cast<int>(state().devices.size()) - 1;
}

void fake_nvml_set_energy(int index, unsigned long long millijoules) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).millijoules = millijoules;
}

void fake_nvml_set_power(int index, unsigned int milliwatts) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).milliwatts = milliwatts;
}

void fake_nvml_fail(const char* function, int index, int result) {
  std::lock_guard lock(state().mutex);
  state().failures[{function, index}] = static_cast<nvmlReturn_t>(result);
}

int fake_nvml_initialized() {
  std::lock_guard lock(state().mutex);
  return state().initialized;
}

unsigned long fake_nvml_power_reads() {
  std::lock_guard lock(state().mutex);
  return state().powerReads;
}

int fake_nvml_wait_power_reads(unsigned long count, int timeoutMs) {
  std::unique_lock lock(state().mutex);
  return state().powerRead.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                    [&] { return state().powerReads >= count; })
             ? 1
             : 0;
}
}
