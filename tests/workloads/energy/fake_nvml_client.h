#pragma once

// The tests' side of the fake NVML (fake_nvml.cc): its control functions, and a clock that moves
// only when a test says, for the meter's and the health monitor's tests.

#include <dlfcn.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "fake_nvml.h"

namespace hetbench::energy {

/// The fake NVML's control functions, from the library the meters load, so that both share its
/// state. Starts with no device.
class FakeNvml {
 public:
  FakeNvml() : handle_(dlopen(HETBENCH_FAKE_NVML, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) throw std::runtime_error(dlerror());
    reset = lookup<decltype(&fake_nvml_reset)>("fake_nvml_reset");
    addDevice = lookup<decltype(&fake_nvml_add_device)>("fake_nvml_add_device");
    setEnergy = lookup<decltype(&fake_nvml_set_energy)>("fake_nvml_set_energy");
    setPower = lookup<decltype(&fake_nvml_set_power)>("fake_nvml_set_power");
    fail = lookup<decltype(&fake_nvml_fail)>("fake_nvml_fail");
    initialized = lookup<decltype(&fake_nvml_initialized)>("fake_nvml_initialized");
    setClocks = lookup<decltype(&fake_nvml_set_clocks)>("fake_nvml_set_clocks");
    setClockReasons = lookup<decltype(&fake_nvml_set_clock_reasons)>("fake_nvml_set_clock_reasons");
    setTemperature = lookup<decltype(&fake_nvml_set_temperature)>("fake_nvml_set_temperature");
    setPowerLimits = lookup<decltype(&fake_nvml_set_power_limits)>("fake_nvml_set_power_limits");
    setEcc = lookup<decltype(&fake_nvml_set_ecc)>("fake_nvml_set_ecc");
    raiseXid = lookup<decltype(&fake_nvml_raise_xid)>("fake_nvml_raise_xid");
    eventSets = lookup<decltype(&fake_nvml_event_sets)>("fake_nvml_event_sets");
    calls = lookup<decltype(&fake_nvml_calls)>("fake_nvml_calls");
    waitCalls = lookup<decltype(&fake_nvml_wait_calls)>("fake_nvml_wait_calls");
    reset();
  }
  FakeNvml(const FakeNvml&) = delete;
  FakeNvml& operator=(const FakeNvml&) = delete;
  ~FakeNvml() { dlclose(handle_); }

  decltype(&fake_nvml_reset) reset;
  decltype(&fake_nvml_add_device) addDevice;
  decltype(&fake_nvml_set_energy) setEnergy;
  decltype(&fake_nvml_set_power) setPower;
  decltype(&fake_nvml_fail) fail;
  decltype(&fake_nvml_initialized) initialized;
  decltype(&fake_nvml_set_clocks) setClocks;
  decltype(&fake_nvml_set_clock_reasons) setClockReasons;
  decltype(&fake_nvml_set_temperature) setTemperature;
  decltype(&fake_nvml_set_power_limits) setPowerLimits;
  decltype(&fake_nvml_set_ecc) setEcc;
  decltype(&fake_nvml_raise_xid) raiseXid;
  decltype(&fake_nvml_event_sets) eventSets;
  decltype(&fake_nvml_calls) calls;
  decltype(&fake_nvml_wait_calls) waitCalls;

  unsigned long powerReads() { return calls("nvmlDeviceGetPowerUsage"); }
  bool waitPowerReads(unsigned long count, int timeoutMs) {
    return waitCalls("nvmlDeviceGetPowerUsage", count, timeoutMs) != 0;
  }

 private:
  template <typename Function>
  Function lookup(const char* symbol) {
    void* address = dlsym(handle_, symbol);
    if (address == nullptr) throw std::runtime_error(dlerror());
    return reinterpret_cast<Function>(address);
  }

  void* handle_;
};

/// A clock that moves only when the test says; counts its readers so that a test can tell when
/// the sampler thread has looked at it.
class TestClock {
 public:
  std::function<std::chrono::steady_clock::time_point()> function() {
    return [this] {
      std::lock_guard lock(mutex_);
      ++calls_;
      called_.notify_all();
      return std::chrono::steady_clock::time_point(now_);
    };
  }

  void advance(std::chrono::milliseconds by) {
    std::lock_guard lock(mutex_);
    now_ += by;
  }

  bool waitForCalls(int calls) {
    std::unique_lock lock(mutex_);
    return called_.wait_for(lock, std::chrono::seconds(10), [&] { return calls_ >= calls; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable called_;
  std::chrono::milliseconds now_{0};
  int calls_ = 0;
};

}  // namespace hetbench::energy
