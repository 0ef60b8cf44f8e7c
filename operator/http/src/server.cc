#include "hetbench/http/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <list>
#include <mutex>
#include <thread>

#include "hetbench/http/transport.h"
#include "hetbench/http/wire.h"
#include "sockets.h"

namespace hetbench::http {
namespace {

using namespace wire;
using detail::formatAddress;
using detail::peerGone;
using detail::setReceiveTimeout;
using detail::setSendTimeout;

constexpr std::size_t kMaxHeaderBytes = 1 << 20;  // Go's http.DefaultMaxHeaderBytes
constexpr std::size_t kMaxChunkLineBytes = 4096;
constexpr std::size_t kReadBufferBytes = 16 * 1024;
// After an error answer the unread rest of the request is drained for a while, so that closing
// the socket does not reset the connection before the client has read the answer.
constexpr auto kLingerTime = std::chrono::milliseconds(1000);

using Clock = std::chrono::steady_clock;

/// What the accept thread may read of a connection to choose one to give way to a new one:
/// whether it is inside a request, and since when it has waited for one.
struct Activity {
  std::atomic<bool> inRequest{false};
  std::atomic<Clock::rep> waitingSince{Clock::now().time_since_epoch().count()};

  void startWaiting() {
    waitingSince.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    inRequest.store(false, std::memory_order_release);
  }
};

class ServerImpl;

/// Serves the requests of one connection, one after another.
class Connection {
 public:
  Connection(ServerImpl& server, int fd, detail::Transport& transport, std::string remoteAddress,
             detail::PeerIdentity identity, Activity& activity, Clock::time_point accepted)
      : server_(server),
        fd_(fd),
        transport_(transport),
        remoteAddress_(std::move(remoteAddress)),
        identity_(std::move(identity)),
        activity_(activity),
        accepted_(accepted) {}

  void run();

 private:
  enum class ReadOutcome { kOk, kClosed, kBadRequest, kTooLarge, kHeadersTooLarge };

  class Writer;

  bool fill();
  ReadOutcome readHead(Request& request, bool& keepAlive);
  ReadOutcome readBody(Request& request, bool expectContinue);
  ReadOutcome readLine(std::string& line, std::size_t limit);
  ReadOutcome readChunked(std::string& body);
  void answerError(int status, std::string_view reason, std::string_view message);
  void lingeringClose();

  ServerImpl& server_;
  int fd_;
  detail::Transport& transport_;
  std::string remoteAddress_;
  detail::PeerIdentity identity_;
  Activity& activity_;
  Clock::time_point accepted_;
  std::string in_;  // bytes read but not yet parsed
  bool keepAlive_ = true;
  /// fill() gives up at this time. While awaitingRequest_, the first byte that arrives moves
  /// it to headerTimeout from then.
  Clock::time_point readDeadline_;
  bool awaitingRequest_ = false;
};

class ServerImpl : public Server {
 public:
  ServerImpl(ServerOptions options, Handler handler, std::unique_ptr<detail::TlsContext> tls)
      : options_(std::move(options)), handler_(std::move(handler)), tls_(std::move(tls)) {}
  ~ServerImpl() override { stop(); }

  common::Status listen();
  std::uint16_t port() const override { return port_; }
  common::Status setCertificate(const ServingCertificate& cert) override;
  void stop() override;

  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  const ServerOptions& options() const { return options_; }
  const Handler& handler() const { return handler_; }

 private:
  struct Slot {
    int fd = -1;  // guarded by mutex_; -1 once the connection thread closed it
    std::thread thread;
    std::atomic<bool> done{false};
    std::string client;    // the peer's address without its port
    bool evicted = false;  // guarded by mutex_: shut down to make room, not yet reaped
    Activity activity;
    Clock::time_point accepted = Clock::now();
  };

  void acceptLoop();
  void reapFinished();
  /// Makes room for a connection from `client` under the caps: false when every connection
  /// that counts against a full cap is inside a request. Called with mutex_ held.
  bool makeRoom(const std::string& client);
  void serve(Slot& slot, std::string remoteAddress);
  void rejectBusy(int fd);

