#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/logs/retention.h"

namespace hetbench::logs {

/// A run as the janitor needs it: who it is and whether it has finished.
struct LiveRun {
  std::string ns;
  std::string name;
  std::string uid;
  std::optional<common::WallTime> completionTime;  // set once the run has finished
};

/// Keeps the log directory within its retention and size (retention.h): each sweep measures the
/// runs' directories (LogLayout), marks those whose run is gone with a `deleted` file holding
/// the time it was first seen gone, and deletes what `planPruning` picks. Only the directories
/// of runs in `namespaces` (empty, or "": all) are judged; anything else is counted and kept.
class LogJanitor {
 public:
  LogJanitor(std::filesystem::path dir, RetentionPolicy policy,
             std::vector<std::string> namespaces);

  /// One sweep. `runs` is read after the directory is listed, so that a run's directory is
  /// never older than the list that should hold it.
  void sweep(common::WallTime now, const std::function<std::vector<LiveRun>()>& runs);

  /// As of the last sweep: the bytes of every file under the directory, and the bytes free to
  /// an unprivileged writer on its file system.
  std::uint64_t bytesInUse() const { return bytes_.load(); }
  std::uint64_t freeBytes() const { return free_.load(); }
  std::uint64_t maxBytes() const { return policy_.maxBytes; }
  /// Runs whose logs were deleted since the start, by reason ("retention", "size").
  std::map<std::string, std::uint64_t> prunedRuns() const;

 private:
  std::filesystem::path dir_;
  RetentionPolicy policy_;
  std::vector<std::string> namespaces_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> free_{0};
  mutable std::mutex mu_;
  std::map<std::string, std::uint64_t> pruned_;
};

}  // namespace hetbench::logs
