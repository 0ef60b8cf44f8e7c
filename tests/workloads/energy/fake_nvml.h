#pragma once

// The control side of the fake NVML (fake_nvml.cc). The tests look these up with dlsym in the
// library that the meter loads, so that both see one state; see FakeNvml in meter_test.cc.

extern "C" {

/// Forgets every device, forced result and count.
void fake_nvml_reset();
/// Adds a device with NVML's next index, which it returns.
int fake_nvml_add_device(const char* name, const char* uuid);
void fake_nvml_set_energy(int index, unsigned long long millijoules);
void fake_nvml_set_power(int index, unsigned int milliwatts);
/// Makes `function` return `result` for the device `index`, or for every call when index is -1.
void fake_nvml_fail(const char* function, int index, int result);
/// nvmlInit_v2 calls not yet matched by nvmlShutdown.
int fake_nvml_initialized();
/// nvmlDeviceGetPowerUsage calls so far.
unsigned long fake_nvml_power_reads();
/// Waits until there have been `count` power reads; 1 when there have, 0 after the timeout.
int fake_nvml_wait_power_reads(unsigned long count, int timeoutMs);
}