  ServerOptions options_;
  Handler handler_;
  std::shared_ptr<detail::TlsContext> tls_;  // guarded by mutex_; each connection keeps its own
  int listenFd_ = -1;
  int wakeRead_ = -1;
  int wakeWrite_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptThread_;

  std::mutex stopMutex_;  // serializes stop()
  bool stopped_ = false;  // guarded by stopMutex_

  std::mutex mutex_;
  std::list<Slot> slots_;  // guarded by mutex_
};

/// The ResponseWriter of one request.
class Connection::Writer : public ResponseWriter {
 public:
  Writer(Connection& connection, bool head) : connection_(connection), head_(head) {}

  bool send(int status, const Headers& headers, std::string_view body) override {
    if (state_ != State::kNone || !usable()) return false;
    state_ = State::kSent;
    std::string out = statusLine(status) + headerBlock(headers);
    if (!bodyForbidden(status)) out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += "\r\n";
    if (!head_ && !bodyForbidden(status)) out += body;
    return transmit(out);
  }

  bool startStream(int status, const Headers& headers) override {
    if (state_ != State::kNone || !usable()) return false;
    state_ = State::kStreaming;
    return transmit(statusLine(status) + headerBlock(headers) +
                    "Transfer-Encoding: chunked\r\n\r\n");
  }

  bool write(std::string_view chunk) override {
    if (state_ != State::kStreaming || !usable()) return false;
    if (chunk.empty()) return true;  // an empty chunk would end the stream
    char size[32];
    std::snprintf(size, sizeof(size), "%zx\r\n", chunk.size());
    std::string out(size);
    out.append(chunk);
    out += "\r\n";
    return transmit(out);
  }

  bool closed() override {
    if (!broken_ && (connection_.server_.stopping() || peerGone(connection_.fd_))) broken_ = true;
    return broken_;
  }

  bool answered() const { return state_ != State::kNone; }
  bool streaming() const { return state_ == State::kStreaming; }
  bool broken() const { return broken_; }

  /// Ends a chunked stream so that the connection can carry the next request.
  bool endStream() { return usable() && transmit("0\r\n\r\n"); }

 private:
  enum class State { kNone, kSent, kStreaming };

  bool usable() {
    if (connection_.server_.stopping()) broken_ = true;
    return !broken_;
  }

  bool transmit(std::string_view data) {
    if (!connection_.transport_.writeAll(data)) broken_ = true;
    return !broken_;
  }

  static std::string statusLine(int status) {
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reasonPhrase(status)) + "\r\n";
  }

  std::string headerBlock(const Headers& headers) const {
    std::string out;
    bool hasDate = false;
    for (const auto& [name, value] : headers) {
      // The framing headers are the server's to write; a stray one would corrupt the stream.
      if (equalsIgnoreCase(name, "content-length") || equalsIgnoreCase(name, "transfer-encoding") ||
          equalsIgnoreCase(name, "connection")) {
        continue;
      }
      if (equalsIgnoreCase(name, "date")) hasDate = true;
      out += name + ": " + value + "\r\n";
    }
    if (!hasDate) out += "Date: " + httpDate() + "\r\n";
    if (!connection_.keepAlive_) out += "Connection: close\r\n";
    return out;
  }

