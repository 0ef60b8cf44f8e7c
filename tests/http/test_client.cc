#include "http/test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace hetbench::http::testing {
namespace {

int connectSocket(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(kTimeout.count());
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string lowerCase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string opensslErrors() {
  std::string out;
  char buf[256];
  for (unsigned long code = ERR_get_error(); code != 0; code = ERR_get_error()) {
    ERR_error_string_n(code, buf, sizeof(buf));
    out += buf;
    out += "; ";
  }
  return out;
}

}  // namespace

TestConnection::~TestConnection() { close(); }

std::unique_ptr<TestConnection> TestConnection::connect(std::uint16_t port) {
  const int fd = connectSocket(port);
  if (fd < 0) return nullptr;
  return std::unique_ptr<TestConnection>(new TestConnection(fd, nullptr));
}

std::unique_ptr<TestConnection> TestConnection::connectTls(std::uint16_t port,
                                                           const TlsClientOptions& options,
                                                           std::string* error) {
  const auto fail = [&](std::string why) {
    if (error != nullptr) *error = why + ": " + opensslErrors();
    ERR_clear_error();
    return nullptr;
  };
  ERR_clear_error();
  ossl::SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return fail("SSL_CTX_new");
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  auto cas = ossl::readCertificates(options.caPem);
  if (!cas) return fail("reading the CA");
  for (const auto& ca : *cas) {
    if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx.get()), ca.get()) != 1) {
      return fail("X509_STORE_add_cert");
    }
  }
  if (!options.certPem.empty()) {
    auto cert = ossl::readCertificate(options.certPem);
    auto key = ossl::readPrivateKey(options.keyPem);
    if (!cert || !key || SSL_CTX_use_certificate(ctx.get(), cert->get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx.get(), key->get()) != 1) {
      return fail("using the client certificate");
    }
  }
  std::string alpn;
  for (const std::string& protocol : options.alpn) {
    alpn += static_cast<char>(protocol.size());
    alpn += protocol;
  }
  if (!alpn.empty() &&
      SSL_CTX_set_alpn_protos(ctx.get(), reinterpret_cast<const unsigned char*>(alpn.data()),
                              static_cast<unsigned int>(alpn.size())) != 0) {
    return fail("SSL_CTX_set_alpn_protos");
  }
  ossl::SslPtr ssl(SSL_new(ctx.get()));
  if (!ssl) return fail("SSL_new");
  if (!options.verifyDns.empty() && SSL_set1_host(ssl.get(), options.verifyDns.c_str()) != 1) {
    return fail("SSL_set1_host");
  }
  if (!options.verifyIp.empty() &&
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), options.verifyIp.c_str()) != 1) {
    return fail("X509_VERIFY_PARAM_set1_ip_asc");
  }
  const int fd = connectSocket(port);
  if (fd < 0) return fail("connect");
  std::unique_ptr<TestConnection> connection(new TestConnection(fd, std::move(ssl)));
  if (SSL_set_fd(connection->ssl_.get(), fd) != 1 || SSL_connect(connection->ssl_.get()) != 1) {
    return fail("handshake (verify result " +
                std::to_string(SSL_get_verify_result(connection->ssl_.get())) + ")");
  }
  return connection;
}

bool TestConnection::sendAll(std::string_view data) {
  while (!data.empty()) {
    std::size_t written = 0;
    if (ssl_) {
      if (SSL_write_ex(ssl_.get(), data.data(), data.size(), &written) != 1) {
        ERR_clear_error();
        return false;
      }
    } else {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      written = static_cast<std::size_t>(n);
    }
    data.remove_prefix(written);
  }
  return true;
}

