#pragma once

// The part of NVML's C API that the meter and the health monitor call. nvml.h comes with the CUDA
// toolkit, which this build does not need; the library comes with the driver and is loaded at run
// time, so only these declarations are needed: nvml_library.h takes its function pointer types
// from them (decltype), and the tests' fake NVML defines them, so both agree with one declaration.

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
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_UNKNOWN = 999,
};

/// An opaque handle to one device.
using nvmlDevice_t = struct nvmlDevice_st*;

/// Large enough for any device name (NVML_DEVICE_NAME_V2_BUFFER_SIZE).
constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;

enum nvmlClockType_t { NVML_CLOCK_SM = 1 };
enum nvmlTemperatureSensors_t { NVML_TEMPERATURE_GPU = 0 };
enum nvmlMemoryErrorType_t {
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
};
/// Volatile counters start at zero when the driver loads; aggregate ones last the board's life.
enum nvmlEccCounterType_t { NVML_VOLATILE_ECC = 0 };

/// The bits of nvmlDeviceGetCurrentClocksEventReasons: why the clocks are below their maximum.
constexpr unsigned long long nvmlClocksEventReasonGpuIdle = 0x1ULL;
constexpr unsigned long long nvmlClocksEventReasonApplicationsClocksSetting = 0x2ULL;
constexpr unsigned long long nvmlClocksEventReasonSwPowerCap = 0x4ULL;
constexpr unsigned long long nvmlClocksEventReasonHwSlowdown = 0x8ULL;
constexpr unsigned long long nvmlClocksEventReasonSyncBoost = 0x10ULL;
constexpr unsigned long long nvmlClocksEventReasonSwThermalSlowdown = 0x20ULL;
constexpr unsigned long long nvmlClocksEventReasonHwThermalSlowdown = 0x40ULL;
constexpr unsigned long long nvmlClocksEventReasonHwPowerBrakeSlowdown = 0x80ULL;

/// An event set, and the event type of Xid errors that concern the GPU's health.
using nvmlEventSet_t = struct nvmlEventSet_st*;
constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8ULL;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  /// For an Xid event, the Xid.
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

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

/// The clocks' present limiters, a mask of nvmlClocksEventReason* bits (driver 535 and later;
/// nvmlDeviceGetCurrentClocksThrottleReasons is the same call by its older name).
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long* reasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                       unsigned long long* reasons);
/// A clock's present and highest frequency, in MHz.
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                       unsigned int* clock);
/// Degrees Celsius.
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                      unsigned int* temp);
/// The power limit in force and the board's default, in milliwatts.
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* limit);
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device,
                                                      unsigned int* defaultLimit);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType,
                                         unsigned long long* eccCounts);
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set);
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set);
/// The next event of the set, waiting up to `timeoutms`; NVML_ERROR_TIMEOUT when there is none.
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeoutms);
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);
}
