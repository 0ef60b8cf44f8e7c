#include "hetbench/logs/layout.h"

#include <algorithm>
#include <charconv>

namespace hetbench::logs {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kLogSuffix = ".log";
constexpr std::string_view kUidShape = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

}  // namespace

std::string LogLayout::runDir(std::string_view ns, std::string_view run) {
  return std::string(ns) + "/" + std::string(run) + "/";
}

std::string LogLayout::generationDir(std::string_view ns, std::string_view run,
                                     std::string_view uid) {
  return runDir(ns, run) + std::string(uid) + "/";
}

std::string LogLayout::unitDir(std::string_view ns, std::string_view run, std::string_view uid,
                               std::int64_t trial, std::int64_t repetition) {
  return generationDir(ns, run, uid) + std::to_string(trial) + "-" + std::to_string(repetition);
}

std::string LogLayout::deletedMarker(std::string_view generationDir) {
  std::string out(generationDir);
  if (out.empty() || out.back() != '/') out += '/';
  return out + "deleted";
}

bool LogLayout::isUid(std::string_view name) {
  if (name.size() != kUidShape.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (kUidShape[i] == '-' ? c != '-' : !hex) return false;
  }
  return true;
}

std::optional<std::pair<std::string, std::string>> LogLayout::generationOf(
    std::string_view pathInRunDir) {
  const std::size_t slash = pathInRunDir.find('/');
  if (slash == std::string_view::npos || !isUid(pathInRunDir.substr(0, slash))) return std::nullopt;
  return std::make_pair(std::string(pathInRunDir.substr(0, slash)),
                        std::string(pathInRunDir.substr(slash + 1)));
}

std::string LogLayout::manifestFile(std::string_view unitDir) {
  return std::string(unitDir) + "/manifest.json";
}

std::string LogLayout::containerLog(std::string_view unitDir, std::string_view pod,
                                    std::string_view container) {
  return std::string(unitDir) + "/" + std::string(pod) + "/" + std::string(container) +
         std::string(kLogSuffix);
}

bool LogLayout::isContainerLog(std::string_view path) {
  return path.size() > kLogSuffix.size() &&
         path.compare(path.size() - kLogSuffix.size(), kLogSuffix.size(), kLogSuffix) == 0;
}

std::optional<std::pair<std::int64_t, std::int64_t>> LogLayout::unitOf(std::string_view pathInRun) {
  const std::size_t slash = pathInRun.find('/');
  const std::string_view unit = pathInRun.substr(0, slash);
  const std::size_t dash = unit.find('-');
  if (slash == std::string_view::npos || dash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view text) -> std::optional<std::int64_t> {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0)
      return std::nullopt;
    return n;
  };
  const std::optional<std::int64_t> trial = number(unit.substr(0, dash));
  const std::optional<std::int64_t> repetition = number(unit.substr(dash + 1));
  if (!trial || !repetition) return std::nullopt;
  return std::make_pair(*trial, *repetition);
}

std::vector<LogLayout::UnitLog> LogLayout::unitLogs(const fs::path& unitDir) {
  std::vector<UnitLog> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(unitDir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string source = fs::relative(it->path(), unitDir, ec).generic_string();
    if (isContainerLog(source)) out.push_back({it->path(), std::move(source)});
  }
  std::sort(out.begin(), out.end(),
            [](const UnitLog& a, const UnitLog& b) { return a.file < b.file; });
  return out;
}

}  // namespace hetbench::logs
