#pragma once

// The HTTP/1.1 wire format as the server reads and writes it: case-insensitive header handling,
// token syntax (RFC 9110), reason phrases, dates, and the request-target split. Internal to
// hetbench::http.

#include <string>
#include <string_view>

#include "hetbench/http/server.h"

namespace hetbench::http::wire {

char lower(char c);
std::string lowerCase(std::string_view text);
bool equalsIgnoreCase(std::string_view a, std::string_view b);
std::string_view trim(std::string_view text);
/// An RFC 9110 token (method names, header names).
bool isToken(std::string_view text);
/// Whether a header value holds control characters (tab allowed on request).
bool hasControl(std::string_view text, bool allowTab);
/// Whether a comma-separated header value lists `token` (case-insensitive).
bool listsToken(std::string_view value, std::string_view token);
/// The value of a hexadecimal digit, -1 for anything else.
int hexValue(char c);
std::string_view reasonPhrase(int status);
/// The current time as an HTTP Date header value (IMF-fixdate).
std::string httpDate();
/// A Kubernetes Status body, for answers the server gives before any handler runs.
std::string statusJson(int code, std::string_view reason, std::string_view message);
/// Statuses that never carry a body (1xx, 204, 304).
bool bodyForbidden(int status);
/// Splits a request-target into path and query; the absolute form loses scheme and authority.
void splitTarget(std::string_view target, Request& request);
/// Parses a request's head (request line and header fields, without the blank line that ends
/// them) into `request`, as RFC 9112 reads it: false for a malformed one. `keepAlive` is whether
/// the connection may carry another request.
bool parseRequestHead(std::string_view head, Request& request, bool& keepAlive);

}  // namespace hetbench::http::wire
