#include "cluster/events.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "cluster/controller.h"
#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

std::string joinKey(std::initializer_list<std::string_view> parts) {
  // A separator no name or message contains, so that different parts never make one key.
  std::string key;
  for (std::string_view p : parts) {
    key.append(p);
    key.push_back('\x1f');
  }
  return key;
}

std::string text(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string micros(common::WallTime t) {
  return common::formatRfc3339(t, common::TimePrecision::kMicros);
}

}  // namespace

json objectReference(const json& object, std::string_view fieldPath) {
  const json& meta = object.value("metadata", json::object());
  json ref = {{"kind", text(object, "kind")},
              {"name", text(meta, "name")},
              {"uid", text(meta, "uid")},
              {"apiVersion", text(object, "apiVersion")},
              {"resourceVersion", text(meta, "resourceVersion")}};
  if (const std::string ns = text(meta, "namespace"); !ns.empty()) ref["namespace"] = ns;
  if (!fieldPath.empty()) ref["fieldPath"] = fieldPath;
  return ref;
}

EventRecorder::EventRecorder(Api& api, EventRecorderOptions options)
    : api_(api),
      options_(options),
      eventType_(builtinType(api, "", "events")),
      seen_(options.cacheSize),
      buckets_(options.cacheSize) {}

void EventRecorder::record(const EventSource& source, const json& involvedObject,
                           std::string_view type, std::string_view reason,
                           const std::string& message, std::string_view action) {
  try {
    std::lock_guard lock(mu_);
    const common::WallTime now = api_.clock().now();
    const std::string objectKey =
        joinKey({source.component, source.instance, text(involvedObject, "kind"),
                 text(involvedObject, "namespace"), text(involvedObject, "name"),
                 text(involvedObject, "uid"), text(involvedObject, "apiVersion")});
    // Counted before the spam filter, as client-go's correlator does, so that the next write
    // that passes carries every occurrence.
    bool created = false;
    Seen& seen = seen_.touch(
        joinKey({objectKey, text(involvedObject, "fieldPath"), type, reason, message, action}),
        &created);
    if (created) {
      seen.name = uniqueName(text(involvedObject, "name"), now);
      seen.first = now;
    }
    ++seen.count;
    if (!allow(objectKey, now)) {
      spdlog::debug("kubesim event throttled component={} object={} reason={}", source.component,
                    text(involvedObject, "name"), reason);
      return;
    }
    std::string ns = text(involvedObject, "namespace");
    if (ns.empty()) ns = "default";  // events about cluster-scoped objects, as client-go does
    json event = {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", seen.name}, {"namespace", ns}}},
                  {"involvedObject", involvedObject},
                  {"reason", reason},
                  {"message", message},
                  {"type", type},
                  {"reportingComponent", source.component},
                  {"reportingInstance", source.instance}};
    // Fields a recorder leaves unset (null timestamps, an empty source) are left out: clients
    // read an absent field as the zero value the API server would show.
    if (source.recorder == EventSource::Recorder::kCoreV1) {
      event["source"] = {{"component", source.component}};
      if (!source.instance.empty()) event["source"]["host"] = source.instance;
      event["firstTimestamp"] = common::formatRfc3339(seen.first);
      event["lastTimestamp"] = common::formatRfc3339(now);
      event["count"] = seen.count;
    } else {
      event["eventTime"] = micros(seen.first);
      event["action"] = action;
      if (seen.count > 1) {
        event["series"] = {{"count", seen.count}, {"lastObservedTime", micros(now)}};
      }
    }
    write(source, std::move(event), seen, now);
  } catch (const std::exception& e) {
    // Recording is a side effect of a component's work and must never stop it.
    spdlog::warn("kubesim event not recorded component={} reason={} error={}", source.component,
                 reason, e.what());
  }
}

bool EventRecorder::allow(const std::string& objectKey, common::WallTime now) {
  bool created = false;
  Bucket& bucket = buckets_.touch(objectKey, &created);
  if (created) {
    bucket.tokens = options_.burst;
  } else if (now > bucket.refilled) {
    const double elapsed = std::chrono::duration<double>(now - bucket.refilled).count();
    const double perSecond = 1.0 / static_cast<double>(options_.refill.count());
    bucket.tokens = std::min(options_.burst, bucket.tokens + elapsed * perSecond);
  }
  bucket.refilled = std::max(bucket.refilled, now);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

std::string EventRecorder::uniqueName(const std::string& objectName, common::WallTime now) {
  // The recorder's "<name>.<UnixNano in hex>"; a clock that stands still (a test's FakeClock)
  // or repeats a nanosecond still gets a name of its own.
  std::int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  nanos = std::max(nanos, lastNameNanos_ + 1);
  lastNameNanos_ = nanos;
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));
  return objectName + "." + hex;
}

void EventRecorder::write(const EventSource& source, json event, const Seen& seen,
                          common::WallTime now) {
  const std::string ns = event["metadata"]["namespace"];
  if (seen.count > 1) {
    const bool updated = updateObject(api_, eventType_, ns, seen.name, [&](json& stored) {
      if (source.recorder == EventSource::Recorder::kCoreV1) {
        stored["count"] = seen.count;
        stored["lastTimestamp"] = common::formatRfc3339(now);
      } else {
        stored["series"] = event["series"];
      }
      return true;
    });
    if (updated) return;
    // Expired (or deleted) since: written afresh under its name, its count kept, as client-go
    // does when its patch finds no Event.
  }
  ApiResult<WriteResult> created = api_.create(eventType_, ns, std::move(event), WriteOptions{});
  if (!created.isOk()) {
    // A terminating or deleted namespace refuses Events about the objects going with it.
    spdlog::debug("kubesim event not written component={} event={}/{} code={} message={}",
                  source.component, ns, seen.name, created.error().code, created.error().message);
  }
}

}  // namespace hetbench::kubesim
