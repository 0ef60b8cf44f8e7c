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
  // Guarded by the collector's mu_.
  enum class Where { kReady, kWaiting, kFollowed, kEnded } where = Where::kReady;
  bool fenced = false;  // kEnded by the fence: followed again by the next track()
  std::string problem;  // why the log is incomplete; "" while it is whole
  bool abandoned = false;
  bool stopRequested = false;                                // abandon, forgetRun, stop
  std::shared_ptr<kube::StreamCanceller> request;            // kFollowed: the request in flight
  Steady::time_point since;                                  // kFollowed: when the turn began
  std::multimap<Steady::time_point, Stream*>::iterator due;  // kWaiting: its place in waiting_
  bool ended() const { return where == Where::kEnded; }      // nothing more will be written
  // Used by the one worker that follows the stream at a time.
  bool opened = false;
  std::ofstream out;
  ResumePoint point;  // where the file ends, carried from one turn to the next
  std::chrono::milliseconds backoff{0};
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
    : client_(client), options_(std::move(options)) {
  options_.maxStreams = std::max<std::size_t>(options_.maxStreams, 1);
  scheduler_ = std::thread([this] { schedule(); });
}

LogCollector::~LogCollector() { stop(); }

void LogCollector::track(const json& pod, const std::string& unitDir) {
  const json& meta = pod.value("metadata", json::object());
  std::lock_guard lock(mu_);
  if (stopping_) return;
  for (const auto& [container, terminated] : startedContainers(pod)) {
    const std::string key = streamKey(pod, container);
    if (auto it = streams_.find(key); it != streams_.end()) {
      if (!it->second->ended() || !it->second->fenced) continue;
      streams_.erase(it);  // ended, so in no queue and with no worker
    }
    auto stream = std::make_unique<Stream>();
    stream->ns = stringMember(meta, "namespace");
    stream->pod = stringMember(meta, "name");
    stream->container = container;
    stream->unitDir = unitDir;
    stream->file = options_.dir / LogLayout::containerLog(unitDir, stream->pod, container);
    stream->backoff = options_.retryInitial;
    Stream& ref = *stream;
    streams_.emplace(key, std::move(stream));
    enqueue(ref, /*first=*/false);
  }
}

void LogCollector::enqueue(Stream& stream, bool first) {
  stream.where = Stream::Where::kReady;
  if (first) {
    ready_.push_front(&stream);
  } else {
    ready_.push_back(&stream);
  }
  startWorkerIfNeeded();
  readyCv_.notify_one();
  scheduleCv_.notify_one();
}

void LogCollector::startWorkerIfNeeded() {
  if (stopping_ || idleWorkers_ >= ready_.size() || workers_.size() >= options_.maxStreams) {
    return;
  }
  try {
    workers_.emplace_back([this] { work(); });
    ++idleWorkers_;  // from now on: it takes a ready stream as soon as it runs
  } catch (const std::system_error& e) {
    // Under a PID or thread limit: the workers there are take the streams in turn, and the
    // scheduler tries again.
    spdlog::error("log collector: cannot start a worker ({} running): {}", workers_.size(),
                  e.what());
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
    const Stream& stream = *it->second;
    all = all && stream.ended();
    abandoned = abandoned && stream.abandoned;
    if (out.incomplete.empty()) out.incomplete = stream.problem;
  }
  // A running pod may still write, unless its streams were given up.
  out.ended = all && (podTerminal(pod) || (streams > 0 && abandoned));
  return out;
}

void LogCollector::abandon(const json& pod, const std::string& why) {
  std::vector<std::shared_ptr<kube::StreamCanceller>> requests;
  std::lock_guard lock(mu_);
  for (const auto& [container, terminated] : startedContainers(pod)) {
    auto it = streams_.find(streamKey(pod, container));
    if (it == streams_.end()) continue;
    Stream& stream = *it->second;
    if (stream.ended() || stream.abandoned) continue;
    stream.abandoned = true;
    stream.problem = why;
    // A worker ends it: its marker is a write, which the fence governs.
    if (auto request = requestStop(stream)) requests.push_back(std::move(request));
    if (stream.where == Stream::Where::kWaiting) {
      waiting_.erase(stream.due);
      enqueue(stream, /*first=*/true);
    }
  }
  for (auto& request : requests) request->cancel();
}

std::shared_ptr<kube::StreamCanceller> LogCollector::requestStop(Stream& stream) {
  stream.stopRequested = true;
  return stream.where == Stream::Where::kFollowed ? stream.request : nullptr;
}

