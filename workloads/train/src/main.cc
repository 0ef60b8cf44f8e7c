// hetbench-train: trains an MLPerf model and prints its throughput (docs/workloads.md).
#include <hetbench/data/loader.h>
#include <hetbench/distributed/communicator.h>
#include <hetbench/distributed/world.h>
#include <hetbench/energy/devices.h>
#include <hetbench/energy/health.h>
#include <hetbench/energy/meter.h>
#include <hetbench/models/descriptor.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/train/data_parallel.h"
#include "hetbench/train/launcher.h"
#include "hetbench/train/options.h"
#include "hetbench/train/program.h"

int main(int argc, char** argv) {
  namespace train = hetbench::train;
  // Before any thread exists, in case this process becomes its node's launcher.
  train::blockLauncherSignals();
  // One write per line on stderr, so that the lines of ranks sharing it do not interleave.
  std::setvbuf(stderr, nullptr, _IOLBF, BUFSIZ);
  std::cerr.unsetf(std::ios_base::unitbuf);
  train::keepFreedMemory();
  const std::vector<std::string> args(argv + 1, argv + argc);
  const train::ParsedArgs parsed = train::parseTrainArgs(args);
  if (parsed.help) {
    std::cout << train::trainUsage();
    return 0;
  }
  if (!parsed.options) {
    std::cerr << "hetbench-train: " << parsed.error << " (see --help)\n";
    return 2;
  }
  const train::TrainOptions& options = *parsed.options;
  train::ProgramDeps deps;
  deps.openLoader = hetbench::data::openLoader;
  // The ranks of a torchrun-style run: joined before anything is printed on stdout, so that a
  // rank that cannot join leaves no half-started run in its log.
  namespace distributed = hetbench::distributed;
  std::unique_ptr<distributed::Communicator> comm;
  std::unique_ptr<train::DataParallel> ranks;
  try {
    const distributed::World world = distributed::worldFromEnvironment(std::getenv);
    // Without LOCAL_RANK no launcher started this process: on a node with several GPUs it
    // starts one rank per GPU (the environment's world counts nodes) and waits for them.
    if (std::getenv("LOCAL_RANK") == nullptr) {
      const int procs = train::localProcesses(options);
      if (procs > 1) {
        return train::launchLocalRanks("/proc/self/exe", args, world, procs, std::cerr);
      }
    }
    train::unblockLauncherSignals();
    deps.localRank = world.localRank;
    if (world.distributed()) {
      distributed::ConnectOptions connect;
      connect.device = train::chooseDevice(options.device, world.localRank);
      std::cerr << "hetbench-train: joining as " << distributed::describe(world) << std::endl;
      comm = distributed::connect(world, connect);
      train::DataParallelOptions parallel;
      parallel.buffers = hetbench::models::descriptor(options.model).bufferSync;
      parallel.overlapWithBackward = !options.cudaGraphs;
      ranks = std::make_unique<train::DataParallel>(*comm, parallel);
      deps.collective = ranks.get();
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "hetbench-train: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hetbench-train: " << e.what() << "\n";
    return 1;
  }
  // Energy, clocks, throttling and errors of this rank's GPUs from NVML, when there is one; said
  // once when there is none.
  std::shared_ptr<hetbench::energy::Meter> meter;
  std::shared_ptr<hetbench::energy::HealthMonitor> health;
  if (options.device != train::DeviceChoice::kCpu) {
    const hetbench::energy::RankDevices devices = hetbench::energy::rankDevicesFromEnvironment();
    if (!devices.unavailable.empty()) {
      std::cerr << "hetbench-train: " << devices.unavailable << "\n";
    } else {
      hetbench::energy::MeterOptions meterOptions;
      meterOptions.devices = devices.devices;
      hetbench::energy::OpenResult opened = hetbench::energy::openMeter(meterOptions);
      if (opened.meter) {
        meter = std::move(opened.meter);
        deps.energyJoules = [meter] { return meter->joules(); };
      } else {
        std::cerr << "hetbench-train: " << opened.unavailable << "\n";
      }
      hetbench::energy::HealthOptions healthOptions;
      healthOptions.devices = devices.devices;
      hetbench::energy::OpenHealthResult watched =
          hetbench::energy::openHealthMonitor(healthOptions);
      if (watched.monitor) {
        health = std::move(watched.monitor);
        deps.deviceHealth = [health] { return health->take(); };
      } else {
        std::cerr << "hetbench-train: " << watched.unavailable << "\n";
      }
    }
  }
  const int status = train::runTraining(options, deps, std::cout, std::cerr);
  // Rank 0 serves the rendezvous store: no rank leaves before every rank is done with it. A
  // failed rank leaves at once; the others' next collective fails on its closed connections.
  if (comm && status == 0) {
    try {
      comm->barrier();
    } catch (const std::exception& e) {
      std::cerr << "hetbench-train: after training: " << e.what() << "\n";
      return 1;
    }
  }
  return status;
}
