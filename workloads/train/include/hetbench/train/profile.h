#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace hetbench::train {

/// One operator (on the CPU) or device activity (a CUDA kernel, copy or fill) that LibTorch's
/// profiler recorded, with its time in microseconds.
struct ProfiledActivity {
  std::string device;  // "cpu" or "cuda"
  std::string name;
  double microseconds = 0;
};

/// Every activity of one name on one device, added up.
struct ProfileEntry {
  std::string device;
  std::string name;
  int64_t calls = 0;
  double totalMicroseconds = 0;

  bool operator==(const ProfileEntry&) const = default;
};

/// The activities grouped by device and name, the longest total first (ties by device, then
/// name). CPU operators nest (aten::conv2d holds aten::convolution), so their totals include
/// the operators they call; device activities do not nest.
std::vector<ProfileEntry> summarizeProfile(const std::vector<ProfiledActivity>& activities);

/// What `--profile` writes for one rank's profiled epoch.
struct ProfileReport {
  int64_t epoch = 0;
  int64_t rank = 0;
  int64_t steps = 0;
  double wallSeconds = 0;  // the epoch as timed with the profiler on
  std::string device;      // "cpu" or "cuda:N"
  std::vector<ProfileEntry> entries;
};

/// The report as one JSON object (docs/workloads.md, "Profiling an epoch").
std::string profileJson(const ProfileReport& report);

/// Where a rank writes its profile: `path` itself in a run of one rank, `path.rankN` otherwise.
std::string profilePathOfRank(const std::string& path, int64_t rank, int64_t worldSize);

/// LibTorch's profiler (Kineto) over a stretch of work of this thread: the operators and, on a
/// CUDA device, the kernels, copies and fills. One at a time per process.
class EpochProfiler {
 public:
  /// Opens `path` for writing (std::runtime_error when it cannot, before any training) and
  /// remembers whether to record CUDA activities.
  EpochProfiler(std::string path, bool cuda);
  ~EpochProfiler();
  EpochProfiler(const EpochProfiler&) = delete;
  EpochProfiler& operator=(const EpochProfiler&) = delete;

  void start();
  /// Stops recording and writes the report with its entries; throws std::runtime_error when
  /// the file cannot be written.
  void stopAndWrite(ProfileReport report);

 private:
  std::string path_;
  bool cuda_;
  bool recording_ = false;
  std::ofstream file_;
};

}  // namespace hetbench::train
