#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/temp_dir.h"

// The Python scripts beside these tests build the reference models with Debian's torch and
// torchvision and write what the C++ models are compared with into a temporary directory.

namespace hetbench::models::testing_support {

using hetbench::testing_support::TempDir;

struct ScriptRun {
  int status = -1;     // the exit status, -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

/// The value in scientific notation, for test properties (std::to_string rounds to 1e-6).
inline std::string scientific(double value) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(3) << value;
  return text.str();
}

/// Whether CMake found a Python that imports torch and torchvision (HETBENCH_TORCH_PYTHON).
inline bool haveTorchPython() { return !std::string_view(HETBENCH_TORCH_PYTHON).empty(); }

/// Runs a script of this directory with that Python and the given arguments.
inline ScriptRun runScript(const std::string& script, const std::vector<std::string>& args) {
  const auto quote = [](const std::string& s) {
    std::string quoted = "'";
    for (const char c : s) {
      quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
  };
  std::string command = quote(HETBENCH_TORCH_PYTHON) + " " +
                        quote(std::string(HETBENCH_MODEL_SCRIPTS) + "/" + script);
  for (const auto& arg : args) {
    command += " " + quote(arg);
  }
  command += " 2>&1";
  ScriptRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    run.output = "popen failed for " + command;
    return run;
  }
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    run.output.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace hetbench::models::testing_support

/// Skips the test, saying why, when there is no Python with torch and torchvision.
#define HETBENCH_REQUIRE_TORCH_PYTHON()                                                        \
  do {                                                                                         \
    if (!::hetbench::models::testing_support::haveTorchPython()) {                             \
      GTEST_SKIP() << "no Python that imports torch and torchvision (HETBENCH_TORCH_PYTHON); " \
                      "scripts/setup installs python3-torch and python3-torchvision";          \
    }                                                                                          \
  } while (false)
