#include "hetbench/http/wire.h"

#include <cstdio>
#include <ctime>

namespace hetbench::http {
namespace wire {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowerCase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// RFC 9110 token characters, which method and header names are made of.
bool isToken(std::string_view text) {
  static constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           kSpecials.find(c) != std::string_view::npos;
  });
}

bool hasControl(std::string_view text, bool allowTab) {
  return std::any_of(text.begin(), text.end(), [allowTab](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && !(allowTab && c == '\t')) || u == 0x7f;
  });
}

/// Whether a comma-separated header value lists `token` (any case).
bool listsToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    if (equalsIgnoreCase(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

/// RFC 9110's IMF-fixdate, written by hand because strftime follows the process locale.
std::string httpDate() {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday % 7],
                tm.tm_mday, kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

/// A Kubernetes Status object for answers the server gives on its own.
std::string statusJson(int code, std::string_view reason, std::string_view message) {
  std::string out = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)";
  out += R"("message":")";
  out += message;
  out += R"(","reason":")";
  out += reason;
  out += R"(","code":)";
  out += std::to_string(code);
  out += "}";
  return out;
}

bool bodyForbidden(int status) {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

/// Splits a request-target into path and query; the absolute form loses scheme and authority.
void splitTarget(std::string_view target, Request& request) {
  if (target.starts_with("http://") || target.starts_with("https://")) {
    const std::size_t slash = target.find('/', target.find("//") + 2);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  const std::size_t mark = target.find('?');
  request.path = percentDecode(target.substr(0, mark), false);
  if (mark == std::string_view::npos) return;
  std::string_view query = target.substr(mark + 1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const std::size_t eq = pair.find('=');
      std::string key = percentDecode(pair.substr(0, eq), true);
      std::string value =
          eq == std::string_view::npos ? std::string() : percentDecode(pair.substr(eq + 1), true);
      request.query.emplace(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

bool parseRequestHead(std::string_view head, Request& request, bool& keepAlive) {
  std::string_view lines(head);
  const std::size_t firstEnd = lines.find("\r\n");
  const std::string_view requestLine = lines.substr(0, firstEnd);
  lines = firstEnd == std::string_view::npos ? std::string_view() : lines.substr(firstEnd + 2);

  const std::size_t sp1 = requestLine.find(' ');
  const std::size_t sp2 =
      sp1 == std::string_view::npos ? std::string_view::npos : requestLine.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || requestLine.find(' ', sp2 + 1) != std::string_view::npos) {
    return false;
  }
  const std::string_view method = requestLine.substr(0, sp1);
  const std::string_view target = requestLine.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = requestLine.substr(sp2 + 1);
  if (!isToken(method) || target.empty() || hasControl(target, false) ||
      (version != "HTTP/1.1" && version != "HTTP/1.0")) {
    return false;
  }
  request.method = std::string(method);
  request.target = std::string(target);

  while (!lines.empty()) {
    const std::size_t lineEnd = lines.find("\r\n");
    const std::string_view line = lines.substr(0, lineEnd);
    lines = lineEnd == std::string_view::npos ? std::string_view() : lines.substr(lineEnd + 2);
    const std::size_t colon = line.find(':');
    // Obsolete line folding (a line starting with white space) is rejected, as RFC 9112 allows.
    if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) {
      return false;
    }
    const std::string_view value = trim(line.substr(colon + 1));
    if (hasControl(value, true)) return false;
    auto [it, inserted] =
        request.headers.try_emplace(lowerCase(line.substr(0, colon)), std::string(value));
    if (!inserted) {
      it->second += ", ";
      it->second += value;
    }
  }
  if (version == "HTTP/1.1" && !request.headers.contains("host")) return false;

  // HTTP/1.0 clients get one answer per connection: their streams cannot be chunked either.
  keepAlive = version == "HTTP/1.1" && !listsToken(request.header("connection"), "close");
  splitTarget(target, request);
  return true;
}

}  // namespace wire

std::string Request::header(std::string_view name) const {
  const auto it = headers.find(wire::lowerCase(name));
  return it == headers.end() ? std::string() : it->second;
}

std::optional<std::string> Request::queryParam(std::string_view name) const {
  // lower_bound, unlike multimap::find, is guaranteed to give the first of equal keys.
  const auto it = query.lower_bound(std::string(name));
  if (it == query.end() || it->first != name) return std::nullopt;
  return it->second;
}

std::string percentDecode(std::string_view text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size() && wire::hexValue(text[i + 1]) >= 0 &&
        wire::hexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(wire::hexValue(text[i + 1]) * 16 + wire::hexValue(text[i + 2]));
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace hetbench::http
