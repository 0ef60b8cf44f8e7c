// hetbench: the command-line client. Only wiring lives here.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "hetbench/cli/logs.h"
#include "hetbench/common/flags.h"

namespace cli = hetbench::cli;
namespace common = hetbench::common;

namespace {

constexpr const char* kUsage =
    "Usage: hetbench COMMAND [flags]\n\n"
    "Commands:\n"
    "  logs RUN     print the kept logs of a BenchmarkRun\n"
    "  version      print the version\n\n"
    "Run 'hetbench COMMAND --help' for a command's flags.\n";

int logs(int argc, char** argv) {
  common::FlagSet flags("hetbench logs RUN",
                        "Prints the container logs the operator kept for a BenchmarkRun, from "
                        "its log server or its log directory.");
  std::string ns = "default";
  std::string server;
  std::string dir;
  std::int64_t trial = -1;
  std::int64_t repetition = -1;
  bool timestamps = false;
  flags.addString("namespace", &ns, "The run's namespace.");
  flags.addString("server", &server,
                  "The operator's log server, e.g. http://127.0.0.1:8082 (through kubectl "
                  "port-forward on a cluster).");
  flags.addString("log-dir", &dir, "Read the operator's --log-dir directly instead.");
  flags.addInt("trial", &trial, "Only this trial (-1: all).", -1, 1'000'000);
  flags.addInt("repetition", &repetition, "Only this repetition (-1: all).", -1, 1'000'000);
  flags.addBool("timestamps", &timestamps, "Keep the kubelet's timestamp on each line.");
  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) {
    std::fprintf(stderr, "hetbench logs: %s\n", args.status().message().c_str());
    return 2;
  }
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  if (args.value().size() != 1 || server.empty() == dir.empty()) {
    std::fputs("hetbench logs: want one RUN and exactly one of --server and --log-dir\n", stderr);
    return 2;
  }
  std::unique_ptr<cli::LogSource> source;
  if (!dir.empty()) {
    source = cli::directorySource(dir);
  } else {
    auto made = cli::serverSource(server);
    if (!made.isOk()) {
      std::fprintf(stderr, "hetbench logs: %s\n", made.status().message().c_str());
      return 2;
    }
    source = std::move(made).value();
  }
  cli::LogSelection selection;
  if (trial >= 0) selection.trial = trial;
  if (repetition >= 0) selection.repetition = repetition;
  selection.timestamps = timestamps;
  const common::Status printed =
      cli::printLogs(*source, ns, args.value().front(), selection, std::cout);
  if (!printed.isOk()) {
    std::fprintf(stderr, "hetbench logs: %s\n", printed.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "logs") return logs(argc - 1, argv + 1);
  if (command == "version") {
    std::puts("hetbench " HETBENCH_VERSION);
    return 0;
  }
  std::fprintf(stderr, "hetbench: unknown command \"%s\"\n%s", command.c_str(), kUsage);
  return 2;
}
