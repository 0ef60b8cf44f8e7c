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
/// The SM clock now and at most, in MHz.
void fake_nvml_set_clocks(int index, unsigned int smMhz, unsigned int maxSmMhz);
/// The mask of nvmlClocksEventReason* bits that the device reports now.
void fake_nvml_set_clock_reasons(int index, unsigned long long reasons);
void fake_nvml_set_temperature(int index, unsigned int celsius);
void fake_nvml_set_power_limits(int index, unsigned int enforcedMilliwatts,
                                unsigned int defaultMilliwatts);
/// The volatile ECC error counts.
void fake_nvml_set_ecc(int index, unsigned long long corrected, unsigned long long uncorrected);
/// Queues a critical Xid event for the device, for every event set it is registered with.
void fake_nvml_raise_xid(int index, unsigned long long xid);
/// Event sets created and not yet freed.
int fake_nvml_event_sets();
/// Calls of the NVML function `function` so far.
unsigned long fake_nvml_calls(const char* function);
/// Waits until `function` has been called `count` times; 1 when it has, 0 after the timeout.
int fake_nvml_wait_calls(const char* function, unsigned long count, int timeoutMs);
}
