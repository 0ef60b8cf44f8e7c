#include "hetbench/logs/janitor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <tuple>

#include "hetbench/common/time.h"
#include "hetbench/logs/layout.h"

namespace hetbench::logs {
namespace {

namespace fs = std::filesystem;

/// The bytes of the regular files below `dir` (their sizes, not the blocks they take), each
/// passed to `add` with its path relative to `dir`.
void forEachFile(const fs::path& dir,
                 const std::function<void(const fs::path&, std::uint64_t)>& add) {
  std::error_code ec;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code sizeError;
    if (!it->is_regular_file(sizeError) || it->is_symlink(sizeError)) continue;
    const std::uintmax_t size = it->file_size(sizeError);
    if (!sizeError) add(it->path().lexically_relative(dir), size);
  }
}

std::vector<fs::path> subdirectories(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code typeError;
    if (it->is_directory(typeError) && !it->is_symlink(typeError)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// One run's directory found on disk.
struct Found {
  std::string ns;
  std::string name;
  std::string uid;
  fs::path dir;
};

std::optional<common::WallTime> readMarker(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::string text;
  std::getline(in, text);
  common::Result<common::WallTime> t = common::parseRfc3339(text);
  if (!t.isOk()) return std::nullopt;
  return t.value();
}

bool writeMarker(const fs::path& file, common::WallTime now) {
  std::ofstream out(file, std::ios::trunc);
  out << common::formatRfc3339(now) << "\n";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

LogJanitor::LogJanitor(fs::path dir, RetentionPolicy policy, std::vector<std::string> namespaces)
    : dir_(std::move(dir)), policy_(policy), namespaces_(std::move(namespaces)) {
  if (std::find(namespaces_.begin(), namespaces_.end(), "") != namespaces_.end())
    namespaces_.clear();
}

void LogJanitor::sweep(common::WallTime now, const std::function<std::vector<LiveRun>()>& runs) {
  std::vector<Found> found;
  for (const fs::path& nsDir : subdirectories(dir_))
    for (const fs::path& runDir : subdirectories(nsDir))
      for (const fs::path& uidDir : subdirectories(runDir))
        if (LogLayout::isUid(uidDir.filename().string()))
          found.push_back({nsDir.filename().string(), runDir.filename().string(),
                           uidDir.filename().string(), uidDir});

  std::map<std::tuple<std::string, std::string, std::string>, const LiveRun*> live;
  const std::vector<LiveRun> listed = runs();
  for (const LiveRun& run : listed) live[{run.ns, run.name, run.uid}] = &run;
  auto watched = [&](const std::string& ns) {
    return namespaces_.empty() ||
           std::find(namespaces_.begin(), namespaces_.end(), ns) != namespaces_.end();
  };

  // Files outside any run's directory take room too, but are not the janitor's to delete: they
  // are the last entry, of no known run.
  std::vector<KeptRun> kept(found.size() + 1);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < found.size(); ++i)
    index[LogLayout::generationDir(found[i].ns, found[i].name, found[i].uid)] = i;
  std::uint64_t total = 0;
  forEachFile(dir_, [&](const fs::path& relative, std::uint64_t size) {
    total += size;
    std::string key;
    auto part = relative.begin();
    for (int depth = 0; depth < 3 && part != relative.end(); ++depth, ++part)
      key += part->string() + "/";
    const auto it = index.find(key);
    kept[it == index.end() ? found.size() : it->second].bytes += size;
  });

  for (std::size_t i = 0; i < found.size(); ++i) {
    const Found& f = found[i];
    KeptRun& k = kept[i];
    const fs::path marker =
        dir_ / LogLayout::deletedMarker(LogLayout::generationDir(f.ns, f.name, f.uid));
    std::error_code ec;
    const auto it = live.find({f.ns, f.name, f.uid});
    if (!watched(f.ns)) {
      k.state = RunState::kUnknown;
    } else if (it != live.end()) {
      k.state = it->second->completionTime ? RunState::kFinished : RunState::kActive;
      k.since = it->second->completionTime;
      if (fs::exists(marker, ec)) fs::remove(marker, ec);  // seen gone by a lagging cache
    } else {
      k.state = RunState::kGone;
      k.since = readMarker(marker);
      if (!k.since) {
        k.since = now;
        if (!writeMarker(marker, now))
          spdlog::warn("log janitor cannot mark a run gone file={}", marker.string());
      }
    }
  }

  std::uint64_t freed = 0;
  for (const Prune& p : planPruning(kept, now, policy_)) {
    if (p.run >= found.size()) continue;  // files of no run are never the policy's to delete
    const Found& f = found[p.run];
    std::error_code ec;
    fs::remove_all(f.dir, ec);
    if (ec) {
      spdlog::warn("log janitor cannot delete dir={} error={}", f.dir.string(), ec.message());
      continue;
    }
    fs::remove(f.dir.parent_path(), ec);  // the run name's directory, once empty
    fs::remove(f.dir.parent_path().parent_path(), ec);
    freed += kept[p.run].bytes;
    spdlog::info("log janitor deleted a run's logs run={}/{} uid={} bytes={} reason={}", f.ns,
                 f.name, f.uid, kept[p.run].bytes, toString(p.reason));
    std::lock_guard lock(mu_);
    ++pruned_[std::string(toString(p.reason))];
  }
  bytes_ = total > freed ? total - freed : 0;
  std::error_code ec;
  const fs::space_info space = fs::space(dir_, ec);
  if (!ec) free_ = space.available;
}

std::map<std::string, std::uint64_t> LogJanitor::prunedRuns() const {
  std::lock_guard lock(mu_);
  return pruned_;
}

}  // namespace hetbench::logs
