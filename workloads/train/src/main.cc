// hetbench-train: trains an MLPerf model and prints its throughput (docs/workloads.md).
#include <hetbench/data/loader.h>
#include <hetbench/energy/devices.h>
#include <hetbench/energy/meter.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/train/options.h"
#include "hetbench/train/program.h"

int main(int argc, char** argv) {
  namespace train = hetbench::train;
  train::keepFreedMemory();
  const train::ParsedArgs parsed =
      train::parseTrainArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (parsed.help) {
    std::cout << train::trainUsage();
    return 0;
  }
  if (!parsed.options) {
    std::cerr << "hetbench-train: " << parsed.error << " (see --help)\n";
    return 2;
  }
  train::ProgramDeps deps;
  deps.openLoader = hetbench::data::openLoader;
  // Energy of this rank's GPUs from NVML, when there is one; said once when there is none.
  std::shared_ptr<hetbench::energy::Meter> meter;
  if (parsed.options->device != train::DeviceChoice::kCpu) {
    const hetbench::energy::RankDevices devices = hetbench::energy::rankDevicesFromEnvironment();
    if (!devices.unavailable.empty()) {
      std::cerr << "hetbench-train: " << devices.unavailable << "\n";
    } else {
      hetbench::energy::MeterOptions options;
      options.devices = devices.devices;
      hetbench::energy::OpenResult opened = hetbench::energy::openMeter(options);
      if (opened.meter) {
        meter = std::move(opened.meter);
        deps.energyJoules = [meter] { return meter->joules(); };
      } else {
        std::cerr << "hetbench-train: " << opened.unavailable << "\n";
      }
    }
  }
  return train::runTraining(*parsed.options, deps, std::cout, std::cerr);
}
