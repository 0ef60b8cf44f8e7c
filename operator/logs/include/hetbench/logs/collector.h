#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "hetbench/common/clock.h"
#include "hetbench/kube/client.h"

namespace hetbench::logs {

/// What the reconciler needs from log collection; a fake stands in for it in tests.
class LogTracker {
 public:
  virtual ~LogTracker() = default;
  /// Follows every container of `pod` (init containers too) that has started, into
  /// `<log dir>/<unitDir>/<pod>/<container>.log`. Idempotent and cheap when nothing is new.
  virtual void track(const nlohmann::json& pod, const std::string& unitDir) = 0;
  /// True once every container of the pod that started has its whole log on disk: its stream
  /// ended after the container terminated (or the pod disappeared). Only then may the pod go.
  virtual bool complete(const nlohmann::json& pod) const = 0;
  /// Ends the streams of every pod under `<namespace>/<run>/`.
  virtual void forgetRun(const std::string& ns, const std::string& run) = 0;
};

struct CollectorOptions {
  std::filesystem::path dir;
  std::uint64_t maxBytesPerContainer = 256ull << 20;
  std::chrono::milliseconds retryInitial{500};
  std::chrono::milliseconds retryMax{std::chrono::seconds(30)};
};

/// Streams container logs to files, one thread per container stream. Each line is kept as the
/// kubelet sends it with `timestamps=true` ("<RFC 3339 nanos> <text>"), so that a broken stream
/// (or a restarted operator) resumes with sinceTime from the file's last line and drops exactly
/// the lines already written: those older than the last timestamp, and as many lines with that
/// timestamp as the file holds. A file that reaches the cap gets one marker line and no more.
class LogCollector final : public LogTracker {
 public:
  LogCollector(kube::KubeClient& client, CollectorOptions options);
  ~LogCollector() override;
  LogCollector(const LogCollector&) = delete;
  LogCollector& operator=(const LogCollector&) = delete;

  void track(const nlohmann::json& pod, const std::string& unitDir) override;
  bool complete(const nlohmann::json& pod) const override;
  void forgetRun(const std::string& ns, const std::string& run) override;
  /// Ends every stream and joins the threads.
  void stop();

  std::size_t activeStreams() const;
  std::uint64_t bytesWritten() const { return bytes_.load(); }

  /// The marker line written once a container's log reaches the cap (without timestamp).
  static std::string truncationMarker(std::uint64_t cap);

 private:
  struct Stream;
  void follow(Stream& stream);
  /// After a stream closed cleanly: whether its container (or pod) has ended.
  bool streamEnded(const Stream& stream);
  bool sleepFor(Stream& stream, std::chrono::milliseconds d);

  kube::KubeClient& client_;
  CollectorOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Stream>> streams_;  // "ns/pod/uid/container"
  std::atomic<std::uint64_t> bytes_{0};
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
