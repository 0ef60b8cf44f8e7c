#include "hetbench/energy/health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "fake_nvml_client.h"
#include "nvml.h"

namespace hetbench::energy {
namespace {

using std::chrono::milliseconds;

constexpr const char* kUuid = "GPU-0a0a0a0a-1111-2222-3333-444444444444";

class HealthTest : public ::testing::Test {
 protected:
  /// Options for the fake NVML and the test's clock; the period never passes unless a test
  /// shortens it, so that take() alone samples.
  HealthOptions options() {
    HealthOptions result;
    result.library = HETBENCH_FAKE_NVML;
    result.clock = clock.function();
    result.samplePeriod = std::chrono::hours(1);
    return result;
  }

  /// An H100 at full clocks, 45 °C, 700 W of 700 W, no ECC error.
  int addGpu() {
    const int index = nvml.addDevice("Fake H100", kUuid);
    nvml.setClocks(index, 1980, 1980);
    nvml.setTemperature(index, 45);
    nvml.setPowerLimits(index, 700'000, 700'000);
    return index;
  }

  std::unique_ptr<HealthMonitor> open(const HealthOptions& healthOptions) {
    OpenHealthResult result = openHealthMonitor(healthOptions);
    EXPECT_EQ(result.monitor == nullptr, !result.unavailable.empty()) << result.unavailable;
    return std::move(result.monitor);
  }

