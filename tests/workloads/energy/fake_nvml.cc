// A stand-in for libnvidia-ml: the NVML functions the meter calls, over devices that the tests
// describe through the fake_nvml_* control functions (looked up with dlsym, see fake_nvml.h).

#include "fake_nvml.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
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
  unsigned int smMhz = 0;
  unsigned int maxSmMhz = 0;
  unsigned long long clockReasons = 0;
  unsigned int celsius = 0;
  unsigned int enforcedLimitMilliwatts = 0;
  unsigned int defaultLimitMilliwatts = 0;
  unsigned long long eccCorrected = 0;
  unsigned long long eccUncorrected = 0;
};

/// An event set: the devices registered with it and its queued events.
struct FakeEventSet {
  std::vector<int> devices;
  std::deque<nvmlEventData_t> events;
};

struct State {
  std::mutex mutex;
  std::condition_variable called;
  std::vector<FakeDevice> devices;
  /// Results forced by fake_nvml_fail: by function name, then device index (-1: every call).
  std::map<std::pair<std::string, int>, nvmlReturn_t> failures;
  int initialized = 0;
  /// Calls by function name, for fake_nvml_wait_calls.
  std::map<std::string, unsigned long> calls;
  /// Event sets by their handles, which are their keys.
  std::map<std::uintptr_t, FakeEventSet> eventSets;
  std::uintptr_t nextEventSet = 1;
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

/// The device of a handle, or null (with `result` set) when the call must fail. Counts the call.
FakeDevice* device(const char* function, nvmlDevice_t handle, nvmlReturn_t& result) {
  ++state().calls[function];
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

/// An NVML getter of one member of a device: its forced result, INVALID_ARGUMENT for an
/// argument the fake does not model, else the member. Counts the call and wakes its waiters.
template <typename Value>
nvmlReturn_t readMember(const char* function, nvmlDevice_t handle, Value FakeDevice::*member,
                        Value* out, bool modelled = true) {
  nvmlReturn_t result = NVML_SUCCESS;
  {
    std::lock_guard lock(state().mutex);
    const FakeDevice* found = device(function, handle, result);
    if (found != nullptr && !modelled) result = NVML_ERROR_INVALID_ARGUMENT;
    if (found != nullptr && modelled) *out = found->*member;
  }
  state().called.notify_all();
  return result;
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
  return readMember("nvmlDeviceGetTotalEnergyConsumption", handle, &FakeDevice::millijoules,
                    energy);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t handle, unsigned int* power) {
  return readMember("nvmlDeviceGetPowerUsage", handle, &FakeDevice::milliwatts, power);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t handle,
                                                    unsigned long long* reasons) {
  return readMember("nvmlDeviceGetCurrentClocksEventReasons", handle, &FakeDevice::clockReasons,
                    reasons);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t handle, nvmlClockType_t type,
                                    unsigned int* clock) {
  return readMember("nvmlDeviceGetClockInfo", handle, &FakeDevice::smMhz, clock,
                    type == NVML_CLOCK_SM);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t handle, nvmlClockType_t type,
                                       unsigned int* clock) {
  return readMember("nvmlDeviceGetMaxClockInfo", handle, &FakeDevice::maxSmMhz, clock,
                    type == NVML_CLOCK_SM);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t handle, nvmlTemperatureSensors_t sensor,
                                      unsigned int* temp) {
  return readMember("nvmlDeviceGetTemperature", handle, &FakeDevice::celsius, temp,
                    sensor == NVML_TEMPERATURE_GPU);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t handle, unsigned int* limit) {
  return readMember("nvmlDeviceGetEnforcedPowerLimit", handle, &FakeDevice::enforcedLimitMilliwatts,
                    limit);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t handle,
                                                      unsigned int* defaultLimit) {
  return readMember("nvmlDeviceGetPowerManagementDefaultLimit", handle,
                    &FakeDevice::defaultLimitMilliwatts, defaultLimit);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t handle, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long* eccCounts) {
  std::lock_guard lock(state().mutex);
  nvmlReturn_t result = NVML_SUCCESS;
  const FakeDevice* found = device("nvmlDeviceGetTotalEccErrors", handle, result);
  if (found == nullptr) return result;
  if (counterType != NVML_VOLATILE_ECC) return NVML_ERROR_INVALID_ARGUMENT;
  *eccCounts =
      errorType == NVML_MEMORY_ERROR_TYPE_UNCORRECTED ? found->eccUncorrected : found->eccCorrected;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  std::lock_guard lock(state().mutex);
  if (state().initialized == 0) return NVML_ERROR_UNINITIALIZED;
  if (const nvmlReturn_t result = forced("nvmlEventSetCreate"); result != NVML_SUCCESS) {
    return result;
  }
  const std::uintptr_t key = state().nextEventSet++;
  state().eventSets[key] = {};
  *set = reinterpret_cast<nvmlEventSet_t>(key);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t handle, unsigned long long eventTypes,
                                      nvmlEventSet_t set) {
  std::lock_guard lock(state().mutex);
  nvmlReturn_t result = NVML_SUCCESS;
  if (device("nvmlDeviceRegisterEvents", handle, result) == nullptr) return result;
  const auto found = state().eventSets.find(reinterpret_cast<std::uintptr_t>(set));
  if (found == state().eventSets.end()) return NVML_ERROR_INVALID_ARGUMENT;
  if ((eventTypes & nvmlEventTypeXidCriticalError) == 0) return NVML_ERROR_NOT_SUPPORTED;
  found->second.devices.push_back(indexOf(handle));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int /*timeoutms*/) {
  std::lock_guard lock(state().mutex);
  const auto found = state().eventSets.find(reinterpret_cast<std::uintptr_t>(set));
  if (found == state().eventSets.end()) return NVML_ERROR_INVALID_ARGUMENT;
  // The fake never waits: the tests raise their events before they look.
  if (found->second.events.empty()) return NVML_ERROR_TIMEOUT;
  *data = found->second.events.front();
  found->second.events.pop_front();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  std::lock_guard lock(state().mutex);
  return state().eventSets.erase(reinterpret_cast<std::uintptr_t>(set)) == 1
             ? NVML_SUCCESS
             : NVML_ERROR_INVALID_ARGUMENT;
}

void fake_nvml_reset() {
  std::lock_guard lock(state().mutex);
  state().devices.clear();
  state().failures.clear();
  state().initialized = 0;
  state().calls.clear();
  state().eventSets.clear();
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

void fake_nvml_set_clocks(int index, unsigned int smMhz, unsigned int maxSmMhz) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).smMhz = smMhz;
  state().devices.at(index).maxSmMhz = maxSmMhz;
}

void fake_nvml_set_clock_reasons(int index, unsigned long long reasons) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).clockReasons = reasons;
}

