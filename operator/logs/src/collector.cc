#include "hetbench/logs/collector.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "hetbench/logs/layout.h"

namespace hetbench::logs {
namespace {

using common::stringMember;
using nlohmann::json;

constexpr std::uint64_t kTailWindow = 1 << 20;  // enough for the lines of one timestamp

/// The containers of a pod that have started (running or terminated), with whether they ended.
std::vector<std::pair<std::string, bool>> startedContainers(const json& pod) {
  std::vector<std::pair<std::string, bool>> out;
  const json& status = pod.value("status", json::object());
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    auto it = status.find(key);
    if (it == status.end() || !it->is_array()) continue;
    for (const json& cs : *it) {
      const json& state = cs.value("state", json::object());
      const bool terminated = state.contains("terminated");
      const bool startedOnce = terminated || state.contains("running") ||
                               cs.value("lastState", json::object()).contains("terminated");
      if (startedOnce) out.emplace_back(stringMember(cs, "name"), terminated);
    }
  }
  return out;
}

bool podTerminal(const json& pod) {
  const std::string phase = stringMember(pod.value("status", json::object()), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

std::string streamKey(const json& pod, const std::string& container) {
  const json& meta = pod.value("metadata", json::object());
  return stringMember(meta, "namespace") + "/" + stringMember(meta, "name") + "/" +
         stringMember(meta, "uid") + "/" + container;
}

/// The timestamp at the start of a line written with timestamps=true, as text and as time.
struct Stamp {
  std::string_view text;
  common::WallTime time;
};

/// The line's timestamp, parsed once; nullopt when the line has none. (RFC 3339 timestamps
/// whose fractions differ in length do not compare as text, so they compare as times.)
std::optional<Stamp> lineStamp(std::string_view line) {
  const std::size_t space = line.find(' ');
  const std::string_view ts = line.substr(0, space == std::string_view::npos ? line.size() : space);
  common::Result<common::WallTime> time = common::parseRfc3339(ts);
  if (!time.isOk()) return std::nullopt;
  return Stamp{ts, time.value()};
}

}  // namespace

struct LogCollector::Stream {
  std::string ns;
  std::string pod;
  std::string container;
  std::string unitDir;
  std::filesystem::path file;
  std::atomic<bool> done{false};
  std::atomic<bool> fenced{false};  // ended by the fence: followed again by the next track()
  std::string problem;     // why the log is incomplete (guarded by mu); "" while it is whole
  bool abandoned = false;  // guarded by mu
  std::shared_ptr<kube::StreamCanceller> canceller = std::make_shared<kube::StreamCanceller>();
  std::mutex mu;
  std::condition_variable cv;
  std::thread thread;
};

std::string LogCollector::truncationMarker(std::uint64_t cap) {
  return "[hetbench: log truncated at " + std::to_string(cap) + " bytes]";
}

std::string LogCollector::incompleteMarker(const std::string& why) {
  return "[hetbench: log incomplete: " + why + "]";
}

ResumePoint resumePoint(const std::filesystem::path& file) {
  ResumePoint point;
  std::error_code ec;
  point.size = std::filesystem::file_size(file, ec);
  if (ec || point.size == 0) {
    point.size = 0;
    return point;
  }
  std::ifstream in(file, std::ios::binary);
  const std::uint64_t start = point.size > kTailWindow ? point.size - kTailWindow : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string tail(point.size - start, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  std::vector<std::string_view> lines;
  std::string_view rest(tail);
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  if (start > 0 && !lines.empty()) lines.erase(lines.begin());  // maybe cut at the front
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->find("[hetbench: log truncated at ") != std::string_view::npos) point.truncated = true;
    const std::optional<Stamp> stamp = lineStamp(*it);
    if (!stamp) continue;
    const std::string_view ts = stamp->text;
    if (point.timestamp.empty()) point.timestamp = std::string(ts);
    if (ts != point.timestamp) break;
    ++point.linesAtTimestamp;
  }
  return point;
}

LogCollector::LogCollector(kube::KubeClient& client, CollectorOptions options)
    : client_(client), options_(std::move(options)) {}

LogCollector::~LogCollector() { stop(); }

void LogCollector::track(const json& pod, const std::string& unitDir) {
  const json& meta = pod.value("metadata", json::object());
  std::lock_guard lock(mu_);
  if (stopping_) return;
  for (const auto& [container, terminated] : startedContainers(pod)) {
    const std::string key = streamKey(pod, container);
    if (auto it = streams_.find(key); it != streams_.end()) {
      if (!it->second->done || !it->second->fenced) continue;
      it->second->thread.join();  // it has returned, or is returning
      streams_.erase(it);
    }
    auto stream = std::make_unique<Stream>();
    stream->ns = stringMember(meta, "namespace");
    stream->pod = stringMember(meta, "name");
    stream->container = container;
    stream->unitDir = unitDir;
    stream->file = options_.dir / LogLayout::containerLog(unitDir, stream->pod, container);
    Stream& ref = *stream;
    try {
      ref.thread = std::thread([this, &ref] { follow(ref); });
    } catch (const std::system_error& e) {
      // Under a PID or thread limit: not followed now, tried again on the next track().
      spdlog::error("log {}/{}/{}: cannot start a thread to follow it: {}", ref.ns, ref.pod,
                    container, e.what());
      continue;
    }
    streams_.emplace(key, std::move(stream));
  }
}

PodLogs LogCollector::logsOf(const json& pod) const {
  PodLogs out;
  bool all = true;        // every started container has a stream that ended
  bool abandoned = true;  // and every one of them was given up
  std::size_t streams = 0;
  std::lock_guard lock(mu_);
  for (const auto& [container, terminated] : startedContainers(pod)) {
    auto it = streams_.find(streamKey(pod, container));
    if (it == streams_.end()) {
      all = false;
      continue;
    }
    ++streams;
    Stream& stream = *it->second;
    std::lock_guard streamLock(stream.mu);
    all = all && stream.done;
    abandoned = abandoned && stream.abandoned;
    if (out.incomplete.empty()) out.incomplete = stream.problem;
  }
  // A running pod may still write, unless its streams were given up.
  out.ended = all && (podTerminal(pod) || (streams > 0 && abandoned));
  return out;
}

void LogCollector::abandon(const json& pod, const std::string& why) {
  std::lock_guard lock(mu_);
  for (const auto& [container, terminated] : startedContainers(pod)) {
    auto it = streams_.find(streamKey(pod, container));
    if (it == streams_.end()) continue;
    Stream& stream = *it->second;
    {
      std::lock_guard streamLock(stream.mu);
      if (stream.done || stream.abandoned) continue;
      stream.abandoned = true;
      stream.problem = why;
    }
    stream.canceller->cancel();
    stream.cv.notify_all();
  }
}

void LogCollector::forgetRun(const std::string& ns, const std::string& run) {
  const std::string prefix = LogLayout::runDir(ns, run);
  std::vector<std::unique_ptr<Stream>> ended;
  {
    std::lock_guard lock(mu_);
    for (auto it = streams_.begin(); it != streams_.end();) {
      if (it->second->unitDir.rfind(prefix, 0) == 0) {
        ended.push_back(std::move(it->second));
        it = streams_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& stream : ended) {
    stream->canceller->cancel();
    stream->cv.notify_all();
    stream->thread.join();
  }
}

void LogCollector::stop() {
  std::map<std::string, std::unique_ptr<Stream>> all;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    all.swap(streams_);
  }
  for (auto& [key, stream] : all) {
    stream->canceller->cancel();
    stream->cv.notify_all();
  }
  for (auto& [key, stream] : all) stream->thread.join();
}

std::size_t LogCollector::activeStreams() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(
      streams_.begin(), streams_.end(), [](const auto& entry) { return !entry.second->done; }));
}