void LogCollector::forgetRun(const std::string& ns, const std::string& run) {
  const std::string prefix = LogLayout::runDir(ns, run);
  std::vector<std::shared_ptr<kube::StreamCanceller>> requests;
  std::vector<Stream*> followed;
  std::unique_lock lock(mu_);
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& stream = *it->second;
    if (stream.unitDir.rfind(prefix, 0) != 0) {
      ++it;
      continue;
    }
    if (stream.where == Stream::Where::kFollowed) {
      // A worker has it (following it, or ending it): it goes once the worker is done with it.
      if (auto request = requestStop(stream)) requests.push_back(std::move(request));
      followed.push_back(&stream);
      ++it;
      continue;
    }
    // Idle: out of its queue and gone; the run's files are deleted with it.
    if (stream.where == Stream::Where::kReady) {
      ready_.erase(std::find(ready_.begin(), ready_.end(), &stream));
    } else if (stream.where == Stream::Where::kWaiting) {
      waiting_.erase(stream.due);
    }
    it = streams_.erase(it);
  }
  lock.unlock();
  for (auto& request : requests) request->cancel();
  lock.lock();
  endedCv_.wait(lock, [&] {
    return std::all_of(followed.begin(), followed.end(),
                       [](const Stream* s) { return s->ended(); });
  });
  for (const Stream* stream : followed) {
    streams_.erase(std::find_if(streams_.begin(), streams_.end(),
                                [&](const auto& entry) { return entry.second.get() == stream; }));
  }
}

void LogCollector::stop() {
  std::vector<std::shared_ptr<kube::StreamCanceller>> requests;
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mu_);
    if (stopping_ && workers_.empty() && !scheduler_.joinable()) return;
    stopping_ = true;
    for (auto& [key, stream] : streams_) {
      if (auto request = requestStop(*stream)) requests.push_back(std::move(request));
    }
    ready_.clear();  // the idle ones are followed no more
    waiting_.clear();
    workers.swap(workers_);
  }
  for (auto& request : requests) request->cancel();
  readyCv_.notify_all();
  scheduleCv_.notify_all();
  for (auto& worker : workers) worker.join();
  if (scheduler_.joinable()) scheduler_.join();
  std::lock_guard lock(mu_);
  streams_.clear();
}

std::size_t LogCollector::activeStreams() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(
      streams_.begin(), streams_.end(), [](const auto& entry) { return !entry.second->ended(); }));
}