  FakeNvml nvml;
  TestClock clock;
};

// Verifies that a window reports the clocks, throttling, temperature, power limits, new ECC
// errors and Xids of its own time only, each window starting where the last one ended.
TEST_F(HealthTest, EachWindowReportsItsOwnFigures) {
  const int gpu = addGpu();
  nvml.setEcc(gpu, 5, 1);  // errors from before the monitor are not the run's
  std::unique_ptr<HealthMonitor> monitor = open(options());
  ASSERT_NE(monitor, nullptr);

  clock.advance(milliseconds(1000));
  std::vector<DeviceWindow> windows = monitor->take();
  ASSERT_EQ(windows.size(), 1u);
  DeviceWindow quiet = windows[0];
  EXPECT_EQ(quiet.device, "GPU 0 (Fake H100)");
  EXPECT_EQ(quiet.samples, 1);
  EXPECT_EQ(quiet.smClockMeanMhz, 1980.0);
  EXPECT_EQ(quiet.smClockMinMhz, 1980u);
  EXPECT_EQ(quiet.smClockMaxMhz, 1980u);
  EXPECT_EQ(quiet.throttled, (ThrottleShares{0, 0, 0}));
  EXPECT_EQ(quiet.temperatureMaxC, 45u);
  EXPECT_EQ(quiet.powerLimitWatts, 700.0);
  EXPECT_EQ(quiet.defaultPowerLimitWatts, 700.0);
  EXPECT_EQ(quiet.eccCorrected, 0u);
  EXPECT_EQ(quiet.eccUncorrected, 0u);
  EXPECT_EQ(quiet.xids, std::vector<uint64_t>{});
  EXPECT_EQ(quiet.error, "");

  nvml.setClocks(gpu, 1410, 1980);
  nvml.setClockReasons(gpu, nvmlClocksEventReasonHwThermalSlowdown |
                                nvmlClocksEventReasonSwPowerCap | nvmlClocksEventReasonGpuIdle);
  nvml.setTemperature(gpu, 91);
  nvml.setPowerLimits(gpu, 400'000, 700'000);
  nvml.setEcc(gpu, 7, 2);
  nvml.raiseXid(gpu, 79);
  clock.advance(milliseconds(1000));
  const DeviceWindow hot = monitor->take().at(0);
  EXPECT_EQ(hot.smClockMeanMhz, 1410.0);
  EXPECT_EQ(hot.throttled, (ThrottleShares{1, 1, 0}));
  EXPECT_EQ(hot.temperatureMaxC, 91u);
  EXPECT_EQ(hot.powerLimitWatts, 400.0);
  EXPECT_EQ(hot.eccCorrected, 2u);
  EXPECT_EQ(hot.eccUncorrected, 1u);
  EXPECT_EQ(hot.xids, std::vector<uint64_t>{79});

  nvml.setClockReasons(gpu, nvmlClocksEventReasonHwPowerBrakeSlowdown);
  clock.advance(milliseconds(1000));
  const DeviceWindow braked = monitor->take().at(0);
  EXPECT_EQ(braked.throttled, (ThrottleShares{0, 0, 1}));
  EXPECT_EQ(braked.eccCorrected, 0u);
  EXPECT_EQ(braked.xids, std::vector<uint64_t>{});
}

// Verifies that the sampler thread weighs each sample by the time since the one before it, so
// that a reason's share is its share of the window's time, and the clock's mean is time-weighted.
TEST_F(HealthTest, SharesAreTimeWeighted) {
  const int gpu = addGpu();
  HealthOptions shortPeriod = options();
  shortPeriod.samplePeriod = milliseconds(100);
  std::unique_ptr<HealthMonitor> monitor = open(shortPeriod);
  ASSERT_NE(monitor, nullptr);
  const char* reasonsCall = "nvmlDeviceGetCurrentClocksEventReasons";

  nvml.setClockReasons(gpu, nvmlClocksEventReasonSwPowerCap);
  nvml.setClocks(gpu, 1800, 1980);
  clock.advance(milliseconds(100));
  ASSERT_TRUE(nvml.waitCalls(reasonsCall, 1, 10'000));
  nvml.setClockReasons(gpu, nvmlClocksEventReasonSwThermalSlowdown);
  nvml.setClocks(gpu, 1000, 1980);
  clock.advance(milliseconds(300));
  ASSERT_TRUE(nvml.waitCalls(reasonsCall, 2, 10'000));

  const DeviceWindow window = monitor->take().at(0);
  EXPECT_EQ(window.samples, 3);  // two from the thread, one at take()
  ASSERT_TRUE(window.throttled.has_value());
  EXPECT_DOUBLE_EQ(window.throttled->powerCap, 0.25);
  EXPECT_DOUBLE_EQ(window.throttled->thermal, 0.75);
  EXPECT_DOUBLE_EQ(window.throttled->hardware, 0.0);
  EXPECT_DOUBLE_EQ(*window.smClockMeanMhz, (1800 * 0.1 + 1000 * 0.3) / 0.4);
  EXPECT_EQ(window.smClockMinMhz, 1000u);
}

// Verifies that what a GPU does not support is left out of its windows and not asked again,
// while what it supports is still reported.
TEST_F(HealthTest, UnsupportedReadingsAreLeftOut) {
  const int gpu = addGpu();
  nvml.fail("nvmlDeviceGetCurrentClocksEventReasons", gpu, NVML_ERROR_NOT_SUPPORTED);
  nvml.fail("nvmlDeviceGetTotalEccErrors", gpu, NVML_ERROR_NOT_SUPPORTED);
  nvml.fail("nvmlDeviceRegisterEvents", gpu, NVML_ERROR_NOT_SUPPORTED);
  nvml.fail("nvmlDeviceGetEnforcedPowerLimit", gpu, NVML_ERROR_NOT_SUPPORTED);
  std::unique_ptr<HealthMonitor> monitor = open(options());
  ASSERT_NE(monitor, nullptr);
  EXPECT_EQ(nvml.eventSets(), 0) << "an event set with no device is freed at once";

  for (int window = 0; window < 2; ++window) {
    clock.advance(milliseconds(500));
    const DeviceWindow figures = monitor->take().at(0);
    EXPECT_FALSE(figures.throttled.has_value());
    EXPECT_FALSE(figures.eccCorrected.has_value());
    EXPECT_FALSE(figures.eccUncorrected.has_value());
    EXPECT_FALSE(figures.xids.has_value());
    EXPECT_FALSE(figures.powerLimitWatts.has_value());
    EXPECT_EQ(figures.smClockMeanMhz, 1980.0);
    EXPECT_EQ(figures.temperatureMaxC, 45u);
    EXPECT_EQ(figures.error, "");
  }
  EXPECT_EQ(nvml.calls("nvmlDeviceGetCurrentClocksEventReasons"), 1u);
  EXPECT_EQ(nvml.calls("nvmlDeviceGetEnforcedPowerLimit"), 1u);
}

// Verifies that a reading that fails for another reason names the call, the GPU and NVML's words
// in that window only, and leaves that sample out of the figures.
TEST_F(HealthTest, AFailedReadIsNamedInItsWindow) {
  const int gpu = addGpu();
  std::unique_ptr<HealthMonitor> monitor = open(options());
  ASSERT_NE(monitor, nullptr);

  nvml.fail("nvmlDeviceGetClockInfo", gpu, NVML_ERROR_GPU_IS_LOST);
  clock.advance(milliseconds(500));
  const DeviceWindow lost = monitor->take().at(0);
  EXPECT_EQ(lost.error, "nvmlDeviceGetClockInfo on GPU 0 (Fake H100): GPU is lost");
  EXPECT_FALSE(lost.smClockMeanMhz.has_value());
  EXPECT_EQ(lost.temperatureMaxC, 45u);

  nvml.fail("nvmlDeviceGetClockInfo", gpu, NVML_SUCCESS);
  clock.advance(milliseconds(500));
  const DeviceWindow back = monitor->take().at(0);
  EXPECT_EQ(back.error, "");
  EXPECT_EQ(back.smClockMeanMhz, 1980.0);
}

// Verifies that the monitor frees its event set and shuts NVML down when it is destroyed.
TEST_F(HealthTest, ReleasesNvmlWhenDestroyed) {
  addGpu();
  std::unique_ptr<HealthMonitor> monitor = open(options());
  ASSERT_NE(monitor, nullptr);
  EXPECT_EQ(nvml.eventSets(), 1);
  EXPECT_EQ(nvml.initialized(), 1);
  monitor.reset();
  EXPECT_EQ(nvml.eventSets(), 0);
  EXPECT_EQ(nvml.initialized(), 0);
}

// Verifies that a missing library or GPU gives no monitor and one line saying why, and that a
// period that is not positive is refused.
TEST_F(HealthTest, NoMonitorWithoutNvmlOrTheGpu) {
  HealthOptions missing = options();
  missing.library = "libhetbench-no-such-nvml.so";
  OpenHealthResult noLibrary = openHealthMonitor(missing);
  EXPECT_EQ(noLibrary.monitor, nullptr);
  EXPECT_EQ(noLibrary.unavailable.rfind("GPU health not watched: ", 0), 0u)
      << noLibrary.unavailable;

  addGpu();
  HealthOptions otherGpu = options();
  otherGpu.devices = {"3"};
  EXPECT_EQ(openHealthMonitor(otherGpu).unavailable,
            "GPU health not watched: no GPU with NVML index 3 (NVML finds 1)");
  EXPECT_EQ(nvml.initialized(), 0);

  HealthOptions zero = options();
  zero.samplePeriod = milliseconds(0);
  EXPECT_THROW(openHealthMonitor(zero), std::invalid_argument);
}

}  // namespace
}  // namespace hetbench::energy
