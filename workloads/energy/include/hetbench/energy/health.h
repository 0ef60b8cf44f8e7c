#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hetbench::energy {

/// Shares of a window's time in which NVML named a reason for the clocks being held down, each
/// from 0 to 1; absent when the GPU does not report its reasons.
struct ThrottleShares {
  /// The software power cap: normal under full load at the board's default limit, and a slower
  /// configuration under a lower limit (see powerLimitWatts).
  double powerCap = 0;
  /// Software or hardware thermal slowdown: the GPU is too hot.
  double thermal = 0;
  /// Hardware slowdown or the power brake: the board or the system asked the GPU to slow down.
  double hardware = 0;

  bool operator==(const ThrottleShares&) const = default;
};

/// What one GPU did over a window of time (an epoch), as NVML reports it; each part is absent
/// when the GPU or the driver does not report it.
struct DeviceWindow {
  /// "GPU 0 (NVIDIA H100 80GB HBM3)".
  std::string device;
  /// The samples the window's figures come from (one every HealthOptions::samplePeriod, and one
  /// at its end).
  int64_t samples = 0;
  /// The SM clock over the window (time-weighted mean and lowest sample) and the GPU's highest,
  /// in MHz.
  std::optional<double> smClockMeanMhz;
  std::optional<unsigned> smClockMinMhz;
  std::optional<unsigned> smClockMaxMhz;
  std::optional<ThrottleShares> throttled;
  std::optional<unsigned> temperatureMaxC;
  /// The power limit in force at the window's end, and the board's default, in watts.
  std::optional<double> powerLimitWatts;
  std::optional<double> defaultPowerLimitWatts;
  /// Memory errors that ECC corrected, or could not, during the window.
  std::optional<uint64_t> eccCorrected;
  std::optional<uint64_t> eccUncorrected;
  /// The Xid errors (NVML's critical Xid events) the driver raised for the GPU during the
  /// window; absent when events cannot be registered.
  std::optional<std::vector<uint64_t>> xids;
  /// The first read in the window that failed for another reason than "not supported" (for
  /// example "nvmlDeviceGetClockInfo on GPU 0 (...): GPU is lost"); the figures above then
  /// leave that sample out.
  std::string error;

  bool operator==(const DeviceWindow&) const = default;
};

struct HealthOptions {
  /// The NVML library to dlopen, as MeterOptions::library.
  std::string library = "libnvidia-ml.so.1";
  /// The GPUs to watch, as MeterOptions::devices; empty for every GPU.
  std::vector<std::string> devices;
  /// How often the clocks, their reasons and the temperature are read.
  std::chrono::milliseconds samplePeriod{100};
  /// The time of each sample; empty for std::chrono::steady_clock. Called from the sampler thread.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

/// Watches the clocks, throttling, temperature, power limit and errors of a fixed set of GPUs
/// on a background thread, and hands them out window by window. Thread-safe.
class HealthMonitor {
 public:
  virtual ~HealthMonitor() = default;

  /// Each GPU's window from the previous take() (or the monitor's opening) to now, after a last
  /// sample now; the next window starts here.
  virtual std::vector<DeviceWindow> take() = 0;
};

struct OpenHealthResult {
  /// Null when NVML or the devices cannot be opened.
  std::unique_ptr<HealthMonitor> monitor;
  /// Why there is no monitor, one line to print ("GPU health not watched: ..."); empty with one.
  std::string unavailable;
};

/// Opens NVML (loaded at run time) and watches options.devices. Gives no monitor, and the reason,
/// when the library cannot be loaded, NVML does not initialise or a device is missing; a GPU that
/// reports only some of the figures gets a monitor that leaves the others out. Throws
/// std::invalid_argument for a samplePeriod that is not positive.
OpenHealthResult openHealthMonitor(const HealthOptions& options);

}  // namespace hetbench::energy
