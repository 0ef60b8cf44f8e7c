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
/// measures and keeps manifests in, the janitor prunes, the log server serves and
/// `hetbench logs` reads:
///
///   <namespace>/<run>/<uid>/<trial>-<repetition>/manifest.json
///   <namespace>/<run>/<uid>/<trial>-<repetition>/<pod>/<container>.log
///   <namespace>/<run>/<uid>/deleted          (when the janitor saw the run gone)
///
/// A run is keyed by its uid below its name, so that a run deleted and applied again under the
/// same name never shares a file with its predecessor. Paths are relative to the log
/// directory, with '/' separators.
class LogLayout {
 public:
  /// "<namespace>/<run>/": every run of that name, each below its uid.
  static std::string runDir(std::string_view ns, std::string_view run);
  /// "<namespace>/<run>/<uid>/": everything of one run.
  static std::string generationDir(std::string_view ns, std::string_view run, std::string_view uid);
  /// "<namespace>/<run>/<uid>/<trial>-<repetition>": one unit.
  static std::string unitDir(std::string_view ns, std::string_view run, std::string_view uid,
                             std::int64_t trial, std::int64_t repetition);
  /// The file that says since when a run's logs have had no run (its content: an RFC 3339
  /// time).
  static std::string deletedMarker(std::string_view generationDir);
  /// Whether a name is a uid as the API server assigns them (RFC 4122 text, lower case), and
  /// so a run's directory below its name.
  static bool isUid(std::string_view name);
  /// A path relative to a run name's directory ("<uid>/3-1/pod/c.log") split into its uid and
  /// the path below it; nothing when the first segment is not a uid.
  static std::optional<std::pair<std::string, std::string>> generationOf(
      std::string_view pathInRunDir);
  /// The rendered workload kept beside a unit's logs.
  static std::string manifestFile(std::string_view unitDir);
  static std::string containerLog(std::string_view unitDir, std::string_view pod,
                                  std::string_view container);
  /// Whether a path is a container log (and not a manifest or a temporary file).
  static bool isContainerLog(std::string_view path);
  /// The (trial, repetition) of a path relative to one run's directory ("3-1/pod/c.log").
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