bool LogCollector::sleepFor(Stream& stream, std::chrono::milliseconds d) {
  std::unique_lock lock(stream.mu);
  stream.cv.wait_for(lock, d, [&] { return stream.canceller->cancelled(); });
  return !stream.canceller->cancelled();
}

namespace {

/// Appends the lines of one container's streams to its file: a resumed stream's lines already
/// kept are skipped (older than the last kept timestamp, or as many at it as the file holds),
/// and a file that reaches the cap gets one marker line and no more.
class LineWriter {
 public:
  LineWriter(std::ofstream& out, ResumePoint point, std::uint64_t cap,
             std::atomic<std::uint64_t>& bytes)
      : out_(out), point_(std::move(point)), cap_(cap), bytes_(bytes) {
    size_ = point_.size;
    truncated_ = point_.truncated;
  }

  /// For a new request: where it resumes (the last kept line's time).
  std::optional<common::WallTime> restart() {
    // The last kept line's time, parsed once per new timestamp rather than once per line.
    lastTime_.reset();
    if (!point_.timestamp.empty()) lastTime_ = common::parseRfc3339(point_.timestamp).value();
    skipAtTimestamp_ = point_.linesAtTimestamp;
    wrote_ = false;
    return lastTime_;
  }

  void write(std::string_view line) {
    const std::optional<Stamp> stamp = lineStamp(line);
    const std::string_view ts = stamp ? stamp->text : std::string_view();
    if (lastTime_ && stamp) {
      if (stamp->time < *lastTime_) return;  // already written
      if (stamp->time == *lastTime_ && skipAtTimestamp_ > 0) {
        --skipAtTimestamp_;
        return;
      }
    }
    if (stamp) {
      if (ts == point_.timestamp) {
        ++point_.linesAtTimestamp;
      } else {
        point_.timestamp = std::string(ts);
        point_.linesAtTimestamp = 1;
      }
      lastTime_ = stamp->time;
      skipAtTimestamp_ = 0;
    }
    if (truncated_) return;
    if (size_ + line.size() + 1 > cap_) {
      out_ << (ts.empty() ? "" : std::string(ts) + " ") << LogCollector::truncationMarker(cap_)
           << '\n';
      truncated_ = true;
      return;
    }
    out_ << line << '\n';
    size_ += line.size() + 1;
    unflushed_ += line.size() + 1;
    wrote_ = true;
  }

