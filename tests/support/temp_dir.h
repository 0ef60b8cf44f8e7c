#pragma once

// Test support shared by the test executables (tests/CMakeLists.txt puts tests/ on their include
// path): a temporary directory that cleans up after itself.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace hetbench::testing_support {

/// A fresh directory under testing::TempDir(), named after `prefix`, removed with everything in
/// it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "hetbench_test") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::path(::testing::TempDir()) /
            (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

  /// Writes `content` to `name` (relative to the directory, parents created); returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace hetbench::testing_support