  Connection& connection_;
  bool head_;
  State state_ = State::kNone;
  bool broken_ = false;
};

bool Connection::fill() {
  const Clock::duration left = readDeadline_ - Clock::now();
  if (left <= Clock::duration::zero()) return false;
  setReceiveTimeout(fd_, left);
  char buf[kReadBufferBytes];
  const std::size_t n = transport_.read(buf, sizeof(buf));
  if (n == 0) return false;  // closed, failed or out of time: the connection ends either way
  if (awaitingRequest_) {
    awaitingRequest_ = false;
    readDeadline_ = Clock::now() + server_.options().headerTimeout;
  }
  in_.append(buf, n);
  return true;
}

Connection::ReadOutcome Connection::readHead(Request& request, bool& keepAlive) {
  // RFC 9112 asks servers to ignore empty lines before a request line.
  std::size_t scanned = 0;
  std::size_t end;
  for (;;) {
    while (in_.starts_with("\r\n")) {
      in_.erase(0, 2);
      scanned = 0;
    }
    end = in_.find("\r\n\r\n", scanned);
    if (end != std::string::npos) break;
    if (in_.size() > kMaxHeaderBytes) return ReadOutcome::kHeadersTooLarge;
    scanned = in_.size() < 3 ? 0 : in_.size() - 3;
    if (!fill()) return ReadOutcome::kClosed;
  }
  if (end > kMaxHeaderBytes) return ReadOutcome::kHeadersTooLarge;
  const std::string head = in_.substr(0, end);
  in_.erase(0, end + 4);

  if (!parseRequestHead(head, request, keepAlive)) return ReadOutcome::kBadRequest;
  return ReadOutcome::kOk;
}

Connection::ReadOutcome Connection::readLine(std::string& line, std::size_t limit) {
  std::size_t end;
  while ((end = in_.find("\r\n")) == std::string::npos) {
    if (in_.size() > limit) return ReadOutcome::kBadRequest;
    if (!fill()) return ReadOutcome::kClosed;
  }
  if (end > limit) return ReadOutcome::kBadRequest;
  line = in_.substr(0, end);
  in_.erase(0, end + 2);
  return ReadOutcome::kOk;
}

Connection::ReadOutcome Connection::readChunked(std::string& body) {
  const std::size_t maxBody = server_.options().maxBodyBytes;
  std::string line;
  for (;;) {
    if (ReadOutcome r = readLine(line, kMaxChunkLineBytes); r != ReadOutcome::kOk) return r;
    const std::string_view size = trim(std::string_view(line).substr(0, line.find(';')));
    if (size.empty() || size.size() > 15) return ReadOutcome::kBadRequest;
    std::size_t length = 0;
    for (char c : size) {
      const int digit = hexValue(c);
      if (digit < 0) return ReadOutcome::kBadRequest;
      length = length * 16 + static_cast<std::size_t>(digit);
    }
    if (length == 0) break;
    if (length > maxBody - body.size()) return ReadOutcome::kTooLarge;
    while (in_.size() < length + 2) {
      if (!fill()) return ReadOutcome::kClosed;
    }
    if (in_.compare(length, 2, "\r\n") != 0) return ReadOutcome::kBadRequest;
    body.append(in_, 0, length);
    in_.erase(0, length + 2);
  }
  // Trailer fields are read and dropped; none of kubectl's requests carries any.
  std::size_t trailerBytes = 0;
  for (;;) {
    if (ReadOutcome r = readLine(line, kMaxChunkLineBytes); r != ReadOutcome::kOk) return r;
    if (line.empty()) return ReadOutcome::kOk;
    trailerBytes += line.size();
    if (trailerBytes > kMaxHeaderBytes) return ReadOutcome::kBadRequest;
  }
}

Connection::ReadOutcome Connection::readBody(Request& request, bool expectContinue) {
  const std::size_t maxBody = server_.options().maxBodyBytes;
  const auto sendContinue = [&] {
    return !expectContinue || transport_.writeAll("HTTP/1.1 100 Continue\r\n\r\n");
  };
  const auto te = request.headers.find("transfer-encoding");
  if (te != request.headers.end()) {
    // With both framings a request could be read two ways (request smuggling): refuse it.
    if (request.headers.contains("content-length")) return ReadOutcome::kBadRequest;
    if (!equalsIgnoreCase(te->second, "chunked")) return ReadOutcome::kBadRequest;
    if (!sendContinue()) return ReadOutcome::kClosed;
    return readChunked(request.body);
  }
  const auto cl = request.headers.find("content-length");
  if (cl == request.headers.end()) return ReadOutcome::kOk;
  const std::string& text = cl->second;
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return ReadOutcome::kBadRequest;
  }
  const std::size_t length = std::stoull(text);
  if (length > maxBody) return ReadOutcome::kTooLarge;
  if (length == 0) return ReadOutcome::kOk;
  if (in_.size() < length && !sendContinue()) return ReadOutcome::kClosed;
  while (in_.size() < length) {
    if (!fill()) return ReadOutcome::kClosed;
  }
  request.body = in_.substr(0, length);
  in_.erase(0, length);
  return ReadOutcome::kOk;
}

