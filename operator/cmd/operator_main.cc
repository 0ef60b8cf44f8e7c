// hetbench-operator: the controller daemon. Only wiring lives here.
#include <cstdio>

#include "hetbench/common/flags.h"

namespace common = hetbench::common;

int main(int argc, char** argv) {
  common::FlagSet flags("hetbench-operator",
                        "Watches BenchmarkRun resources and runs their benchmark workloads.");
  bool showVersion = false;
  flags.addBool("version", &showVersion, "Print the version and exit.");

  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) {
    std::fprintf(stderr, "hetbench-operator: %s\n", args.status().message().c_str());
    return 2;
  }
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  if (showVersion) {
    std::puts("hetbench-operator " HETBENCH_VERSION);
    return 0;
  }
  std::fputs("hetbench-operator: the controller is not in this build yet (see --help)\n", stderr);
  return 2;
}