std::size_t LogCollector::workers() const {
  std::lock_guard lock(mu_);
  return workers_.size();
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

  /// Where the file ends now, for the next request to resume from.
  ResumePoint point() const {
    ResumePoint point = point_;
    point.size = size_;
    point.truncated = truncated_;
    return point;
  }

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

LogCollector::Turn LogCollector::serve(Stream& stream) {
  const auto fail = [&](const std::string& problem) {
    spdlog::error("log {}: {}; the log is incomplete", stream.file.string(), problem);
    ++writeFailures_;
    std::lock_guard lock(mu_);
    stream.problem = problem;
  };
  if (!stream.opened) {
    stream.opened = true;
    std::error_code ec;
    std::filesystem::create_directories(stream.file.parent_path(), ec);
    if (ec) {
      fail("cannot create " + stream.file.parent_path().string() + ": " + ec.message());
      return end(stream, false);
    }
    stream.point = resumePoint(stream.file);
    stream.out.open(stream.file, std::ios::binary | std::ios::app);
    if (!stream.out) {
      fail("cannot open " + stream.file.string() + ": " + std::strerror(errno));
      return end(stream, false);
    }
  }
  std::shared_ptr<kube::StreamCanceller> request;
  if (stopRequested(stream, &request)) return end(stream, false);
  LineWriter writer(stream.out, stream.point, options_.maxBytesPerContainer, bytes_);
  const LineHandler keep = [&writer](std::string_view line) { writer.write(line); };
  // Whether the file took every line so far; errno says why not.
  const auto written = [&] {
    stream.out.flush();
    stream.point = writer.point();
    if (stream.out) {
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

  kube::LogOptions options;
  options.container = stream.container;
  options.follow = true;
  options.timestamps = true;
  options.canceller = request;
  options.sinceTime = writer.restart();
  LineSplitter splitter(options_.maxLineBytes);
  bool failed = false;
  const common::Status status =
      client_.streamLogs(stream.ns, stream.pod, options, [&](std::string_view data) {
        if (!mayWrite()) return false;
        splitter.feed(data, keep);
        failed = !written();
        return !failed;
      });
  if (failed || !mayWrite()) return end(stream, fenced);
  if (stopRequested(stream, nullptr)) {
    splitter.finish(keep);
    written();
    return end(stream, fenced);
  }
  // Its turn was taken away: a line cut short is read again whole where the next turn resumes.
  if (request->cancelled()) return Turn::kYielded;
  splitter.finish(keep);
  if (!written()) return end(stream, fenced);
  if (status.isNotFound()) return end(stream, fenced);  // the pod is gone: nothing more to read
  if (status.isOk()) {
    if (streamEnded(stream)) return end(stream, fenced);
    if (writer.wrote()) stream.backoff = options_.retryInitial;
  } else {
    spdlog::debug("log {}/{}/{}: {}; resuming", stream.ns, stream.pod, stream.container,
                  status.toString());
  }
  return Turn::kRetry;
}

bool LogCollector::stopRequested(const Stream& stream,
                                 std::shared_ptr<kube::StreamCanceller>* request) const {
  std::lock_guard lock(mu_);
  if (request != nullptr) *request = stream.request;
  return stream.stopRequested;
}

LogCollector::Turn LogCollector::end(Stream& stream, bool fenced) {
  std::string marker;
  {
    std::lock_guard lock(mu_);
    if (stream.abandoned) marker = incompleteMarker(stream.problem);
  }
  if (!marker.empty() && stream.opened && stream.out && !fenced &&
      (!options_.mayWrite || options_.mayWrite())) {
    stream.out << marker << '\n';
    stream.out.flush();
  }
  stream.out.close();
  stream.fenced = fenced;
  return Turn::kEnded;
}

void LogCollector::work() {
  std::unique_lock lock(mu_);
  for (;;) {  // counted idle from its start, and again after each turn
    readyCv_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
    --idleWorkers_;
    if (stopping_) return;
    Stream& stream = *ready_.front();
    ready_.pop_front();
    stream.where = Stream::Where::kFollowed;
    stream.since = Steady::now();
    stream.request = std::make_shared<kube::StreamCanceller>();
    lock.unlock();
    const Turn turn = serve(stream);
    lock.lock();
    ++idleWorkers_;  // before the stream is queued again, so that no worker starts for it
    const bool finished = turn == Turn::kEnded || stopping_ || stream.stopRequested;
    if (finished && turn != Turn::kEnded) {
      // Its request was cancelled with the stop, so the scheduler leaves it alone meanwhile.
      lock.unlock();
      end(stream, false);
      lock.lock();
    }
    stream.request.reset();
    if (finished) {
      stream.where = Stream::Where::kEnded;
      endedCv_.notify_all();
    } else if (turn == Turn::kYielded) {
      enqueue(stream, /*first=*/false);
    } else {
      stream.where = Stream::Where::kWaiting;
      stream.due = waiting_.emplace(Steady::now() + stream.backoff, &stream);
      stream.backoff = std::min(stream.backoff * 2, options_.retryMax);
      scheduleCv_.notify_one();
    }
  }
}

void LogCollector::schedule() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const Steady::time_point now = Steady::now();
    while (!waiting_.empty() && waiting_.begin()->first <= now) {
      Stream& stream = *waiting_.begin()->second;
      waiting_.erase(waiting_.begin());
      enqueue(stream, /*first=*/false);
    }
    startWorkerIfNeeded();
    Steady::time_point wake =
        waiting_.empty() ? Steady::time_point::max() : waiting_.begin()->first;
    // Streams that wait for a worker take the turns of those followed longest.
    std::size_t waitingForWorker = ready_.size() > idleWorkers_ ? ready_.size() - idleWorkers_ : 0;
    std::vector<std::shared_ptr<kube::StreamCanceller>> turnsTaken;
    if (waitingForWorker > 0 && workers_.size() >= options_.maxStreams) {
      std::vector<Stream*> followed;
      for (auto& [key, stream] : streams_) {
        if (stream->where == Stream::Where::kFollowed && !stream->request->cancelled()) {
          followed.push_back(stream.get());
        }
      }
      std::sort(followed.begin(), followed.end(),
                [](const Stream* a, const Stream* b) { return a->since < b->since; });
      for (Stream* stream : followed) {
        if (waitingForWorker == 0) break;
        const Steady::time_point turnEnds = stream->since + options_.slice;
        if (turnEnds > now) {
          wake = std::min(wake, turnEnds);
          break;
        }
        turnsTaken.push_back(stream->request);
        --waitingForWorker;
      }
    }
    if (!turnsTaken.empty()) {
      lock.unlock();
      for (auto& request : turnsTaken) request->cancel();
      lock.lock();
      continue;
    }
    if (wake == Steady::time_point::max()) {
      scheduleCv_.wait(lock);
    } else {
      scheduleCv_.wait_until(lock, wake);
    }
  }
}

}  // namespace hetbench::logs
