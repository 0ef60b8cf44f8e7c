#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::cli {

/// Where the kept logs are read from: the operator's log server or its log directory.
class LogSource {
 public:
  virtual ~LogSource() = default;
  /// The run's files, relative to its directory ("0-1/POD/CONTAINER.log").
  virtual common::Result<std::vector<std::string>> list(const std::string& ns,
                                                        const std::string& run) = 0;
  /// Passes one file's content to `out` in pieces.
  virtual common::Status read(const std::string& ns, const std::string& run,
                              const std::string& path,
                              const std::function<void(std::string_view)>& out) = 0;
};

/// Reads `<dir>/<namespace>/<run>/...` directly (on the operator's host, or a copy of it).
std::unique_ptr<LogSource> directorySource(std::filesystem::path dir);
/// Reads through the operator's `--logs-bind-address` server, e.g. "http://127.0.0.1:8082"
/// (through `kubectl port-forward` on a cluster).
common::Result<std::unique_ptr<LogSource>> serverSource(const std::string& url);

struct LogSelection {
  std::optional<std::int64_t> trial;
  std::optional<std::int64_t> repetition;
  bool timestamps = false;  // keep the kubelet's timestamp in front of each line
};

/// The container logs among `files` that `selection` picks, in order (trial, repetition, pod,
/// container); manifests are left out.
std::vector<std::string> selectLogFiles(const std::vector<std::string>& files,
                                        const LogSelection& selection);

/// Prints each selected log behind a `==> 0-1/POD/CONTAINER.log <==` header; NotFound when the
/// run has no logs or the selection picks none.
common::Status printLogs(LogSource& source, const std::string& ns, const std::string& run,
                         const LogSelection& selection, std::ostream& out);

}  // namespace hetbench::cli
