#pragma once

// The part of NVML's C API that the meter calls. nvml.h comes with the CUDA toolkit, which this
// build does not need; the library comes with the driver and is loaded at run time, so only these
// declarations are needed: the meter takes its function pointer types from them (decltype), and
// the tests' fake NVML defines them, so both agree with one declaration.

extern "C" {

enum nvmlReturn_t {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_UNKNOWN = 999,
};

/// An opaque handle to one device.
using nvmlDevice_t = struct nvmlDevice_st*;

/// Large enough for any device name (NVML_DEVICE_NAME_V2_BUFFER_SIZE).
constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;

nvmlReturn_t nvmlInit_v2();
nvmlReturn_t nvmlShutdown();
const char* nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length);
/// Millijoules used since the driver was loaded (Volta and later).
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy);
/// The board's power draw in milliwatts.
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power);
}
