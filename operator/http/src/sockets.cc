#include "sockets.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <cerrno>
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

}  // namespace hetbench::http::detail
