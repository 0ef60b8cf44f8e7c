#pragma once

#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

#include "nvml.h"

namespace hetbench::energy {

/// libnvidia-ml loaded with dlopen, and its entry points. Shuts NVML down (when initialize()
/// succeeded) and unloads the library when destroyed. The entry points a driver may lack (those
/// of the health monitor) are null when it does; the meter's are always there.
class NvmlLibrary {
 public:
  /// The loaded library, or null with dlerror()'s line in `error`.
  static std::unique_ptr<NvmlLibrary> load(const std::string& library, std::string& error) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      error = dlerror();
      return nullptr;
    }
    std::unique_ptr<NvmlLibrary> nvml(new NvmlLibrary(handle));
    if (!nvml->bind(nvml->init, "nvmlInit_v2", error) ||
        !nvml->bind(nvml->shutdown, "nvmlShutdown", error) ||
        !nvml->bind(nvml->errorString, "nvmlErrorString", error) ||
        !nvml->bind(nvml->deviceCount, "nvmlDeviceGetCount_v2", error) ||
        !nvml->bind(nvml->handleByIndex, "nvmlDeviceGetHandleByIndex_v2", error) ||
        !nvml->bind(nvml->handleByUuid, "nvmlDeviceGetHandleByUUID", error) ||
        !nvml->bind(nvml->name, "nvmlDeviceGetName", error) ||
        !nvml->bind(nvml->totalEnergy, "nvmlDeviceGetTotalEnergyConsumption", error) ||
        !nvml->bind(nvml->powerUsage, "nvmlDeviceGetPowerUsage", error)) {
      return nullptr;
    }
    nvml->bindIfPresent(nvml->clockReasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (nvml->clockReasons == nullptr) {
      // Drivers before 535 have the call by its older name only.
      nvml->bindIfPresent(nvml->clockReasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    nvml->bindIfPresent(nvml->clockInfo, "nvmlDeviceGetClockInfo");
    nvml->bindIfPresent(nvml->maxClockInfo, "nvmlDeviceGetMaxClockInfo");
    nvml->bindIfPresent(nvml->temperature, "nvmlDeviceGetTemperature");
    nvml->bindIfPresent(nvml->enforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
    nvml->bindIfPresent(nvml->defaultPowerLimit, "nvmlDeviceGetPowerManagementDefaultLimit");
    nvml->bindIfPresent(nvml->eccErrors, "nvmlDeviceGetTotalEccErrors");
    nvml->bindIfPresent(nvml->eventSetCreate, "nvmlEventSetCreate");
    nvml->bindIfPresent(nvml->registerEvents, "nvmlDeviceRegisterEvents");
    nvml->bindIfPresent(nvml->eventSetWait, "nvmlEventSetWait_v2");
    nvml->bindIfPresent(nvml->eventSetFree, "nvmlEventSetFree");
    return nvml;
  }

  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  ~NvmlLibrary() {
    if (initialized_) shutdown();
    dlclose(handle_);
  }

  nvmlReturn_t initialize() {
    const nvmlReturn_t result = init();
    initialized_ = result == NVML_SUCCESS;
    return result;
  }

  /// NVML's words for a result code.
  std::string message(nvmlReturn_t result) const {
    const char* text = errorString(result);
    return text != nullptr ? text : "NVML error " + std::to_string(result);
  }

  decltype(&::nvmlInit_v2) init = nullptr;
  decltype(&::nvmlShutdown) shutdown = nullptr;
  decltype(&::nvmlErrorString) errorString = nullptr;
  decltype(&::nvmlDeviceGetCount_v2) deviceCount = nullptr;
  decltype(&::nvmlDeviceGetHandleByIndex_v2) handleByIndex = nullptr;
  decltype(&::nvmlDeviceGetHandleByUUID) handleByUuid = nullptr;
  decltype(&::nvmlDeviceGetName) name = nullptr;
  decltype(&::nvmlDeviceGetTotalEnergyConsumption) totalEnergy = nullptr;
  decltype(&::nvmlDeviceGetPowerUsage) powerUsage = nullptr;

  decltype(&::nvmlDeviceGetCurrentClocksEventReasons) clockReasons = nullptr;
  decltype(&::nvmlDeviceGetClockInfo) clockInfo = nullptr;
  decltype(&::nvmlDeviceGetMaxClockInfo) maxClockInfo = nullptr;
  decltype(&::nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&::nvmlDeviceGetEnforcedPowerLimit) enforcedPowerLimit = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementDefaultLimit) defaultPowerLimit = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) eccErrors = nullptr;
  decltype(&::nvmlEventSetCreate) eventSetCreate = nullptr;
  decltype(&::nvmlDeviceRegisterEvents) registerEvents = nullptr;
  decltype(&::nvmlEventSetWait_v2) eventSetWait = nullptr;
  decltype(&::nvmlEventSetFree) eventSetFree = nullptr;

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}

  template <typename Function>
  bool bind(Function& function, const char* symbol, std::string& error) {
    dlerror();
    void* address = dlsym(handle_, symbol);
    if (address == nullptr) {
      const char* text = dlerror();
      error = text != nullptr ? text : std::string(symbol) + " is null";
      return false;
    }
    // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
    function = reinterpret_cast<Function>(address);
    return true;
  }

  template <typename Function>
  void bindIfPresent(Function& function, const char* symbol) {
    std::string ignored;
    bind(function, symbol, ignored);
  }

  void* handle_;
  bool initialized_ = false;
};

/// The handle of the GPU that `selector` names (an NVML index or a GPU UUID) among NVML's `count`,
/// or null with why there is none in `error`.
nvmlDevice_t findDevice(const NvmlLibrary& nvml, const std::string& selector, unsigned int count,
                        std::string& error);

/// One GPU that openDevices found.
struct NamedDevice {
  nvmlDevice_t handle = nullptr;
  /// NVML's name ("NVIDIA H100 80GB HBM3").
  std::string name;
  /// The selector and the name, for messages: "GPU 0 (NVIDIA H100 80GB HBM3)".
  std::string label;
};

/// NVML, initialised, and the GPUs of a list of selectors.
struct OpenedDevices {
  /// Null when NVML or a device could not be opened.
  std::unique_ptr<NvmlLibrary> nvml;
  /// Each GPU once, in the order of the selectors (NVML's when there are none).
  std::vector<NamedDevice> devices;
  /// Why nothing was opened, one line; empty when nvml is set.
  std::string error;
};

/// Loads `library`, initialises NVML and finds the GPUs that `selectors` name (every GPU when
/// empty). Fails when the library cannot be loaded, NVML does not initialise, it finds no GPU, or
/// a selector names none.
OpenedDevices openDevices(const std::string& library, const std::vector<std::string>& selectors);

}  // namespace hetbench::energy
