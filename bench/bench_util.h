#pragma once

// What every benchmark needs: flags handled the same way, wall time and resident memory.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "hetbench/common/flags.h"

namespace hetbench::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/// The process's resident memory now, in KiB (-1 when /proc is unreadable).
inline long residentKiB() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long pages = 0, resident = 0;
  const int n = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/// Parses the flags; an exit code when the program should stop (usage printed or bad flag).
inline std::optional<int> parseFlags(common::FlagSet& flags, int argc, char** argv) {
  common::Result<std::vector<std::string>> args = flags.parse(argc, argv);
  if (!args.isOk()) {
    std::fprintf(stderr, "%s\n", args.status().message().c_str());
    return 2;
  }
  if (flags.helpRequested()) {
    std::fputs(flags.usage().c_str(), stdout);
    return 0;
  }
  return std::nullopt;
}

}  // namespace hetbench::bench
