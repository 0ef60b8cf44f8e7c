#pragma once

// Socket helpers of the server. Internal to the http module.

#include <sys/socket.h>

#include <string>

namespace hetbench::http::detail {

/// "127.0.0.1:port" or "[::1]:port"; "" for another family.
std::string formatAddress(const sockaddr_storage& address);

/// Whether the peer has closed or reset the connection, without consuming anything: on TLS the
/// bytes in the socket are records that belong to OpenSSL.
bool peerGone(int fd);

}  // namespace hetbench::http::detail
