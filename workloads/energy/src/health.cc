#include "hetbench/energy/health.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "nvml_library.h"
#include "periodic_sampler.h"

namespace hetbench::energy {
namespace {

using Clock = std::function<std::chrono::steady_clock::time_point()>;
using TimePoint = std::chrono::steady_clock::time_point;

constexpr std::string_view kUnavailable = "GPU health not watched: ";

constexpr unsigned long long kThermalReasons =
    nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksEventReasonHwThermalSlowdown;
constexpr unsigned long long kHardwareReasons =
    nvmlClocksEventReasonHwSlowdown | nvmlClocksEventReasonHwPowerBrakeSlowdown;

/// One reading that a GPU may not support: once NVML says "not supported", it is not asked again.
enum class Support { kUnknown, kSupported, kUnsupported };

/// One watched GPU: what it supports and the sums of the window so far.
struct Watched {
  nvmlDevice_t handle = nullptr;
  std::string label;
  std::optional<unsigned> maxSmMhz;
  Support clocks = Support::kUnknown;
  Support reasons = Support::kUnknown;
  Support temperature = Support::kUnknown;
  Support ecc = Support::kUnknown;
  Support powerLimits = Support::kUnknown;
  bool xidRegistered = false;
  /// The ECC counters at the window's start.
  unsigned long long eccCorrectedAtStart = 0;
  unsigned long long eccUncorrectedAtStart = 0;

  // The window's sums: each sample stands for the time since the one before it.
  int64_t samples = 0;
  double clockMhzSeconds = 0;
  double clockSeconds = 0;
  std::optional<unsigned> clockMinMhz;
  std::optional<unsigned> clockLastMhz;
  double reasonSeconds = 0;
  ThrottleShares reasonTimes;
  bool reasonRead = false;
  std::optional<unsigned> temperatureMax;
  std::vector<uint64_t> xids;
  std::string error;

  void startWindow() {
    samples = 0;
    clockMhzSeconds = clockSeconds = reasonSeconds = 0;
    clockMinMhz.reset();
    clockLastMhz.reset();
    reasonTimes = {};
    reasonRead = false;
    temperatureMax.reset();
    xids.clear();
    error.clear();
  }
};

class NvmlHealthMonitor final : public HealthMonitor {
 public:
  NvmlHealthMonitor(std::unique_ptr<NvmlLibrary> nvml, std::vector<Watched> devices,
                    nvmlEventSet_t events, Clock clock, std::chrono::milliseconds period)
      : nvml_(std::move(nvml)),
        devices_(std::move(devices)),
        events_(events),
        clock_(std::move(clock)) {
    for (Watched& device : devices_) readEcc(device, true);
    sampler_.emplace(mutex_, clock_, period, clock_(),
                     [this](TimePoint, double seconds) { sample(seconds); });
  }

  ~NvmlHealthMonitor() override {
    sampler_.reset();
    if (events_ != nullptr) nvml_->eventSetFree(events_);
  }

  std::vector<DeviceWindow> take() override {
    std::lock_guard lock(mutex_);
    sampler_->sampleLocked(clock_());
    drainXids();
    std::vector<DeviceWindow> windows;
    windows.reserve(devices_.size());
    for (Watched& device : devices_) {
      DeviceWindow window;
      window.device = device.label;
      window.samples = device.samples;
      if (device.clockLastMhz) {
        window.smClockMeanMhz = device.clockSeconds > 0
                                    ? device.clockMhzSeconds / device.clockSeconds
                                    : static_cast<double>(*device.clockLastMhz);
        window.smClockMinMhz = device.clockMinMhz;
      }
      window.smClockMaxMhz = device.maxSmMhz;
      if (device.reasonRead && device.reasonSeconds > 0) {
        const double total = device.reasonSeconds;
        window.throttled =
            ThrottleShares{device.reasonTimes.powerCap / total, device.reasonTimes.thermal / total,
                           device.reasonTimes.hardware / total};
      }
      window.temperatureMaxC = device.temperatureMax;
      readPowerLimits(device, window);
      if (const auto counts = readEcc(device, false)) {
        window.eccCorrected = counts->first - device.eccCorrectedAtStart;
        window.eccUncorrected = counts->second - device.eccUncorrectedAtStart;
        device.eccCorrectedAtStart = counts->first;
        device.eccUncorrectedAtStart = counts->second;
      }
      if (device.xidRegistered) window.xids = device.xids;
      window.error = device.error;
      windows.push_back(std::move(window));
      device.startWindow();
    }
    return windows;
  }

