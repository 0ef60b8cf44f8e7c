#pragma once

// Socket helpers of the server. Internal to the http module.

#include <sys/socket.h>

#include <chrono>
#include <string>

namespace hetbench::http::detail {

/// "127.0.0.1:port" or "[::1]:port"; "" for another family.
std::string formatAddress(const sockaddr_storage& address);

/// Whether the peer has closed or reset the connection, without consuming anything: on TLS the
/// bytes in the socket are records that belong to OpenSSL.
bool peerGone(int fd);

/// Bounds each blocking receive on `fd` by `timeout` (SO_RCVTIMEO; at least a millisecond, since
/// zero would mean no bound), and each send likewise (SO_SNDTIMEO).
void setReceiveTimeout(int fd, std::chrono::steady_clock::duration timeout);
void setSendTimeout(int fd, std::chrono::steady_clock::duration timeout);

}  // namespace hetbench::http::detail
