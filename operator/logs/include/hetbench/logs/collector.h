#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/kube/client.h"
#include "hetbench/logs/lines.h"

namespace hetbench::logs {

/// Where the logs of one pod stand.
struct PodLogs {
  /// Nothing more will be written: every container of the pod that started has its stream ended
  /// after it terminated (or the pod disappeared, or the stream was given up). Only then may a
  /// pod whose logs are kept go.
  bool ended = false;
  /// Why what is on disk is not the whole log ("" when it is): a write that failed, or a stream
  /// given up on.
  std::string incomplete;
};

/// What the reconciler needs from log collection; a fake stands in for it in tests.
class LogTracker {
 public:
  virtual ~LogTracker() = default;
  /// Follows every container of `pod` (init containers too) that has started, into
  /// `<log dir>/<unitDir>/<pod>/<container>.log`. Idempotent and cheap when nothing is new.
  virtual void track(const nlohmann::json& pod, const std::string& unitDir) = 0;
  virtual PodLogs logsOf(const nlohmann::json& pod) const = 0;
  /// Stops following the pod's streams, which end with a marker line saying `why` and count as
  /// incomplete; for streams that will not end by themselves (a half-open connection, a kubelet
  /// that keeps failing for a pod on a lost node).
  virtual void abandon(const nlohmann::json& pod, const std::string& why) = 0;
  /// Ends the streams of every pod under `<namespace>/<run>/`.
  virtual void forgetRun(const std::string& ns, const std::string& run) = 0;
};

struct CollectorOptions {
  std::filesystem::path dir;
  std::uint64_t maxBytesPerContainer = 256ull << 20;
  std::chrono::milliseconds retryInitial{500};
  std::chrono::milliseconds retryMax{std::chrono::seconds(30)};
  std::size_t maxLineBytes = kMaxLineBytes;
  /// Streams followed at once: the collector's worker threads, started as streams need them.
  std::size_t maxStreams = 256;
  /// While more streams wait than there are workers, a stream followed this long gives its
  /// worker to the stream that has waited longest, and waits its turn to resume.
  std::chrono::milliseconds slice{std::chrono::seconds(5)};
  /// The writers' fence: a stream writes only while this says yes (the leader's lease is
  /// certainly held) and ends at the first no, neither ended nor incomplete, leaving the file
  /// to the replica that leads next. None: always yes.
  std::function<bool()> mayWrite = nullptr;
};

/// Streams container logs to files over a bounded pool of workers (`maxStreams`): a worker
/// follows one stream at a time; beyond that many, streams take turns (`slice`), and a stream
/// waiting to retry (with its backoff) or its turn holds no thread. Each line is kept as the
/// kubelet sends it with `timestamps=true` ("<RFC 3339 nanos> <text>"), so that a broken stream,
/// a stream whose turn ended (or a restarted operator) resumes with sinceTime from the file's
/// last line and drops exactly the lines already written: those older than the last timestamp,
/// and as many lines with that timestamp as the file holds. A file that reaches the cap gets one
/// marker line and no more; a line longer than maxLineBytes is cut (lines.h). A write that fails
/// ends the stream, and the pod's logs count as incomplete. Every write is checked against the
/// fence (`mayWrite`) first, so that a replica that lost its lease, or resumes from a pause, never
/// appends to a file the next leader follows.
class LogCollector final : public LogTracker {
 public:
  LogCollector(kube::KubeClient& client, CollectorOptions options);
  ~LogCollector() override;
  LogCollector(const LogCollector&) = delete;
  LogCollector& operator=(const LogCollector&) = delete;

  void track(const nlohmann::json& pod, const std::string& unitDir) override;
  PodLogs logsOf(const nlohmann::json& pod) const override;
  void abandon(const nlohmann::json& pod, const std::string& why) override;
  void forgetRun(const std::string& ns, const std::string& run) override;
  /// Ends every stream and joins the threads.
  void stop();

  std::size_t activeStreams() const;
  /// The worker threads started so far (at most `maxStreams`).
  std::size_t workers() const;
  std::uint64_t bytesWritten() const { return bytes_.load(); }
  /// Streams ended by a write that failed, since the start.
  std::uint64_t writeFailures() const { return writeFailures_.load(); }

  /// The marker line written once a container's log reaches the cap (without timestamp).
  static std::string truncationMarker(std::uint64_t cap);
  /// The last line of a stream given up on (without timestamp, so that a resumed stream ignores
  /// it).
  static std::string incompleteMarker(const std::string& why);

 private:
  struct Stream;
  using Steady = std::chrono::steady_clock;
  /// What a worker's turn with a stream ended in.
  enum class Turn { kEnded, kRetry, kYielded };

  /// One request of the stream, from its file's end until it closes, fails, is fenced or its
  /// turn is taken away.
  Turn serve(Stream& stream);
  /// Whether the stream was asked to end; `request`, when given, receives its request's
  /// canceller.
  bool stopRequested(const Stream& stream, std::shared_ptr<kube::StreamCanceller>* request) const;
  /// Ends a stream on a worker: the incomplete marker when it was given up.
  Turn end(Stream& stream, bool fenced);
  /// After a stream closed cleanly: whether its container (or pod) has ended.
  bool streamEnded(const Stream& stream);
  void work();
  /// Moves due retries to the ready queue and takes turns away while streams wait for a worker.
  void schedule();
  /// Queues a stream for the next free worker, starting one if none is free and fewer than
  /// maxStreams run. Called with mu_ held.
  void enqueue(Stream& stream, bool first);
  /// Starts a worker when streams wait, none is idle and fewer than maxStreams run (not once
  /// stopping). Called with mu_ held.
  void startWorkerIfNeeded();
  /// Asks a stream to end: idle ones end here, a followed one has its request cancelled (the
  /// returned canceller, to cancel outside mu_). Called with mu_ held.
  std::shared_ptr<kube::StreamCanceller> requestStop(Stream& stream);

  kube::KubeClient& client_;
  CollectorOptions options_;
  mutable std::mutex mu_;
  std::condition_variable readyCv_;     // a stream is ready, or the workers stop
  std::condition_variable scheduleCv_;  // the scheduler has something to look at
  std::condition_variable endedCv_;     // a stream ended
  std::map<std::string, std::unique_ptr<Stream>> streams_;  // "ns/pod/uid/container"
  std::deque<Stream*> ready_;
  std::multimap<Steady::time_point, Stream*> waiting_;  // retries, by when they are due
  std::vector<std::thread> workers_;
  std::size_t idleWorkers_ = 0;
  std::thread scheduler_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> writeFailures_{0};
  bool stopping_ = false;
};

/// Where a resumed stream continues: the last timestamp in a log file and how many of its
/// final lines carry it. Exposed for tests.
struct ResumePoint {
  std::string timestamp;  // "" for an empty or missing file
  std::uint64_t linesAtTimestamp = 0;
  std::uint64_t size = 0;
  bool truncated = false;
};
ResumePoint resumePoint(const std::filesystem::path& file);

}  // namespace hetbench::logs
