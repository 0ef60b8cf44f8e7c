#include "hetbench/energy/meter.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "nvml_library.h"
#include "periodic_sampler.h"

namespace hetbench::energy {
namespace {

using Clock = std::function<std::chrono::steady_clock::time_point()>;

constexpr std::string_view kUnavailable = "energy not measured: ";

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
  NvmlMeter(std::unique_ptr<NvmlLibrary> nvml, std::vector<Device> devices, Clock clock,
            std::chrono::milliseconds period, std::chrono::steady_clock::time_point opened)
      : nvml_(std::move(nvml)), devices_(std::move(devices)), clock_(std::move(clock)) {
    const auto sampled = std::count_if(devices_.begin(), devices_.end(),
                                       [](const Device& device) { return !device.counter; });
    if (sampled == 0) {
      method_ = "energy counter";
    } else if (sampled == static_cast<std::ptrdiff_t>(devices_.size())) {
      method_ = "power sampling";
    } else {
      method_ = "energy counter and power sampling";
    }
    if (sampled > 0) {
      sampler_.emplace(mutex_, clock_, period, opened,
                       [this](PeriodicSampler::TimePoint, double seconds) { sample(seconds); });
    }
  }

  double joules() override {
    std::lock_guard lock(mutex_);
    if (sampler_) sampler_->sampleLocked(clock_());
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
  /// Reads every sampled device's power and adds the trapezoid of the `seconds` since the last
  /// sample. Called with the mutex held.
  void sample(double seconds) {
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
  }

  // Declared first, destroyed last: NVML outlives the sampler thread.
  std::unique_ptr<NvmlLibrary> nvml_;
  std::vector<Device> devices_;
  Clock clock_;
  std::string method_;
  std::mutex mutex_;
  // Last, destroyed first: its thread ends before what it samples goes. Only for GPUs without an
  // energy counter.
  std::optional<PeriodicSampler> sampler_;
};

OpenResult unavailable(std::string_view why) {
  return {nullptr, std::string(kUnavailable).append(why)};
}

}  // namespace

OpenResult openMeter(const MeterOptions& options) {
  if (options.samplePeriod <= std::chrono::milliseconds::zero()) {
    throw std::invalid_argument("energy: samplePeriod must be positive, not " +
                                std::to_string(options.samplePeriod.count()) + " ms");
  }
  OpenedDevices found = openDevices(options.library, options.devices);
  if (found.nvml == nullptr) return unavailable(found.error);
  std::unique_ptr<NvmlLibrary> nvml = std::move(found.nvml);
  const Clock clock =
      options.clock ? options.clock : [] { return std::chrono::steady_clock::now(); };
  std::vector<Device> devices;
  for (NamedDevice& named : found.devices) {
    Device device;
    device.handle = named.handle;
    device.name = std::move(named.name);
    device.label = std::move(named.label);
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
