#include "cluster/container_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

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

}  // namespace hetbench::kubesim