void Connection::answerError(int status, std::string_view reason, std::string_view message) {
  keepAlive_ = false;
  Writer writer(*this, false);
  (void)writer.send(status, {{"Content-Type", "application/json"}},
                    statusJson(status, reason, message));
  lingeringClose();
}

void Connection::lingeringClose() {
  transport_.finish();
  ::shutdown(fd_, SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + kLingerTime;
  std::size_t drained = 0;
  char buf[kReadBufferBytes];
  while (!server_.stopping() && drained < server_.options().maxBodyBytes + kMaxHeaderBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n <= 0) break;
    drained += static_cast<std::size_t>(n);
  }
}

void Connection::run() {
  const ServerOptions& options = server_.options();
  bool first = true;
  while (!server_.stopping()) {
    Request request;
    bool keepAlive = false;
    // The first request's head is due headerTimeout after the accept; a later one may be
    // idleTimeout in coming (unless its bytes are already here), then its head is due
    // headerTimeout after its first byte.
    activity_.startWaiting();
    awaitingRequest_ = !first && in_.empty();
    readDeadline_ =
        first ? accepted_ + options.headerTimeout
              : Clock::now() + (awaitingRequest_ ? options.idleTimeout : options.headerTimeout);
    first = false;
    ReadOutcome outcome = readHead(request, keepAlive);
    if (outcome == ReadOutcome::kOk) {
      activity_.inRequest.store(true, std::memory_order_release);
      readDeadline_ = Clock::now() + options.bodyTimeout;
      keepAlive_ = keepAlive;
      const bool expectContinue = equalsIgnoreCase(request.header("expect"), "100-continue");
      outcome = readBody(request, expectContinue);
    }
    switch (outcome) {
      case ReadOutcome::kOk:
        break;
      case ReadOutcome::kClosed:
        return;
      case ReadOutcome::kBadRequest:
        answerError(400, "BadRequest", "malformed HTTP request");
        return;
      case ReadOutcome::kTooLarge:
        answerError(413, "RequestEntityTooLarge", "the request is too large");
        return;
      case ReadOutcome::kHeadersTooLarge:
        answerError(431, "RequestHeaderFieldsTooLarge", "the request headers are too large");
        return;
    }
    request.remoteAddress = remoteAddress_;
    request.clientCommonName = identity_.commonName;
    request.clientOrganizations = identity_.organizations;

    Writer writer(*this, request.method == "HEAD");
    bool handlerFailed = false;
    try {
      server_.handler()(request, writer);
    } catch (...) {
      handlerFailed = true;
    }
    if (!writer.answered()) {
      const char* message = handlerFailed ? "the handler failed" : "the handler gave no answer";
      (void)writer.send(500, {{"Content-Type", "application/json"}},
                        statusJson(500, "InternalError", message));
    } else if (writer.streaming() && !handlerFailed) {
      (void)writer.endStream();
    } else if (handlerFailed) {
      return;  // a half-written answer must not look complete
    }
    if (writer.broken() || !keepAlive_) return;
  }
}

