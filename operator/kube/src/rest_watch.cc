#include "rest_watch.h"

#include <atomic>
#include <nlohmann/json.hpp>

namespace hetbench::kube {
namespace {

using nlohmann::json;
namespace http = web::http;
using Buffer = concurrency::streams::streambuf<std::uint8_t>;

// Reads what has arrived, waiting only when nothing has: false at the end of the body.
bool readSome(Buffer& buffer, std::string& into) {
  std::size_t available = buffer.in_avail();
  if (available == 0) {
    const Buffer::int_type c = buffer.bumpc().get();
    if (c == Buffer::traits::eof()) return false;
    into += static_cast<char>(c);
    available = buffer.in_avail();
  }
  if (available > 0) {
    std::string chunk(std::min<std::size_t>(available, 1 << 16), '\0');
    const std::size_t n =
        buffer.getn(reinterpret_cast<std::uint8_t*>(chunk.data()), chunk.size()).get();
    into.append(chunk.data(), n);
  }
  return true;
}

struct Opened {
  std::unique_ptr<web::http::client::http_client> client;
  http::http_response response;
  pplx::cancellation_token_source cancel;
};

common::Result<Opened> open(const std::string& server,
                            const web::http::client::http_client_config& config,
                            const std::string& target, const RequestHeaders& headers) {
  Opened o;
  try {
    o.client = std::make_unique<web::http::client::http_client>(server, config);
    http::http_request request(http::methods::GET);
    request.set_request_uri(target);
    headers.addTo(request);
    o.response = o.client->request(request, o.cancel.get_token()).get();
  } catch (const std::exception& e) {
    return common::unavailableError("GET " + target + ": " + e.what());
  }
  if (o.response.status_code() != 200) {
    std::string body;
    try {
      body = o.response.extract_utf8string(true).get();
    } catch (const std::exception&) {
    }
    return statusFromResponse(o.response.status_code(), body);
  }
  return o;
}

class RestWatchStream final : public WatchStream {
 public:
  explicit RestWatchStream(Opened opened) : opened_(std::move(opened)) {}
  ~RestWatchStream() override { cancel(); }

  common::Result<std::optional<WatchEvent>> next() override {
    while (true) {
      const std::size_t newline = pending_.find('\n');
      if (newline != std::string::npos) {
        const std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
        return parse(line);
      }
      if (cancelled_) return std::optional<WatchEvent>();
      try {
        Buffer buffer = opened_.response.body().streambuf();
        if (!readSome(buffer, pending_)) {
          if (pending_.find_first_not_of(" \r\t\n") != std::string::npos && !cancelled_) {
            const std::string line = pending_;
            pending_.clear();
            return parse(line);
          }
          return std::optional<WatchEvent>();
        }
      } catch (const std::exception& e) {
        if (cancelled_) return std::optional<WatchEvent>();
        return common::unavailableError(std::string("watch stream broke: ") + e.what());
      }
    }
  }

  void cancel() override {
    if (cancelled_.exchange(true)) return;
    opened_.cancel.cancel();
    try {
      opened_.response.body().streambuf().close(std::ios::in).wait();
    } catch (const std::exception&) {
      // Already closed by the cancelled request.
    }
  }

 private:
  static common::Result<std::optional<WatchEvent>> parse(const std::string& line) {
    const json event = json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains("type") || !event.contains("object")) {
      return common::internalError("malformed watch event: " + line.substr(0, 200));
    }
    const std::string type = event.value("type", "");
    WatchEvent out;
    out.object = event["object"];
    if (type == "ADDED") {
      out.type = WatchEvent::Type::kAdded;
    } else if (type == "MODIFIED") {
      out.type = WatchEvent::Type::kModified;
    } else if (type == "DELETED") {
      out.type = WatchEvent::Type::kDeleted;
    } else if (type == "BOOKMARK") {
      out.type = WatchEvent::Type::kBookmark;
    } else if (type == "ERROR") {
      const int code = out.object.value("code", 500);
      return statusFromResponse(code, out.object.dump());
    } else {
      return common::internalError("unknown watch event type \"" + type + "\"");
    }
    return std::optional<WatchEvent>(std::move(out));
  }

  Opened opened_;
  std::string pending_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

void RequestHeaders::addTo(http::http_request& request) const {
  request.headers().add("Accept", "application/json");
  request.headers().add("User-Agent", userAgent);
  if (!token.empty()) request.headers().add("Authorization", "Bearer " + token);
  if (!tlsServerName.empty()) request.headers().add("Host", tlsServerName);
}

common::Result<std::unique_ptr<WatchStream>> openWatch(
    const std::string& server, const web::http::client::http_client_config& config,
    const std::string& target, const RequestHeaders& headers, const RequestObserver& observer,
    const common::Clock& clock) {
  const common::MonoTime start = clock.monotonic();
  common::Result<Opened> opened = open(server, config, target, headers);
  if (observer) observer("WATCH", opened.isOk() ? 200 : 0, clock.monotonic() - start);
  if (!opened.isOk()) return opened.status();
  return std::unique_ptr<WatchStream>(std::make_unique<RestWatchStream>(std::move(*opened)));
}

common::Status streamBody(const std::string& server,
                          const web::http::client::http_client_config& config,
                          const std::string& target, const RequestHeaders& headers,
                          const std::function<bool(std::string_view)>& onData,
                          StreamCanceller* canceller) {
  if (canceller != nullptr && canceller->cancelled()) return common::okStatus();
  common::Result<Opened> opened = open(server, config, target, headers);
  if (!opened.isOk()) return opened.status();
  if (canceller != nullptr) {
    pplx::cancellation_token_source source = opened->cancel;
    canceller->setHook([source] { source.cancel(); });
  }
  struct ClearHook {
    StreamCanceller* canceller;
    ~ClearHook() {
      if (canceller != nullptr) canceller->clearHook();
    }
  } clearHook{canceller};
  try {
    Buffer buffer = opened->response.body().streambuf();
    std::string chunk;
    while (readSome(buffer, chunk)) {
      if (!onData(chunk)) {
        opened->cancel.cancel();
        return common::okStatus();
      }
      chunk.clear();
    }
  } catch (const std::exception& e) {
    if (canceller != nullptr && canceller->cancelled()) return common::okStatus();
    return common::unavailableError(std::string("log stream broke: ") + e.what());
  }
  return common::okStatus();
}

}  // namespace hetbench::kube