 private:
  /// Whether a reading went through; notes an unsupported reading, and the window's first
  /// failure.
  bool succeeded(nvmlReturn_t result, Support& support, Watched& device, const char* call) {
    if (result == NVML_SUCCESS) {
      support = Support::kSupported;
      return true;
    }
    if (result == NVML_ERROR_NOT_SUPPORTED && support != Support::kSupported) {
      support = Support::kUnsupported;
    } else if (device.error.empty()) {
      device.error = std::string(call) + " on " + device.label + ": " + nvml_->message(result);
    }
    return false;
  }

  /// Whether to read: the driver has the call and the GPU has not said it does not support it.
  template <typename Function>
  static bool asked(Support support, Function function) {
    return function != nullptr && support != Support::kUnsupported;
  }

  /// Reads every GPU's clock, clock reasons and temperature, each standing for the `seconds`
  /// since the last sample. Called with the mutex held.
  void sample(double seconds) {
    for (Watched& device : devices_) {
      ++device.samples;
      unsigned int mhz = 0;
      if (asked(device.clocks, nvml_->clockInfo) &&
          succeeded(nvml_->clockInfo(device.handle, NVML_CLOCK_SM, &mhz), device.clocks, device,
                    "nvmlDeviceGetClockInfo")) {
        device.clockMhzSeconds += mhz * seconds;
        device.clockSeconds += seconds;
        device.clockMinMhz = std::min(device.clockMinMhz.value_or(mhz), mhz);
        device.clockLastMhz = mhz;
      }
      unsigned long long reasons = 0;
      if (asked(device.reasons, nvml_->clockReasons) &&
          succeeded(nvml_->clockReasons(device.handle, &reasons), device.reasons, device,
                    "nvmlDeviceGetCurrentClocksEventReasons")) {
        device.reasonRead = true;
        device.reasonSeconds += seconds;
        if ((reasons & nvmlClocksEventReasonSwPowerCap) != 0) {
          device.reasonTimes.powerCap += seconds;
        }
        if ((reasons & kThermalReasons) != 0) device.reasonTimes.thermal += seconds;
        if ((reasons & kHardwareReasons) != 0) device.reasonTimes.hardware += seconds;
      }
      unsigned int celsius = 0;
      if (asked(device.temperature, nvml_->temperature) &&
          succeeded(nvml_->temperature(device.handle, NVML_TEMPERATURE_GPU, &celsius),
                    device.temperature, device, "nvmlDeviceGetTemperature")) {
        device.temperatureMax = std::max(device.temperatureMax.value_or(celsius), celsius);
      }
    }
  }

  /// The volatile ECC counters (corrected, uncorrected), when the GPU has ECC on. At `opening`, a
  /// failure only marks them unsupported.
  std::optional<std::pair<unsigned long long, unsigned long long>> readEcc(Watched& device,
                                                                           bool opening) {
    if (!asked(device.ecc, nvml_->eccErrors)) return std::nullopt;
    unsigned long long corrected = 0;
    unsigned long long uncorrected = 0;
    nvmlReturn_t result = nvml_->eccErrors(device.handle, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                           NVML_VOLATILE_ECC, &corrected);
    if (result == NVML_SUCCESS) {
      result = nvml_->eccErrors(device.handle, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                NVML_VOLATILE_ECC, &uncorrected);
    }
    if (opening && result != NVML_SUCCESS) {
      device.ecc = Support::kUnsupported;
      return std::nullopt;
    }
    if (!succeeded(result, device.ecc, device, "nvmlDeviceGetTotalEccErrors")) return std::nullopt;
    if (opening) {
      device.eccCorrectedAtStart = corrected;
      device.eccUncorrectedAtStart = uncorrected;
    }
    return std::make_pair(corrected, uncorrected);
  }

