#include "hetbench/energy/meter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "fake_nvml_client.h"
#include "nvml.h"

namespace hetbench::energy {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kUuidA = "GPU-0a0a0a0a-1111-2222-3333-444444444444";
constexpr const char* kUuidB = "GPU-0b0b0b0b-1111-2222-3333-444444444444";
constexpr const char* kUuidC = "GPU-0c0c0c0c-1111-2222-3333-444444444444";

class MeterTest : public ::testing::Test {
 protected:
  /// Options for the fake NVML, the test's clock, and a period that never passes in a test.
  MeterOptions options() {
    MeterOptions result;
    result.library = HETBENCH_FAKE_NVML;
    result.clock = clock.function();
    result.samplePeriod = std::chrono::hours(1);
    return result;
  }

  /// A device whose energy counter is not supported, drawing `watts`.
  int addPowerOnlyDevice(const char* name, const char* uuid, unsigned int watts) {
    const int index = nvml.addDevice(name, uuid);
    nvml.fail("nvmlDeviceGetTotalEnergyConsumption", index, NVML_ERROR_NOT_SUPPORTED);
    nvml.setPower(index, watts * 1000);
    return index;
  }

  OpenResult open(const MeterOptions& meterOptions) {
    OpenResult result = openMeter(meterOptions);
    EXPECT_EQ(result.meter == nullptr, !result.unavailable.empty()) << result.unavailable;
    return result;
  }

  FakeNvml nvml;
  TestClock clock;
};

// Verifies that two GPUs with energy counters give the sum of their millijoule deltas in joules,
// counted from the open, without power sampling.
TEST_F(MeterTest, SumsTheEnergyCountersOfTwoGpus) {
  nvml.addDevice("Fake A100", kUuidA);
  nvml.addDevice("Fake H100", kUuidB);
  nvml.setEnergy(0, 1'000'000);
  nvml.setEnergy(1, 5'000'500);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(opened.meter->method(), "energy counter");
  EXPECT_EQ(opened.meter->deviceNames(), (std::vector<std::string>{"Fake A100", "Fake H100"}));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 0.0);

  nvml.setEnergy(0, 1'250'000);
  nvml.setEnergy(1, 5'100'750);
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 250.0 + 100.25);
  nvml.setEnergy(1, 5'200'500);
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 250.0 + 200.0);
  EXPECT_EQ(nvml.powerReads(), 0u);
}

// Verifies that a GPU without an energy counter has constant power integrated over the clock's
// time: watts times seconds.
TEST_F(MeterTest, IntegratesConstantPowerWhereTheCounterIsUnsupported) {
  addPowerOnlyDevice("Fake V100", kUuidA, 250);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(opened.meter->method(), "power sampling");
  EXPECT_EQ(opened.meter->deviceNames(), std::vector<std::string>{"Fake V100"});
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 0.0);

  clock.advance(milliseconds(2000));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 500.0);
  clock.advance(milliseconds(500));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 625.0);
}

// Verifies that changing power is integrated as trapezoids between samples: 100 W to 200 W over
// 1 s is 150 J, then 200 W to 400 W over 2 s is 600 J more.
TEST_F(MeterTest, IntegratesRampingPowerAsTrapezoids) {
  addPowerOnlyDevice("Fake V100", kUuidA, 100);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);

  nvml.setPower(0, 200'000);
  clock.advance(milliseconds(1000));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 150.0);
  nvml.setPower(0, 400'000);
  clock.advance(milliseconds(2000));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 750.0);
  nvml.setPower(0, 50'000);
  clock.advance(milliseconds(250));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 750.0 + 56.25);
}