void fake_nvml_set_temperature(int index, unsigned int celsius) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).celsius = celsius;
}

void fake_nvml_set_power_limits(int index, unsigned int enforcedMilliwatts,
                                unsigned int defaultMilliwatts) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).enforcedLimitMilliwatts = enforcedMilliwatts;
  state().devices.at(index).defaultLimitMilliwatts = defaultMilliwatts;
}

void fake_nvml_set_ecc(int index, unsigned long long corrected, unsigned long long uncorrected) {
  std::lock_guard lock(state().mutex);
  state().devices.at(index).eccCorrected = corrected;
  state().devices.at(index).eccUncorrected = uncorrected;
}

void fake_nvml_raise_xid(int index, unsigned long long xid) {
  std::lock_guard lock(state().mutex);
  for (auto& [key, set] : state().eventSets) {
    for (const int registered : set.devices) {
      if (registered == index) {
        set.events.push_back({handleOf(index), nvmlEventTypeXidCriticalError, xid, 0, 0});
      }
    }
  }
}

int fake_nvml_event_sets() {
  std::lock_guard lock(state().mutex);
  return static_cast<int>(state().eventSets.size());
}

unsigned long fake_nvml_calls(const char* function) {
  std::lock_guard lock(state().mutex);
  return state().calls[function];
}

int fake_nvml_wait_calls(const char* function, unsigned long count, int timeoutMs) {
  std::unique_lock lock(state().mutex);
  return state().called.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                 [&] { return state().calls[function] >= count; })
             ? 1
             : 0;
}
}