common::Status ServerImpl::listen() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(options_.port);
  const int gai = ::getaddrinfo(options_.host.empty() ? nullptr : options_.host.c_str(),
                                service.c_str(), &hints, &found);
  if (gai != 0) {
    return common::invalidError("resolving \"" + options_.host + "\": " + ::gai_strerror(gai));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
  std::string lastError = "no address";
  for (const addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      lastError = std::strerror(errno);
      continue;
    }
    const int one = 1;
    if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        ::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      lastError = std::strerror(errno);
      ::close(fd);
      continue;
    }
    listenFd_ = fd;
    break;
  }
  if (listenFd_ < 0) {
    return common::unavailableError("listening on " + options_.host + ":" + service + ": " +
                                    lastError);
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (::getsockname(listenFd_, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    return common::internalError(std::string("getsockname: ") + std::strerror(errno));
  }
  if (bound.ss_family == AF_INET) {
    sockaddr_in in4{};
    std::memcpy(&in4, &bound, sizeof(in4));
    port_ = ntohs(in4.sin_port);
  } else {
    sockaddr_in6 in6{};
    std::memcpy(&in6, &bound, sizeof(in6));
    port_ = ntohs(in6.sin6_port);
  }
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return common::internalError(std::string("pipe2: ") + std::strerror(errno));
  }
  wakeRead_ = pipeFds[0];
  wakeWrite_ = pipeFds[1];
  try {
    acceptThread_ = std::thread([this] { acceptLoop(); });
  } catch (const std::exception& e) {
    return common::internalError(std::string("starting the accept thread: ") + e.what());
  }
  return common::okStatus();
}

void ServerImpl::acceptLoop() {
  // Writing to a socket the peer reset raises SIGPIPE, which would end the process; OpenSSL's
  // writes cannot pass MSG_NOSIGNAL, so the connection threads (which inherit this mask) keep
  // it blocked instead.
  sigset_t pipeOnly;
  sigemptyset(&pipeOnly);
  sigaddset(&pipeOnly, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeOnly, nullptr);

  while (!stopping()) {
    pollfd fds[2] = {{listenFd_, POLLIN, 0}, {wakeRead_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0 || stopping()) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    sockaddr_storage peer{};
    socklen_t peerLength = sizeof(peer);
    const int fd =
        ::accept4(listenFd_, reinterpret_cast<sockaddr*>(&peer), &peerLength, SOCK_CLOEXEC);
    if (fd < 0) continue;  // ECONNABORTED, EMFILE, ...: the next round may do better
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

    std::string client = formatAddress(peer);
    client = client.substr(0, client.rfind(':'));
    std::lock_guard lock(mutex_);
    reapFinished();
    if (!makeRoom(client)) {
      rejectBusy(fd);
      continue;
    }
    Slot& slot = slots_.emplace_back();
    slot.fd = fd;
    slot.client = std::move(client);
    try {
      slot.thread = std::thread([this, &slot, address = formatAddress(peer)]() mutable {
        serve(slot, std::move(address));
      });
    } catch (const std::exception&) {
      ::close(fd);
      slots_.pop_back();
    }
  }
}

void ServerImpl::reapFinished() {
  for (auto it = slots_.begin(); it != slots_.end();) {
    if (it->done.load(std::memory_order_acquire)) {
      it->thread.join();
      it = slots_.erase(it);
    } else {
      ++it;
    }
  }
}

bool ServerImpl::makeRoom(const std::string& client) {
  std::size_t live = 0;
  std::size_t fromClient = 0;
  for (const Slot& slot : slots_) {
    if (slot.evicted) continue;
    ++live;
    if (slot.client == client) ++fromClient;
  }
  const std::size_t perClient = options_.maxConnectionsPerClient;
  const bool clientFull = perClient > 0 && fromClient >= perClient;
  if (!clientFull && live < options_.maxConnections) return true;
  // The connection that has waited longest for a request gives way; shutting its socket down
  // ends its thread, which the next accept reaps.
  Slot* oldest = nullptr;
  for (Slot& slot : slots_) {
    if (slot.evicted || slot.fd < 0 || (clientFull && slot.client != client)) continue;
    if (slot.activity.inRequest.load(std::memory_order_acquire)) continue;
    if (oldest == nullptr || slot.activity.waitingSince.load(std::memory_order_relaxed) <
                                 oldest->activity.waitingSince.load(std::memory_order_relaxed)) {
      oldest = &slot;
    }
  }
  if (oldest == nullptr) return false;
  ::shutdown(oldest->fd, SHUT_RDWR);
  oldest->evicted = true;
  return true;
}

common::Status ServerImpl::setCertificate(const ServingCertificate& cert) {
  if (!options_.tls) return common::invalidError("the server does not serve TLS");
  HETBENCH_ASSIGN_OR_RETURN(std::unique_ptr<detail::TlsContext> tls,
                            detail::TlsContext::create(cert, options_.clientCaPem));
  std::lock_guard lock(mutex_);
  tls_ = std::move(tls);
  return common::okStatus();
}

void ServerImpl::rejectBusy(int fd) {
  // Over TLS an answer would need a handshake on the accept thread; closing says enough there.
  if (!options_.tls) {
    const std::string body = statusJson(503, "ServiceUnavailable", "too many connections");
    const std::string answer =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
        "application/json\r\nConnection: close\r\nDate: " +
        httpDate() + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_WR);
  }
  ::close(fd);
}

