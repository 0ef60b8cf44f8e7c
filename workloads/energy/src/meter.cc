#include "hetbench/energy/meter.h"

#include <dlfcn.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

#include "nvml.h"

namespace hetbench::energy {
namespace {

using Clock = std::function<std::chrono::steady_clock::time_point()>;

constexpr std::string_view kUnavailable = "energy not measured: ";

/// libnvidia-ml loaded with dlopen, and its entry points. Shuts NVML down (when initialize()
/// succeeded) and unloads the library when destroyed.
class Nvml {
 public:
  /// The loaded library, or null with dlerror()'s line in `error`.
  static std::unique_ptr<Nvml> load(const std::string& library, std::string& error) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      error = dlerror();
      return nullptr;
    }
    std::unique_ptr<Nvml> nvml(new Nvml(handle));
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
    return nvml;
  }

  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  ~Nvml() {
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

 private:
  explicit Nvml(void* handle) : handle_(handle) {}

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

  void* handle_;
  bool initialized_ = false;
};

/// One metered GPU.
struct Device {
  nvmlDevice_t handle = nullptr;
  /// "GPU 0 (NVIDIA H100 80GB HBM3)": the selector and NVML's name, for messages.
  std::string label;
  std::string name;
  bool counter = false;
  /// The energy counter at open, in millijoules.
  unsigned long long startMillijoules = 0;
  /// Power sampling: the last sample and the integral so far.
  double lastWatts = 0;
  double sampledJoules = 0;
  /// Why power sampling stopped: a gap in the samples cannot be integrated honestly.
  std::string error;
};

class NvmlMeter final : public Meter {
 public:
  NvmlMeter(std::unique_ptr<Nvml> nvml, std::vector<Device> devices, Clock clock,
            std::chrono::milliseconds period, std::chrono::steady_clock::time_point opened)
      : nvml_(std::move(nvml)),
        devices_(std::move(devices)),
        clock_(std::move(clock)),
        period_(period),
        lastSample_(opened) {
    const auto sampled = std::count_if(devices_.begin(), devices_.end(),
                                       [](const Device& device) { return !device.counter; });
    if (sampled == 0) {
      method_ = "energy counter";
    } else if (sampled == static_cast<std::ptrdiff_t>(devices_.size())) {
      method_ = "power sampling";
    } else {
      method_ = "energy counter and power sampling";
    }
    if (sampled > 0) sampler_ = std::thread([this] { run(); });
  }

  ~NvmlMeter() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (sampler_.joinable()) sampler_.join();
  }

  double joules() override {
    std::lock_guard lock(mutex_);
    if (sampler_.joinable()) sampleLocked(clock_());
    double total = 0;
    for (const Device& device : devices_) {
      if (!device.counter) {
        if (!device.error.empty()) throw std::runtime_error(device.error);
        total += device.sampledJoules;
        continue;
      }
      unsigned long long millijoules = 0;
      const nvmlReturn_t result = nvml_->totalEnergy(device.handle, &millijoules);
      if (result != NVML_SUCCESS) {
        throw std::runtime_error("nvmlDeviceGetTotalEnergyConsumption on " + device.label + ": " +
                                 nvml_->message(result));
      }
      if (millijoules < device.startMillijoules) {
        throw std::runtime_error("the energy counter of " + device.label + " went back from " +
                                 std::to_string(device.startMillijoules) + " to " +
                                 std::to_string(millijoules) + " mJ");
      }
      total += static_cast<double>(millijoules - device.startMillijoules) / 1000.0;
    }
    return total;
  }

  std::vector<std::string> deviceNames() const override {
    std::vector<std::string> names;
    names.reserve(devices_.size());
    for (const Device& device : devices_) names.push_back(device.name);
    return names;
  }

  std::string method() const override { return method_; }

