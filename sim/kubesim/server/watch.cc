#include "apimachinery/selectors.h"
#include "protobuf/codec.h"
#include "server/http_api.h"
#include "server/object_meta.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Serves the server-side watch timeout when the client names none (kube-apiserver picks a
// random value of 30 to 60 minutes).
constexpr std::chrono::seconds kDefaultWatchTimeout{1800};

}  // namespace

void ApiServer::handleWatch(const http::Request& request, const ResourcePath& path,
                            http::ResponseWriter& out) {
  const ResourceType& type = path.type;
  const bool table = wantsTable(request.header("accept"));
  const BodyFormat format = table ? BodyFormat::kJson : responseFormat(request, !type.isCustom());
  std::string fieldSelector = request.queryParam("fieldSelector").value_or("");
  if (!path.name.empty()) {
    fieldSelector =
        "metadata.name=" + path.name + (fieldSelector.empty() ? "" : "," + fieldSelector);
  }
  const std::string labelSelector = request.queryParam("labelSelector").value_or("");
  ApiResult<std::vector<json>> check = api_.select(type, {}, labelSelector, fieldSelector);
  if (!check.isOk()) return sendError(out, check.error(), format);
  common::Result<LabelSelector> labels = LabelSelector::parse(labelSelector);
  common::Result<FieldSelector> fields = FieldSelector::parse(fieldSelector);
  auto matches = [&](const json& object) {
    return !object.is_null() && labels->matches(object["metadata"].value("labels", json())) &&
           fields->matches(object);
  };

  std::chrono::seconds timeout = kDefaultWatchTimeout;
  if (std::optional<std::string> t = request.queryParam("timeoutSeconds")) {
    char* end = nullptr;
    const long long v = std::strtoll(t->c_str(), &end, 10);
    if (end == t->c_str() || *end != '\0' || v < 0) {
      return sendError(out, errors::badRequest("invalid timeoutSeconds: " + *t), format);
    }
    if (v > 0) timeout = std::chrono::seconds(v);
  }
  const bool bookmarks = queryFlag(request, "allowWatchBookmarks");
  const std::string includeObject = request.queryParam("includeObject").value_or("Metadata");
  const std::string rvParam = request.queryParam("resourceVersion").value_or("");
  std::uint64_t after = 0;
  if (!rvParam.empty() && rvParam != "0") {
    char* end = nullptr;
    after = std::strtoull(rvParam.c_str(), &end, 10);
    if (end == rvParam.c_str() || *end != '\0') {
      return sendError(out, errors::badRequest("invalid resource version \"" + rvParam + "\""),
                       format);
    }
  }
  const std::string ns = type.namespaced ? path.ns : "";
  const std::uint64_t watchGeneration = faults_.watchGeneration();

  // The watch is established before the client hears back, as in kube-apiserver: a change the
  // client makes after the response headers is an event, never part of the initial state.
  std::vector<json> initial;
  const bool fromNow = rvParam.empty() || rvParam == "0";
  if (fromNow) {
    auto [objects, rv] = api_.store().list(type.storageKey(), ns);
    initial = std::move(objects);
    after = rv;
  }
  const bool protobufStream = format == BodyFormat::kProtobuf;
  if (!out.startStream(200,
                       {{"Content-Type", protobufStream ? std::string(protobuf::kWatchMediaType)
                                                        : std::string("application/json")},
                        {"Cache-Control", "no-cache, private"}})) {
    return;
  }
  // One event: a JSON line, or a length-prefixed protobuf WatchEvent. An object that does not
  // fit its schema ends the stream with an ERROR event, since the stream cannot change encoding.
  auto writeEvent = [&](const char* eventType, const json& object) {
    if (!protobufStream) {
      const json event = {{"type", eventType}, {"object", object}};
      return out.write(event.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
    }
    common::Result<std::string> frame = protobuf::encodeWatchEvent(eventType, object);
    if (frame.isOk()) return out.write(*frame);
    common::Result<std::string> error = protobuf::encodeWatchEvent(
        "ERROR", errors::internal("kubesim cannot encode the object in protobuf: " +
                                  frame.status().message())
                     .toStatus());
    if (error.isOk()) out.write(*error);
    return false;
  };
  bool firstTable = true;
  auto send = [&](const char* eventType, const json& object) {
    json payload = presentObject(type, object);
    if (table) {
      ApiResult<json> t = buildTable(
          type, {payload}, {{"resourceVersion", payload["metadata"].value("resourceVersion", "")}},
          includeObject, api_.clock().now());
      if (!t.isOk()) return false;
      if (!firstTable) t.value().erase("columnDefinitions");
      firstTable = false;
      payload = std::move(*t);
    }
    return writeEvent(eventType, payload);
  };
  auto sendGone = [&](const std::string& message) {
    writeEvent("ERROR", errors::gone(message).toStatus());
  };

  if (fromNow) {
    for (const json& object : initial) {
      if (matches(object) && !send("ADDED", object)) return;
    }
  } else if (after < api_.store().oldestVersion()) {
    sendGone("too old resource version: " + std::to_string(after) + " (" +
             std::to_string(api_.store().oldestVersion()) + ")");
    return;
  }

  const auto deadline = Clock::now() + timeout;
  auto nextBookmark = Clock::now() + options_.bookmarkInterval;
  while (!stopping_ && !out.closed() && faults_.watchGeneration() == watchGeneration) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    auto wait = std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(500));
    if (bookmarks)
      wait = std::min<Clock::duration>(
          wait, std::max<Clock::duration>(nextBookmark - now, Clock::duration(0)));
    common::Result<Store::Batch> batch = api_.store().eventsAfter(
        type.storageKey(), ns, after, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    if (!batch.isOk()) {
      sendGone(batch.status().message());
      return;
    }
    if (faults_.watchGeneration() != watchGeneration || stopping_) break;
    for (const WatchEvent& e : batch->events) {
      const bool now_ = e.type != EventType::kDeleted && matches(e.object);
      const bool before = matches(e.prevObject);
      const char* kind = nullptr;
      if (e.type == EventType::kAdded) {
        kind = now_ ? "ADDED" : nullptr;
      } else if (e.type == EventType::kDeleted) {
        kind = before ? "DELETED" : nullptr;
      } else if (now_ && before) {
        kind = "MODIFIED";
      } else if (now_) {
        kind = "ADDED";
      } else if (before) {
        kind = "DELETED";  // the object left the selection
      }
      if (kind != nullptr && !send(kind, e.object)) return;
    }
    after = std::max(after, batch->upTo);
    if (bookmarks && Clock::now() >= nextBookmark) {
      const json bookmark = {
          {"kind", type.kind},
          {"apiVersion", type.apiVersion()},
          {"metadata",
           {{"resourceVersion", std::to_string(after)}, {"creationTimestamp", nullptr}}}};
      if (!writeEvent("BOOKMARK", bookmark)) return;
      nextBookmark = Clock::now() + options_.bookmarkInterval;
    }
  }
}

}  // namespace hetbench::kubesim
