#include "cluster/event_ttl.h"

#include <spdlog/spdlog.h>

#include "cluster/controller.h"
#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

constexpr const char* kEventsKey = "/events";

}  // namespace

std::optional<common::WallTime> lastRecorded(const json& event) {
  std::optional<common::WallTime> latest;
  auto consider = [&](const json& parent, const char* field) {
    auto it = parent.find(field);
    if (it == parent.end() || !it->is_string()) return;
    common::Result<common::WallTime> t = common::parseRfc3339(it->get<std::string>());
    if (t.isOk() && (!latest || *t > *latest)) latest = *t;
  };
  consider(event.value("metadata", json::object()), "creationTimestamp");
  consider(event, "lastTimestamp");
  consider(event, "eventTime");
  consider(event.value("series", json::object()), "lastObservedTime");
  return latest;
}

EventTtl::EventTtl(Api& api, std::chrono::seconds ttl, std::chrono::milliseconds sweepInterval)
    : api_(api), ttl_(ttl), sweepInterval_(sweepInterval) {}

EventTtl::~EventTtl() { stop(); }

void EventTtl::start() {
  thread_ = std::thread([this] { run(); });
}

void EventTtl::stop() {
  if (stopping_.exchange(true)) return;
  api_.store().wakeAll();
  if (thread_.joinable()) thread_.join();
}

void EventTtl::observe(const json& event) {
  const json& meta = event["metadata"];
  const auto key = std::make_pair(meta.value("namespace", ""), meta.value("name", ""));
  std::optional<common::WallTime> recorded = lastRecorded(event);
  // An Event that carries no time at all counts from when kubesim sees it.
  const common::WallTime from = recorded.value_or(api_.clock().now());
  tracked_[key] = Tracked{from + ttl_, meta.value("resourceVersion", "")};
}

void EventTtl::expireDue() {
  const common::WallTime now = api_.clock().now();
  const ResourceType type = builtinType(api_, "", "events");
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    if (it->second.expires > now) {
      ++it;
      continue;
    }
    // Only the version seen expires: an update since (a repeat recorded) arrives through the
    // watch with its new time and is tracked again.
    DeleteOptions options;
    options.preconditionResourceVersion = it->second.resourceVersion;
    ApiResult<json> removed = api_.remove(type, it->first.first, it->first.second, options);
    if (!removed.isOk() && removed.error().code != 404 && removed.error().code != 409) {
      spdlog::warn("kubesim event expiry failed event={}/{} code={} message={}", it->first.first,
                   it->first.second, removed.error().code, removed.error().message);
    }
    it = tracked_.erase(it);
  }
}

void EventTtl::run() {
  while (!stopping_) {
    tracked_.clear();
    auto [events, after] = api_.store().list(kEventsKey, "");
    for (const json& e : events) observe(e);
    auto nextSweep = std::chrono::steady_clock::now();
    while (!stopping_) {
      // Swept on the wall clock's pace but judged by the cluster's clock, so that a test that
      // moves a FakeClock sees Events go within a sweep.
      if (std::chrono::steady_clock::now() >= nextSweep) {
        expireDue();
        nextSweep = std::chrono::steady_clock::now() + sweepInterval_;
      }
      common::Result<Store::Batch> batch =
          api_.store().eventsAfter(kEventsKey, "", after, sweepInterval_);
      if (!batch.isOk()) break;  // history lost: list again
      for (const WatchEvent& e : batch->events) {
        const json& meta = e.object["metadata"];
        if (e.type == EventType::kDeleted) {
          tracked_.erase({meta.value("namespace", ""), meta.value("name", "")});
        } else {
          observe(e.object);
        }
      }
      after = std::max(after, batch->upTo);
    }
  }
}

}  // namespace hetbench::kubesim
