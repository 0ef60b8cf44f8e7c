#pragma once

// A small HTTP/1.1 client over raw sockets (optionally TLS) for the server's tests, so that they
// exercise the wire format directly and depend on no other HTTP library.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/http/openssl_util.h"

namespace hetbench::http::testing {

/// Bounds every blocking call of a test.
inline constexpr std::chrono::seconds kTimeout{10};

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct TlsClientOptions {
  std::string caPem;
  std::string verifyDns;  // checked against the server certificate when set
  std::string verifyIp;
  std::string certPem;  // client certificate, optional
  std::string keyPem;
  std::vector<std::string> alpn = {"h2", "http/1.1"};
};

/// One client connection to 127.0.0.1; every read and write gives up after kTimeout.
class TestConnection {
 public:
  ~TestConnection();
  TestConnection(const TestConnection&) = delete;
  TestConnection& operator=(const TestConnection&) = delete;

  static std::unique_ptr<TestConnection> connect(std::uint16_t port);
  /// nullptr when the connection or the handshake fails; `error` says why.
  static std::unique_ptr<TestConnection> connectTls(std::uint16_t port,
                                                    const TlsClientOptions& options,
                                                    std::string* error = nullptr);

  bool sendAll(std::string_view data);
  /// Everything up to and including `delimiter`, or nullopt at the end of the stream.
  std::optional<std::string> readUntil(std::string_view delimiter);
  std::optional<std::string> readExactly(std::size_t size);
  /// One whole response; a chunked body is joined.
  std::optional<Response> readResponse();
  /// Only the status line and headers, leaving a body to readChunk().
  std::optional<Response> readHead();
  /// The data of the next chunk; "" for the last one.
  std::optional<std::string> readChunk();
  /// True once the server has closed the connection (and sent nothing more).
  bool readsEof();
  /// Plain connections: true when the server closes or resets the connection (after sending
  /// nothing more) within kTimeout; false when it is still open then, unlike readsEof().
  bool closedByServer();
  /// The ALPN protocol the server selected ("" when none).
  std::string alpn() const;
  /// Closes the socket at once, as a client that goes away.
  void close();

 private:
  TestConnection(int fd, ossl::SslPtr ssl) : fd_(fd), ssl_(std::move(ssl)) {}
  /// Reads more bytes into buffer_; false at the end of the stream, on error or timeout.
  bool fill();

  int fd_;
  ossl::SslPtr ssl_;
  std::string buffer_;
};

/// A GET request with the headers every test sends.
std::string getRequest(std::string_view target, std::string_view extraHeaders = "");

/// GET `target` from 127.0.0.1:`port` on a connection of its own (Connection: close); nullopt
/// when nothing answers.
std::optional<Response> get(std::uint16_t port, std::string_view target);
/// The same over TLS, with `extraHeaders` ("Name: value\r\n" each); nullopt also when the
/// handshake fails.
std::optional<Response> getTls(std::uint16_t port, std::string_view target,
                               const TlsClientOptions& options, std::string_view extraHeaders = "");

/// Threads of this process now, to check that a server leaves none behind.
int threadCount();

/// Values handed from handler threads to the test thread, in order; take() waits with a
/// deadline instead of sleeping.
template <typename T>
class Mailbox {
 public:
  void put(T value) {
    std::lock_guard lock(mutex_);
    values_.push_back(std::move(value));
    ready_.notify_all();
  }

  std::optional<T> take(std::chrono::milliseconds timeout = kTimeout) {
    std::unique_lock lock(mutex_);
    if (!ready_.wait_for(lock, timeout, [&] { return !values_.empty(); })) return std::nullopt;
    T value = std::move(values_.front());
    values_.pop_front();
    return value;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> values_;
};

}  // namespace hetbench::http::testing
