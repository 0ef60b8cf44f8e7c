// hetbench-train: trains an MLPerf model and prints its throughput (docs/workloads.md).
#include <iostream>
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
  return train::runTraining(*parsed.options, train::ProgramDeps{}, std::cout, std::cerr);
}