  void readPowerLimits(Watched& device, DeviceWindow& window) {
    if (!asked(device.powerLimits, nvml_->enforcedPowerLimit) ||
        nvml_->defaultPowerLimit == nullptr) {
      return;
    }
    unsigned int enforced = 0;
    unsigned int byDefault = 0;
    if (succeeded(nvml_->enforcedPowerLimit(device.handle, &enforced), device.powerLimits, device,
                  "nvmlDeviceGetEnforcedPowerLimit") &&
        succeeded(nvml_->defaultPowerLimit(device.handle, &byDefault), device.powerLimits, device,
                  "nvmlDeviceGetPowerManagementDefaultLimit")) {
      window.powerLimitWatts = enforced / 1000.0;
      window.defaultPowerLimitWatts = byDefault / 1000.0;
    }
  }

  /// Moves the Xid events the driver queued since the last call to their devices' windows.
  void drainXids() {
    if (events_ == nullptr) return;
    nvmlEventData_t event{};
    while (nvml_->eventSetWait(events_, &event, 0) == NVML_SUCCESS) {
      if (event.eventType != nvmlEventTypeXidCriticalError) continue;
      for (Watched& device : devices_) {
        if (device.handle == event.device) device.xids.push_back(event.eventData);
      }
    }
  }

  // Declared first, destroyed last: NVML outlives the sampler thread and the event set.
  std::unique_ptr<NvmlLibrary> nvml_;
  std::vector<Watched> devices_;
  nvmlEventSet_t events_;
  Clock clock_;
  std::mutex mutex_;
  // Last, destroyed first: its thread ends before what it samples goes.
  std::optional<PeriodicSampler> sampler_;
};

/// An event set with every device that takes Xid events registered, or null when none does
/// (events need the driver's support and, in some containers, the device files of every GPU).
nvmlEventSet_t registerXids(const NvmlLibrary& nvml, std::vector<Watched>& devices) {
  if (nvml.eventSetCreate == nullptr || nvml.registerEvents == nullptr ||
      nvml.eventSetWait == nullptr || nvml.eventSetFree == nullptr) {
    return nullptr;
  }
  nvmlEventSet_t set = nullptr;
  if (nvml.eventSetCreate(&set) != NVML_SUCCESS) return nullptr;
  bool any = false;
  for (Watched& device : devices) {
    device.xidRegistered =
        nvml.registerEvents(device.handle, nvmlEventTypeXidCriticalError, set) == NVML_SUCCESS;
    any = any || device.xidRegistered;
  }
  if (!any) {
    nvml.eventSetFree(set);
    return nullptr;
  }
  return set;
}

}  // namespace

OpenHealthResult openHealthMonitor(const HealthOptions& options) {
  if (options.samplePeriod <= std::chrono::milliseconds::zero()) {
    throw std::invalid_argument("GPU health: samplePeriod must be positive, not " +
                                std::to_string(options.samplePeriod.count()) + " ms");
  }
  OpenedDevices opened = openDevices(options.library, options.devices);
  if (opened.nvml == nullptr) return {nullptr, std::string(kUnavailable).append(opened.error)};
  std::vector<Watched> devices;
  for (NamedDevice& named : opened.devices) {
    Watched device;
    device.handle = named.handle;
    device.label = std::move(named.label);
    unsigned int maxMhz = 0;
    if (opened.nvml->maxClockInfo != nullptr &&
        opened.nvml->maxClockInfo(device.handle, NVML_CLOCK_SM, &maxMhz) == NVML_SUCCESS) {
      device.maxSmMhz = maxMhz;
    }
    devices.push_back(std::move(device));
  }
  const nvmlEventSet_t events = registerXids(*opened.nvml, devices);
  Clock clock = options.clock ? options.clock : [] { return std::chrono::steady_clock::now(); };
  return {std::make_unique<NvmlHealthMonitor>(std::move(opened.nvml), std::move(devices), events,
                                              std::move(clock), options.samplePeriod),
          ""};
}

}  // namespace hetbench::energy
