#include "cluster/container_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <utility>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

// Size of file reads and of the chunks written to the client.
constexpr std::size_t kChunkBytes = 64 * 1024;
// How often a follower looks at out.closed() and cut() while no line arrives.
constexpr auto kFollowPoll = std::chrono::milliseconds(50);
// Longest timestamp field read back when a tail has to be filtered by `since`.
constexpr std::size_t kTimestampPrefixBytes = 64;

/// Closes a read-only descriptor of the log file.
class ReadFd {
 public:
  explicit ReadFd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ReadFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadFd(const ReadFd&) = delete;
  ReadFd& operator=(const ReadFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// Reads up to `size` bytes at `offset`; fewer only at end of file or on an error.
std::size_t preadAll(int fd, char* data, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

/// One parsed CRI line: "<timestamp> <stream> <tags> <text>".
struct Entry {
  std::string_view timestamp;
  bool partial = false;
  std::string_view text;
};

std::optional<Entry> parseEntry(std::string_view line) {
  Entry entry;
  std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  entry.timestamp = line.substr(0, space);
  line.remove_prefix(space + 1);
  space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  line.remove_prefix(space + 1);  // the stream: both go to the same response
  space = line.find(' ');
  std::string_view tags = line.substr(0, space);
  // Tags are ':'-separated and only the first one is defined (P or F).
  entry.partial = tags.substr(0, tags.find(':')) == "P";
  entry.text = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  return entry;
}

bool atOrAfter(std::string_view timestamp, const std::optional<common::WallTime>& since) {
  if (!since) return true;
  common::Result<common::WallTime> t = common::parseRfc3339(timestamp);
  return t.isOk() && *t >= *since;
}

/// The offset where the last `count` lines at or after `since` start, found by reading the file
/// backwards from `end` (a line boundary) one block at a time, so a short tail of a huge log
/// reads only its end.
std::uint64_t tailStart(int fd, std::uint64_t end, std::uint64_t count,
                        const std::optional<common::WallTime>& since) {
  std::string block;
  std::uint64_t blockStart = end;  // `block` holds the bytes [blockStart, blockStart + size)
  std::uint64_t lineEnd = end;     // one past the '\n' of the line being located
  std::uint64_t start = end;
  std::uint64_t found = 0;
  while (lineEnd > 0 && found < count) {
    // The line starts after the last '\n' before its own terminator.
    std::uint64_t searchEnd = lineEnd - 1;
    std::uint64_t lineStart = 0;
    while (true) {
      if (searchEnd > blockStart) {
        std::string_view view(block.data(),
                              std::min<std::uint64_t>(searchEnd - blockStart, block.size()));
        std::size_t nl = view.rfind('\n');
        if (nl != std::string_view::npos) {
          lineStart = blockStart + nl + 1;
          break;
        }
      }
      if (blockStart == 0) break;
      std::uint64_t previous = blockStart > kChunkBytes ? blockStart - kChunkBytes : 0;
      block.resize(blockStart - previous);
      if (preadAll(fd, block.data(), block.size(), previous) != block.size()) return start;
      blockStart = previous;
    }
    bool selected = true;
    if (since) {
      char prefix[kTimestampPrefixBytes];
      std::size_t n = preadAll(fd, prefix, sizeof prefix, lineStart);
      std::string_view head(prefix, n);
      selected = atOrAfter(head.substr(0, head.find(' ')), since);
    }
    if (selected) {
      ++found;
      start = lineStart;
    }
    lineEnd = lineStart;
  }
  return start;
}

/// Reads whole lines of the file forward from an offset, in large blocks; keeps its place so a
/// follower continues where it stopped.
class LineReader {
 public:
  LineReader(int fd, std::uint64_t offset) : fd_(fd), next_(offset) {}

  std::uint64_t offset() const { return next_; }

  /// Calls onLine (each line without its '\n') up to `end`, a line boundary. False when a read
  /// fails or onLine returns false.
  template <typename OnLine>
  bool readUntil(std::uint64_t end, OnLine&& onLine) {
    while (next_ < end) {
      std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, end - next_));
      std::size_t kept = pending_.size();
      pending_.resize(kept + want);
      std::size_t got = preadAll(fd_, pending_.data() + kept, want, next_);
      pending_.resize(kept + got);
      if (got == 0) return false;
      next_ += got;
      std::size_t start = 0;
      for (std::size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
        if (!onLine(std::string_view(pending_).substr(start, nl - start))) return false;
      }
      pending_.erase(0, start);
    }
    return true;
  }

 private:
  int fd_;
  std::uint64_t next_;
  std::string pending_;
};

/// Gathers the response into chunks, applies limitBytes (timestamps count, as in kubelet), and
/// notices when the client is gone or the stream is cut.
class Sink {
 public:
  Sink(http::ResponseWriter& out, const LogSelection& selection, const std::function<bool()>& cut)
      : out_(out), timestamps_(selection.timestamps), cut_(cut) {
    if (selection.limitBytes && *selection.limitBytes > 0) {
      remaining_ = static_cast<std::uint64_t>(*selection.limitBytes);
    }
  }