 private:
  /// Samples when a period has passed on the meter's clock. The wait is on the condition
  /// variable, so that the destructor ends it at once.
  void run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      const auto now = clock_();
      const auto due = lastSample_ + period_;
      if (now >= due) {
        sampleLocked(now);
        continue;
      }
      wake_.wait_for(lock, due - now, [this] { return stopping_; });
    }
  }

  /// Reads every sampled device's power at `now` and adds the trapezoid since the last sample.
  void sampleLocked(std::chrono::steady_clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - lastSample_).count();
    for (Device& device : devices_) {
      if (device.counter || !device.error.empty()) continue;
      unsigned int milliwatts = 0;
      const nvmlReturn_t result = nvml_->powerUsage(device.handle, &milliwatts);
      if (result != NVML_SUCCESS) {
        device.error = "nvmlDeviceGetPowerUsage on " + device.label + ": " + nvml_->message(result);
        continue;
      }
      const double watts = milliwatts / 1000.0;
      device.sampledJoules += (device.lastWatts + watts) / 2 * seconds;
      device.lastWatts = watts;
    }
    lastSample_ = now;
  }

  // Declared first, destroyed last: NVML outlives the sampler thread.
  std::unique_ptr<Nvml> nvml_;
  std::vector<Device> devices_;
  Clock clock_;
  std::chrono::milliseconds period_;
  std::string method_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point lastSample_;
  std::thread sampler_;
};

OpenResult unavailable(std::string_view why) {
  return {nullptr, std::string(kUnavailable).append(why)};
}

bool isIndex(std::string_view selector) {
  return !selector.empty() &&
         std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The handle of the GPU that `selector` names, or why there is none (in `error`).
nvmlDevice_t findDevice(const Nvml& nvml, const std::string& selector, unsigned int count,
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

}  // namespace

OpenResult openMeter(const MeterOptions& options) {
  if (options.samplePeriod <= std::chrono::milliseconds::zero()) {
    throw std::invalid_argument("energy: samplePeriod must be positive, not " +
                                std::to_string(options.samplePeriod.count()) + " ms");
  }
  std::string error;
  std::unique_ptr<Nvml> nvml = Nvml::load(options.library, error);
  if (nvml == nullptr) return unavailable(error);
  if (const nvmlReturn_t result = nvml->initialize(); result != NVML_SUCCESS) {
    return unavailable("nvmlInit_v2: " + nvml->message(result));
  }
  unsigned int count = 0;
  if (const nvmlReturn_t result = nvml->deviceCount(&count); result != NVML_SUCCESS) {
    return unavailable("nvmlDeviceGetCount_v2: " + nvml->message(result));
  }
  if (count == 0) return unavailable("NVML finds no GPU");

  std::vector<std::string> selectors = options.devices;
  if (selectors.empty()) {
    for (unsigned int index = 0; index < count; ++index) selectors.push_back(std::to_string(index));
  }
  const Clock clock =
      options.clock ? options.clock : [] { return std::chrono::steady_clock::now(); };
  std::vector<Device> devices;
  for (const std::string& selector : selectors) {
    Device device;
    device.handle = findDevice(*nvml, selector, count, error);
    if (device.handle == nullptr) return unavailable(error);
    // The same GPU named twice (by index and by UUID) is metered once.
    const bool listed = std::any_of(devices.begin(), devices.end(), [&](const Device& other) {
      return other.handle == device.handle;
    });
    if (listed) continue;

    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (const nvmlReturn_t result = nvml->name(device.handle, name, sizeof(name));
        result != NVML_SUCCESS) {
      return unavailable("nvmlDeviceGetName on GPU " + selector + ": " + nvml->message(result));
    }
    device.name = name;
    device.label = "GPU " + selector + " (" + device.name + ")";

    const nvmlReturn_t energy = nvml->totalEnergy(device.handle, &device.startMillijoules);
    if (energy == NVML_SUCCESS) {
      device.counter = true;
    } else if (energy != NVML_ERROR_NOT_SUPPORTED) {
      return unavailable("nvmlDeviceGetTotalEnergyConsumption on " + device.label + ": " +
                         nvml->message(energy));
    }
    devices.push_back(std::move(device));
  }

  // The first power samples, all at one instant: the start of the integration.
  const auto opened = clock();
  for (Device& device : devices) {
    if (device.counter) continue;
    unsigned int milliwatts = 0;
    const nvmlReturn_t power = nvml->powerUsage(device.handle, &milliwatts);
    if (power == NVML_ERROR_NOT_SUPPORTED) {
      return unavailable(device.label + " reports neither its energy nor its power");
    }
    if (power != NVML_SUCCESS) {
      return unavailable("nvmlDeviceGetPowerUsage on " + device.label + ": " +
                         nvml->message(power));
    }
    device.lastWatts = milliwatts / 1000.0;
  }
  return {std::make_unique<NvmlMeter>(std::move(nvml), std::move(devices), clock,
                                      options.samplePeriod, opened),
          ""};
}

}  // namespace hetbench::energy
