#include "sockets.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace hetbench::http::detail {

std::string formatAddress(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    sockaddr_in in4{};
    std::memcpy(&in4, &address, sizeof(in4));
    inet_ntop(AF_INET, &in4.sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(ntohs(in4.sin_port));
  }
  if (address.ss_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, &address, sizeof(in6));
    inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof(host));
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6.sin6_port));
  }
  return "";
}

bool peerGone(int fd) {
  pollfd p{fd, static_cast<short>(POLLIN | POLLRDHUP), 0};
  const int ready = ::poll(&p, 1, 0);
  if (ready < 0) return errno != EINTR && errno != EAGAIN && errno != ENOMEM;
  if (ready == 0) return false;
  if ((p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) != 0) return true;
  if ((p.revents & POLLIN) != 0) {
    char byte;
    const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return true;
  }
  return false;
}

namespace {
void setTimeout(int fd, int option, std::chrono::steady_clock::duration timeout) {
  const auto us = std::max<std::int64_t>(
      1000, std::chrono::duration_cast<std::chrono::microseconds>(timeout).count());
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(us / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(us % 1000000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof(tv));
}
}  // namespace

void setReceiveTimeout(int fd, std::chrono::steady_clock::duration timeout) {
  setTimeout(fd, SO_RCVTIMEO, timeout);
}

void setSendTimeout(int fd, std::chrono::steady_clock::duration timeout) {
  setTimeout(fd, SO_SNDTIMEO, timeout);
}

}  // namespace hetbench::http::detail
