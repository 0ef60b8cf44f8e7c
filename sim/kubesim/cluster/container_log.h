#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/clock.h"
#include "hetbench/common/status.h"
#include "hetbench/http/server.h"

namespace hetbench::kubesim {

/// Which lines of a log to send, as GET pods/NAME/log selects them.
struct LogSelection {
  bool follow = false;
  bool timestamps = false;
  std::optional<common::WallTime> since;  // lines at or after this time
  std::optional<std::int64_t> tailLines;  // only the last N lines (of those since `since`)
  std::optional<std::int64_t> limitBytes;
};

/// The log of one container instance, kept in a file in CRI format
/// ("2026-11-22T07:16:00.123456789Z stdout F text"), so it survives as long as the pod's
/// scratch directory. Thread-safe: one writer (the process's reader threads) and any number of
/// followers.
class ContainerLog {
 public:
  /// Creates (truncates) the file at `path`. Errors when the file cannot be created.
  static common::Result<std::shared_ptr<ContainerLog>> create(std::string path,
                                                              const common::Clock& clock);

  /// Appends one line (without its newline); `partial` marks a last line that had none.
  void append(std::string_view stream, std::string_view line, bool partial = false);
  /// Marks the end: the container has terminated; followers finish after the last line.
  void close();
  bool closed() const;
  std::uint64_t lineCount() const;
  const std::string& path() const { return path_; }

  /// Writes the selected lines to `out` as the API server sends them: the text and a newline,
  /// prefixed with the RFC 3339 nano timestamp and a space when `timestamps`. With `follow`,
  /// waits for new lines until the log is closed, `out.closed()`, or `cut()` is true. The
  /// response is streamed (chunked) and started by this call with Content-Type text/plain.
  void stream(const LogSelection& selection, http::ResponseWriter& out,
              const std::function<bool()>& cut) const;

  ContainerLog(std::string path, const common::Clock& clock);
  ~ContainerLog();
  ContainerLog(const ContainerLog&) = delete;
  ContainerLog& operator=(const ContainerLog&) = delete;

 private:
  int fd_ = -1;  // open for appending from create() on
  std::string path_;
  const common::Clock& clock_;
  mutable std::mutex mu_;
  mutable std::condition_variable grew_;
  std::uint64_t lines_ = 0;
  std::uint64_t bytes_ = 0;  // file size after the last whole line; readers never read past it
  bool closed_ = false;
};

}  // namespace hetbench::kubesim