  /// Counts the bytes written since the last call, once the file has taken them.
  void flushed() {
    bytes_ += unflushed_;
    unflushed_ = 0;
  }

  /// Whether a line was kept since the last restart.
  bool wrote() const { return wrote_; }

 private:
  std::ofstream& out_;
  ResumePoint point_;
  std::uint64_t cap_;
  std::atomic<std::uint64_t>& bytes_;
  std::uint64_t size_ = 0;
  std::uint64_t unflushed_ = 0;
  bool truncated_ = false;
  std::optional<common::WallTime> lastTime_;
  std::uint64_t skipAtTimestamp_ = 0;
  bool wrote_ = false;
};

}  // namespace

bool LogCollector::streamEnded(const Stream& stream) {
  // A followed stream ends when the container ends, or when the server closes it.
  common::Result<json> pod = client_.get(kube::resources::kPods, stream.ns, stream.pod);
  if (pod.status().isNotFound()) return true;
  if (!pod.isOk()) return false;
  for (const auto& [name, terminated] : startedContainers(pod.value()))
    if (name == stream.container && terminated) return true;
  return podTerminal(pod.value());
}

void LogCollector::follow(Stream& stream) {
  const auto fail = [&](const std::string& problem) {
    spdlog::error("log {}: {}; the log is incomplete", stream.file.string(), problem);
    ++writeFailures_;
    std::lock_guard lock(stream.mu);
    stream.problem = problem;
  };
  std::error_code ec;
  std::filesystem::create_directories(stream.file.parent_path(), ec);
  if (ec) {
    fail("cannot create " + stream.file.parent_path().string() + ": " + ec.message());
    stream.done = true;
    return;
  }
  const ResumePoint point = resumePoint(stream.file);
  std::ofstream out(stream.file, std::ios::binary | std::ios::app);
  LineWriter writer(out, point, options_.maxBytesPerContainer, bytes_);
  const LineHandler keep = [&writer](std::string_view line) { writer.write(line); };
  // Whether the file took every line so far; errno says why not.
  const auto written = [&] {
    out.flush();
    if (out) {
      writer.flushed();
      return true;
    }
    fail("cannot write " + stream.file.string() + ": " + std::strerror(errno));
    return false;
  };
  // Checked before each write: a fenced stream stops with nothing buffered, as every piece is
  // flushed before the next check.
  bool fenced = false;
  const auto mayWrite = [&] {
    if (!fenced && options_.mayWrite && !options_.mayWrite()) {
      spdlog::warn("log writes fenced: this replica may no longer lead file={}",
                   stream.file.string());
      fenced = true;
    }
    return !fenced;
  };
  std::chrono::milliseconds backoff = options_.retryInitial;
  bool failed = !out;
  if (failed) fail("cannot open " + stream.file.string() + ": " + std::strerror(errno));

  while (!failed && !stream.canceller->cancelled()) {
    kube::LogOptions options;
    options.container = stream.container;
    options.follow = true;
    options.timestamps = true;
    options.canceller = stream.canceller;
    options.sinceTime = writer.restart();
    LineSplitter splitter(options_.maxLineBytes);
    const common::Status status =
        client_.streamLogs(stream.ns, stream.pod, options, [&](std::string_view data) {
          if (!mayWrite()) return false;
          splitter.feed(data, keep);
          failed = !written();
          return !failed;
        });
    if (failed || !mayWrite()) break;
    splitter.finish(keep);
    if (!written()) break;
    if (stream.canceller->cancelled()) break;
    if (status.isNotFound()) break;  // the pod is gone: nothing more to read
    if (status.isOk()) {
      if (streamEnded(stream)) break;
      if (writer.wrote()) backoff = options_.retryInitial;
    } else {
      spdlog::debug("log {}/{}/{}: {}; resuming", stream.ns, stream.pod, stream.container,
                    status.toString());
    }
    if (!sleepFor(stream, backoff)) break;
    backoff = std::min(backoff * 2, options_.retryMax);
  }
  {
    std::lock_guard lock(stream.mu);
    if (stream.abandoned && out && mayWrite()) {
      out << incompleteMarker(stream.problem) << '\n';
      out.flush();
    }
  }
  stream.fenced = fenced;
  stream.done = true;
}

}  // namespace hetbench::logs
