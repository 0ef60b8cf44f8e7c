#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetbench::logs {

/// The one owner of the log directory's layout, which the collector writes, the controller
/// measures and keeps manifests in, the log server serves and `hetbench logs` reads:
///
///   <namespace>/<run>/<trial>-<repetition>/manifest.json
///   <namespace>/<run>/<trial>-<repetition>/<pod>/<container>.log
///
/// Paths are relative to the log directory, with '/' separators.
class LogLayout {
 public:
  /// "<namespace>/<run>/": everything of one run.
  static std::string runDir(std::string_view ns, std::string_view run);
  /// "<namespace>/<run>/<trial>-<repetition>": one unit.
  static std::string unitDir(std::string_view ns, std::string_view run, std::int64_t trial,
                             std::int64_t repetition);
  /// The rendered workload kept beside a unit's logs.
  static std::string manifestFile(std::string_view unitDir);
  static std::string containerLog(std::string_view unitDir, std::string_view pod,
                                  std::string_view container);
  /// Whether a path is a container log (and not a manifest or a temporary file).
  static bool isContainerLog(std::string_view path);
  /// The (trial, repetition) of a path relative to its run's directory ("3-1/pod/c.log").
  static std::optional<std::pair<std::int64_t, std::int64_t>> unitOf(std::string_view pathInRun);

  /// The container logs under a unit's directory on disk, sorted by path, each with its path
  /// relative to the unit ("<pod>/<container>.log"), which names it as a source of lines.
  struct UnitLog {
    std::filesystem::path file;
    std::string source;
  };
  static std::vector<UnitLog> unitLogs(const std::filesystem::path& unitDir);
};

}  // namespace hetbench::logs