bool TestConnection::fill() {
  if (fd_ < 0) return false;
  char buf[16384];
  std::size_t got = 0;
  if (ssl_) {
    if (SSL_read_ex(ssl_.get(), buf, sizeof(buf), &got) != 1) {
      ERR_clear_error();
      return false;
    }
  } else {
    ssize_t n;
    do {
      n = ::recv(fd_, buf, sizeof(buf), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    got = static_cast<std::size_t>(n);
  }
  buffer_.append(buf, got);
  return true;
}

std::optional<std::string> TestConnection::readUntil(std::string_view delimiter) {
  std::size_t at;
  while ((at = buffer_.find(delimiter)) == std::string::npos) {
    if (!fill()) return std::nullopt;
  }
  std::string out = buffer_.substr(0, at + delimiter.size());
  buffer_.erase(0, at + delimiter.size());
  return out;
}

std::optional<std::string> TestConnection::readExactly(std::size_t size) {
  while (buffer_.size() < size) {
    if (!fill()) return std::nullopt;
  }
  std::string out = buffer_.substr(0, size);
  buffer_.erase(0, size);
  return out;
}

std::optional<Response> TestConnection::readHead() {
  auto head = readUntil("\r\n\r\n");
  if (!head) return std::nullopt;
  Response response;
  std::string_view text(*head);
  // "HTTP/1.1 200 OK"
  if (!text.starts_with("HTTP/1.1 ") || text.size() < 12) return std::nullopt;
  response.status = std::stoi(std::string(text.substr(9, 3)));
  text.remove_prefix(text.find("\r\n") + 2);
  while (!text.starts_with("\r\n")) {
    const std::size_t end = text.find("\r\n");
    const std::string_view line = text.substr(0, end);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string value(line.substr(colon + 1));
    value.erase(0, value.find_first_not_of(' '));
    response.headers[lowerCase(std::string(line.substr(0, colon)))] = value;
    text.remove_prefix(end + 2);
  }
  return response;
}

std::optional<std::string> TestConnection::readChunk() {
  auto line = readUntil("\r\n");
  if (!line) return std::nullopt;
  const std::size_t size = std::stoul(*line, nullptr, 16);
  auto data = readExactly(size + 2);
  if (!data || !data->ends_with("\r\n")) return std::nullopt;
  data->resize(size);
  return data;
}

std::optional<Response> TestConnection::readResponse() {
  auto response = readHead();
  if (!response) return std::nullopt;
  if (response->header("transfer-encoding") == "chunked") {
    for (;;) {
      auto chunk = readChunk();
      if (!chunk) return std::nullopt;
      if (chunk->empty()) break;
      response->body += *chunk;
    }
  } else if (!response->header("content-length").empty()) {
    auto body = readExactly(std::stoul(response->header("content-length")));
    if (!body) return std::nullopt;
    response->body = *body;
  }
  return response;
}

bool TestConnection::readsEof() { return buffer_.empty() && !fill(); }

bool TestConnection::closedByServer() {
  if (!buffer_.empty() || fd_ < 0 || ssl_) return false;
  char byte;
  ssize_t n;
  do {
    n = ::recv(fd_, &byte, 1, 0);
  } while (n < 0 && errno == EINTR);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

std::string TestConnection::alpn() const {
  const unsigned char* data = nullptr;
  unsigned int length = 0;
  if (ssl_) SSL_get0_alpn_selected(ssl_.get(), &data, &length);
  return data == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(data), length);
}

void TestConnection::close() {
  ssl_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string getRequest(std::string_view target, std::string_view extraHeaders) {
  std::string out = "GET ";
  out += target;
  out += " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: kubesim-test\r\n";
  out += extraHeaders;
  out += "\r\n";
  return out;
}

std::optional<Response> get(std::uint16_t port, std::string_view target) {
  std::unique_ptr<TestConnection> connection = TestConnection::connect(port);
  if (!connection || !connection->sendAll(getRequest(target, "Connection: close\r\n")))
    return std::nullopt;
  return connection->readResponse();
}

std::optional<Response> getTls(std::uint16_t port, std::string_view target,
                               const TlsClientOptions& options, std::string_view extraHeaders) {
  std::unique_ptr<TestConnection> connection = TestConnection::connectTls(port, options);
  if (!connection ||
      !connection->sendAll(getRequest(target, std::string(extraHeaders) + "Connection: close\r\n")))
    return std::nullopt;
  return connection->readResponse();
}

int threadCount() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  }
  return -1;
}

}  // namespace hetbench::http::testing