  /// Adds one entry: its text, and the newline only for a full line (kubelet sends a partial
  /// line as it is, so the pieces of a split line join up again). False once nothing more may
  /// be sent.
  bool add(const Entry& entry) {
    std::size_t before = buffer_.size();
    if (timestamps_) {
      // The file keeps RFC3339Nano; the kubelet answers with a fixed nine digits.
      common::Result<common::WallTime> t = common::parseRfc3339(entry.timestamp);
      if (t.isOk()) {
        buffer_.append(common::formatRfc3339(*t, common::TimePrecision::kNanosFixed));
      } else {
        buffer_.append(entry.timestamp);
      }
      buffer_.push_back(' ');
    }
    buffer_.append(entry.text);
    if (!entry.partial) buffer_.push_back('\n');
    if (remaining_) {
      std::size_t added = buffer_.size() - before;
      if (added >= *remaining_) {
        buffer_.resize(before + static_cast<std::size_t>(*remaining_));
        remaining_ = 0;
        flush();
        return false;
      }
      *remaining_ -= added;
    }
    return buffer_.size() < kChunkBytes || flush();
  }

  /// Writes what is gathered. False when the client is gone or the stream is cut.
  bool flush() {
    if (!buffer_.empty()) {
      bool written = out_.write(buffer_);
      buffer_.clear();
      if (!written) return false;
    }
    return !(out_.closed() || (cut_ && cut_()));
  }

 private:
  http::ResponseWriter& out_;
  bool timestamps_;
  const std::function<bool()>& cut_;
  std::optional<std::uint64_t> remaining_;
  std::string buffer_;
};

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

ContainerLog::ContainerLog(std::string path, const common::Clock& clock)
    : path_(std::move(path)), clock_(clock) {}

ContainerLog::~ContainerLog() {
  if (fd_ >= 0) ::close(fd_);
}

common::Result<std::shared_ptr<ContainerLog>> ContainerLog::create(std::string path,
                                                                   const common::Clock& clock) {
  auto log = std::make_shared<ContainerLog>(std::move(path), clock);
  log->fd_ = ::open(log->path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log->fd_ < 0) {
    return common::internalError("cannot create container log " + log->path_ + ": " +
                                 std::error_code(errno, std::generic_category()).message());
  }
  return log;
}

void ContainerLog::append(std::string_view stream, std::string_view line, bool partial) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || fd_ < 0) return;
    // The timestamp is taken under the lock so that the file is in time order.
    std::string timestamp = common::formatRfc3339(clock_.now(), common::TimePrecision::kNanos);
    std::string entry;
    // A '\n' inside `line` would break the file's format: each piece becomes its own entry.
    while (true) {
      std::size_t nl = line.find('\n');
      bool last = nl == std::string_view::npos;
      entry.append(timestamp).append(" ").append(stream);
      entry.append(last && partial ? " P " : " F ").append(line.substr(0, nl)).append("\n");
      ++lines_;
      if (last) break;
      line.remove_prefix(nl + 1);
    }
    if (writeAll(fd_, entry)) {
      bytes_ += entry.size();
    } else if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) {
      // A torn entry would corrupt every later line; stop writing rather than risk it.
      ::close(fd_);
      fd_ = -1;
    }
  }
  grew_.notify_all();
}

void ContainerLog::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  grew_.notify_all();
}

bool ContainerLog::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

std::uint64_t ContainerLog::lineCount() const {
  std::lock_guard lock(mu_);
  return lines_;
}

void ContainerLog::stream(const LogSelection& selection, http::ResponseWriter& out,
                          const std::function<bool()>& cut) const {
  // The lines that exist when the request arrives: taken before the response starts, so a
  // caller that sees the stream started knows which lines are "new" for follow with tail 0.
  std::uint64_t end = 0;
  {
    std::lock_guard lock(mu_);
    end = bytes_;
  }
  if (!out.startStream(200, {{"Content-Type", "text/plain"}})) return;
  ReadFd file(path_);
  if (file.get() < 0) return;

  std::uint64_t start = 0;
  if (selection.tailLines && *selection.tailLines >= 0) {
    start = tailStart(file.get(), end, static_cast<std::uint64_t>(*selection.tailLines),
                      selection.since);
  }
  LineReader reader(file.get(), start);
  Sink sink(out, selection, cut);
  auto onLine = [&](std::string_view line) {
    std::optional<Entry> entry = parseEntry(line);
    if (!entry || !atOrAfter(entry->timestamp, selection.since)) return true;
    return sink.add(*entry);
  };
  if (!reader.readUntil(end, onLine) || !sink.flush() || !selection.follow) return;

  while (true) {
    bool ended = false;
    {
      std::unique_lock lock(mu_);
      grew_.wait_for(lock, kFollowPoll, [&] { return bytes_ != reader.offset() || closed_; });
      end = bytes_;
      ended = closed_;
    }
    // Nothing is appended after close(), so reading up to `end` drains the log.
    if (!reader.readUntil(end, onLine) || !sink.flush() || ended) return;
  }
}

}  // namespace hetbench::kubesim