// Verifies that the sampler thread reads the power every period of the meter's clock and that
// its samples enter the integral: 100, 500, 500 and 100 W at 10 ms intervals give 11 J, where the
// first and last samples alone would give 3 J.
TEST_F(MeterTest, SamplesOnItsThreadEveryPeriod) {
  addPowerOnlyDevice("Fake V100", kUuidA, 100);
  MeterOptions meterOptions = options();
  meterOptions.samplePeriod = milliseconds(10);
  OpenResult opened = open(meterOptions);
  ASSERT_NE(opened.meter, nullptr);
  ASSERT_EQ(nvml.powerReads(), 1u);

  const unsigned int milliwatts[] = {500'000, 500'000, 100'000};
  unsigned long reads = 1;
  for (const unsigned int power : milliwatts) {
    nvml.setPower(0, power);
    clock.advance(milliseconds(10));
    ASSERT_TRUE(nvml.waitPowerReads(++reads, 10'000)) << "no sample after " << reads - 1;
  }
  EXPECT_NEAR(opened.meter->joules(), 3.0 + 5.0 + 3.0, 1e-12);
}

// Verifies that counter and power-sampled GPUs are metered together and named in order.
TEST_F(MeterTest, MixesCountersAndPowerSampling) {
  nvml.addDevice("Fake A100", kUuidA);
  nvml.setEnergy(0, 7'000);
  addPowerOnlyDevice("Fake V100", kUuidB, 50);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(opened.meter->method(), "energy counter and power sampling");
  EXPECT_EQ(opened.meter->deviceNames(), (std::vector<std::string>{"Fake A100", "Fake V100"}));

  nvml.setEnergy(0, 17'000);
  clock.advance(milliseconds(2000));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 10.0 + 100.0);
}

// Verifies that only the listed GPUs are metered, by NVML index or by UUID, in the list's order.
TEST_F(MeterTest, SelectsGpusByIndexAndUuid) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.addDevice("Fake B", kUuidB);
  nvml.addDevice("Fake C", kUuidC);
  MeterOptions meterOptions = options();
  meterOptions.devices = {"2", kUuidA};
  OpenResult opened = open(meterOptions);
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(opened.meter->deviceNames(), (std::vector<std::string>{"Fake C", "Fake A"}));

  nvml.setEnergy(0, 1'000);
  nvml.setEnergy(1, 20'000);
  nvml.setEnergy(2, 300'000);
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 1.0 + 300.0);
}

// Verifies that a GPU listed twice, by index and by UUID, is metered once.
TEST_F(MeterTest, MetersAGpuListedTwiceOnce) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.addDevice("Fake B", kUuidB);
  MeterOptions meterOptions = options();
  meterOptions.devices = {"1", kUuidB};
  OpenResult opened = open(meterOptions);
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(opened.meter->deviceNames(), std::vector<std::string>{"Fake B"});
  nvml.setEnergy(1, 4'000);
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 4.0);
}

// Verifies that an unknown UUID, an index beyond NVML's GPUs and an empty entry give no meter
// and say which device is missing, with NVML shut down again.
TEST_F(MeterTest, MissingDevicesAreReasons) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.addDevice("Fake B", kUuidB);
  const struct {
    std::string device;
    std::string unavailable;
  } cases[] = {
      {"GPU-ffffffff-0000-0000-0000-000000000000",
       "energy not measured: no GPU with UUID GPU-ffffffff-0000-0000-0000-000000000000"},
      {"2", "energy not measured: no GPU with NVML index 2 (NVML finds 2)"},
      {"99999999999999999999",
       "energy not measured: no GPU with NVML index 99999999999999999999 "
       "(NVML finds 2)"},
      {"", "energy not measured: an empty device in the list of devices"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.device);
    MeterOptions meterOptions = options();
    meterOptions.devices = {"0", c.device};
    const OpenResult opened = open(meterOptions);
    EXPECT_EQ(opened.meter, nullptr);
    EXPECT_EQ(opened.unavailable, c.unavailable);
    EXPECT_EQ(nvml.initialized(), 0);
  }
}

// Verifies that a library that cannot be loaded gives the loader's reason in one line.
TEST_F(MeterTest, MissingLibraryIsAReason) {
  MeterOptions meterOptions = options();
  meterOptions.library = "libhetbench-no-such-nvml.so.1";
  const OpenResult opened = open(meterOptions);
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_EQ(opened.unavailable.rfind("energy not measured: libhetbench-no-such-nvml.so.1: cannot "
                                     "open shared object file",
                                     0),
            0u)
      << opened.unavailable;
  EXPECT_EQ(opened.unavailable.find('\n'), std::string::npos);
}

// Verifies that a library that is not NVML gives the missing function as the reason.
TEST_F(MeterTest, LibraryWithoutNvmlIsAReason) {
  MeterOptions meterOptions = options();
  meterOptions.library = "libm.so.6";
  const OpenResult opened = open(meterOptions);
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_NE(opened.unavailable.find("undefined symbol: nvmlInit_v2"), std::string::npos)
      << opened.unavailable;
}

// Verifies that a failing nvmlInit_v2 gives NVML's message as the reason.
TEST_F(MeterTest, InitFailureIsAReason) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.fail("nvmlInit_v2", -1, NVML_ERROR_DRIVER_NOT_LOADED);
  const OpenResult opened = open(options());
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_EQ(opened.unavailable, "energy not measured: nvmlInit_v2: Driver Not Loaded");
}

// Verifies that NVML without GPUs gives a reason and is shut down again.
TEST_F(MeterTest, NoGpuIsAReason) {
  const OpenResult opened = open(options());
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_EQ(opened.unavailable, "energy not measured: NVML finds no GPU");
  EXPECT_EQ(nvml.initialized(), 0);
}

// Verifies that a GPU that reports neither energy nor power, or fails otherwise at the open,
// gives no meter (not a partial sum) and says which GPU.
TEST_F(MeterTest, UnreadableGpuIsAReason) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.addDevice("Fake K80", kUuidB);
  nvml.fail("nvmlDeviceGetTotalEnergyConsumption", 1, NVML_ERROR_NOT_SUPPORTED);
  nvml.fail("nvmlDeviceGetPowerUsage", 1, NVML_ERROR_NOT_SUPPORTED);
  OpenResult opened = open(options());
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_EQ(opened.unavailable,
            "energy not measured: GPU 1 (Fake K80) reports neither its energy nor its power");

  nvml.fail("nvmlDeviceGetTotalEnergyConsumption", 1, NVML_ERROR_NO_PERMISSION);
  opened = open(options());
  EXPECT_EQ(opened.meter, nullptr);
  EXPECT_EQ(opened.unavailable,
            "energy not measured: nvmlDeviceGetTotalEnergyConsumption on GPU 1 (Fake K80): "
            "Insufficient Permissions");
  EXPECT_EQ(nvml.initialized(), 0);
}

// Verifies that the meter keeps NVML initialised while it lives and shuts it down when destroyed.
TEST_F(MeterTest, ShutsNvmlDownWhenDestroyed) {
  nvml.addDevice("Fake A", kUuidA);
  addPowerOnlyDevice("Fake V100", kUuidB, 100);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);
  EXPECT_EQ(nvml.initialized(), 1);
  opened.meter.reset();
  EXPECT_EQ(nvml.initialized(), 0);
}

