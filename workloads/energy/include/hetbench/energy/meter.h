#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hetbench::energy {

struct MeterOptions {
  /// The NVML library to dlopen: a name the dynamic loader searches for, or a path.
  std::string library = "libnvidia-ml.so.1";
  /// The GPUs to meter, each an NVML index ("0") or a GPU UUID ("GPU-5f1c..."); empty for every
  /// GPU that NVML finds. rankDevices() (devices.h) derives a rank's list from the environment.
  std::vector<std::string> devices;
  /// How often a GPU without an energy counter has its power read.
  std::chrono::milliseconds samplePeriod{100};
  /// The time of each power sample; empty for std::chrono::steady_clock. Tests move it by hand.
  /// Called from the sampler thread too.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

/// Energy used by a fixed set of accelerators since the meter was opened. Thread-safe.
class Meter {
 public:
  virtual ~Meter() = default;

  /// Joules used by the metered devices since the meter opened; the difference of two calls is
  /// the energy in between. Throws std::runtime_error, naming the device and the cause, when a
  /// device cannot be read.
  virtual double joules() = 0;
  /// The metered devices' names, in the order of MeterOptions::devices (NVML's when empty).
  virtual std::vector<std::string> deviceNames() const = 0;
  /// "energy counter", "power sampling", or "energy counter and power sampling" for a mix.
  virtual std::string method() const = 0;
};

struct OpenResult {
  /// Null when energy cannot be measured.
  std::unique_ptr<Meter> meter;
  /// Why there is no meter, one line to print ("energy not measured: ..."); empty with a meter.
  std::string unavailable;
};

/// Opens NVML (loaded at run time, so a program without a GPU or driver runs without energy) and
/// meters options.devices: by their total-energy counters where supported, else by integrating
/// their power, read every samplePeriod on a background thread (trapezoids). Gives no meter, and
/// the reason, when the library cannot be loaded, NVML does not initialise, a device is missing or
/// a device reports neither energy nor power. Throws std::invalid_argument for a samplePeriod
/// that is not positive.
OpenResult openMeter(const MeterOptions& options);

}  // namespace hetbench::energy