void ServerImpl::serve(Slot& slot, std::string remoteAddress) {
  int fd;
  std::shared_ptr<detail::TlsContext> tls;
  {
    std::lock_guard lock(mutex_);
    fd = slot.fd;
    tls = tls_;
  }
  try {
    // The handshake counts against the first request's head; every write against
    // writeTimeout.
    setSendTimeout(fd, options_.writeTimeout);
    setReceiveTimeout(fd, options_.headerTimeout);
    detail::PeerIdentity identity;
    std::unique_ptr<detail::Transport> transport =
        tls ? tls->accept(fd, identity) : detail::makePlainTransport(fd);
    if (transport && !stopping()) {
      Connection connection(*this, fd, *transport, std::move(remoteAddress), std::move(identity),
                            slot.activity, slot.accepted);
      connection.run();
      transport->finish();
    }
  } catch (...) {
    // Only allocation can throw here; the connection is dropped either way.
  }
  {
    // Closed under the lock so that stop() never shuts down a descriptor number reused since.
    std::lock_guard lock(mutex_);
    ::close(slot.fd);
    slot.fd = -1;
  }
  slot.done.store(true, std::memory_order_release);
}

void ServerImpl::stop() {
  std::lock_guard stopLock(stopMutex_);
  if (stopped_) return;
  stopped_ = true;
  stopping_.store(true, std::memory_order_release);
  if (wakeWrite_ >= 0) {
    const char byte = 1;
    (void)!::write(wakeWrite_, &byte, 1);
  }
  if (acceptThread_.joinable()) acceptThread_.join();
  std::list<Slot> slots;
  {
    std::lock_guard lock(mutex_);
    // Shutting a socket down wakes its thread from any blocking read, write or handshake.
    for (Slot& slot : slots_) {
      if (slot.fd >= 0) ::shutdown(slot.fd, SHUT_RDWR);
    }
    slots.splice(slots.end(), slots_);
  }
  for (Slot& slot : slots) {
    if (slot.thread.joinable()) slot.thread.join();
  }
  for (int* fd : {&listenFd_, &wakeRead_, &wakeWrite_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

}  // namespace

common::Result<std::unique_ptr<Server>> Server::start(ServerOptions options, Handler handler) {
  try {
    std::unique_ptr<detail::TlsContext> tls;
    if (options.tls) {
      HETBENCH_ASSIGN_OR_RETURN(tls, detail::TlsContext::create(*options.tls, options.clientCaPem));
    } else if (!options.clientCaPem.empty()) {
      return common::invalidError("clientCaPem needs tls");
    }
    if (!handler) return common::invalidError("a server needs a handler");
    if (options.maxConnections == 0) return common::invalidError("maxConnections must be > 0");
    for (const auto timeout :
         {options.headerTimeout, options.bodyTimeout, options.idleTimeout, options.writeTimeout}) {
      if (timeout <= std::chrono::milliseconds::zero()) {
        return common::invalidError("the server's timeouts must be above zero");
      }
    }
    auto server =
        std::make_unique<ServerImpl>(std::move(options), std::move(handler), std::move(tls));
    HETBENCH_RETURN_IF_ERROR(server->listen());
    return std::unique_ptr<Server>(std::move(server));
  } catch (const std::exception& e) {
    return common::internalError(std::string("starting the server: ") + e.what());
  }
}

}  // namespace hetbench::http