// Verifies that destroying a meter whose sampler waits for a period of 30 s returns at once (a
// sampler that sleeps makes this test fail after 30 s rather than hang).
TEST_F(MeterTest, DestructorStopsTheSamplerAtOnce) {
  addPowerOnlyDevice("Fake V100", kUuidA, 100);
  MeterOptions meterOptions = options();
  meterOptions.samplePeriod = std::chrono::seconds(30);
  OpenResult opened = open(meterOptions);
  ASSERT_NE(opened.meter, nullptr);
  // The open reads the clock once; the sampler reads it just before it waits.
  ASSERT_TRUE(clock.waitForCalls(2));
  const auto start = steady_clock::now();
  opened.meter.reset();
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
}

// Verifies that a read that fails after the open throws with the GPU and NVML's message; a
// failed power sample keeps failing (the gap cannot be integrated), a failed counter read does
// not (the counter still counts).
TEST_F(MeterTest, FailedReadsThrow) {
  nvml.addDevice("Fake A", kUuidA);
  addPowerOnlyDevice("Fake V100", kUuidB, 100);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);

  nvml.fail("nvmlDeviceGetTotalEnergyConsumption", 0, NVML_ERROR_GPU_IS_LOST);
  try {
    opened.meter->joules();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "nvmlDeviceGetTotalEnergyConsumption on GPU 0 (Fake A): GPU is lost");
  }
  nvml.fail("nvmlDeviceGetTotalEnergyConsumption", 0, NVML_SUCCESS);
  clock.advance(milliseconds(1000));
  EXPECT_DOUBLE_EQ(opened.meter->joules(), 100.0);

  nvml.fail("nvmlDeviceGetPowerUsage", 1, NVML_ERROR_GPU_IS_LOST);
  EXPECT_THROW(opened.meter->joules(), std::runtime_error);
  nvml.fail("nvmlDeviceGetPowerUsage", 1, NVML_SUCCESS);
  try {
    opened.meter->joules();
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "nvmlDeviceGetPowerUsage on GPU 1 (Fake V100): GPU is lost");
  }
}

// Verifies that an energy counter below its value at the open is an error, not a negative energy.
TEST_F(MeterTest, CounterGoingBackThrows) {
  nvml.addDevice("Fake A", kUuidA);
  nvml.setEnergy(0, 9'000);
  OpenResult opened = open(options());
  ASSERT_NE(opened.meter, nullptr);
  nvml.setEnergy(0, 8'000);
  EXPECT_THROW(opened.meter->joules(), std::runtime_error);
}

// Verifies that a sample period that is not positive is refused.
TEST_F(MeterTest, RefusesANonPositivePeriod) {
  MeterOptions meterOptions = options();
  meterOptions.samplePeriod = milliseconds(0);
  EXPECT_THROW(openMeter(meterOptions), std::invalid_argument);
}

}  // namespace
}  // namespace hetbench::energy
