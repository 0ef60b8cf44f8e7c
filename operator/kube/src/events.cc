#include "hetbench/kube/events.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <utility>

#include "hetbench/common/time.h"

namespace hetbench::kube {

namespace {

using nlohmann::json;

/// Remembered Events beyond this are pruned of those outside the aggregation window.
constexpr std::size_t kMaxSeen = 4096;

std::string stringAt(const json& object, const char* section, const char* key) {
  const json* scope = &object;
  if (section != nullptr) {
    const auto it = object.find(section);
    if (it == object.end() || !it->is_object()) return "";
    scope = &*it;
  }
  const auto it = scope->find(key);
  return it != scope->end() && it->is_string() ? it->get<std::string>() : std::string();
}

const char* typeName(EventType type) { return type == EventType::kWarning ? "Warning" : "Normal"; }

std::string hexNanos(common::WallTime t) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%llx", static_cast<unsigned long long>(nanos));
  return buffer;
}

}  // namespace

KubeEventRecorder::KubeEventRecorder(KubeClient& client, const common::Clock& clock,
                                     common::RandomSource& random, std::string component,
                                     std::chrono::nanoseconds aggregationWindow,
                                     std::size_t maxQueued)
    : client_(client),
      clock_(clock),
      random_(random),
      component_(std::move(component)),
      window_(aggregationWindow),
      maxQueued_(maxQueued),
      thread_([this] { run(); }) {}

KubeEventRecorder::~KubeEventRecorder() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void KubeEventRecorder::event(const json& object, EventType type, const std::string& reason,
                              const std::string& message) {
  Pending pending{object, type, reason, message, clock_.now()};
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= maxQueued_) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(pending));
  }
  cv_.notify_one();
}

void KubeEventRecorder::flush() {
  std::unique_lock lock(mu_);
  drained_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

std::uint64_t KubeEventRecorder::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void KubeEventRecorder::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    // Stopping still writes what was queued: the destructor drains.
    if (queue_.empty()) return;
    Pending pending = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    lock.unlock();
    write(pending);
    lock.lock();
    writing_ = false;
    if (queue_.empty()) drained_.notify_all();
  }
}

void KubeEventRecorder::write(const Pending& p) {
  const std::string objectName = stringAt(p.object, "metadata", "name");
  std::string ns = stringAt(p.object, "metadata", "namespace");
  // Events about cluster-scoped objects go to "default", as client-go's recorder does.
  if (ns.empty()) ns = "default";
  const std::string uid = stringAt(p.object, "metadata", "uid");
  const std::string key = stringAt(p.object, nullptr, "kind") + "\x1f" + ns + "\x1f" + objectName +
                          "\x1f" + uid + "\x1f" + typeName(p.type) + "\x1f" + p.reason + "\x1f" +
                          p.message;
  const std::string timestamp = common::formatRfc3339(p.at);

  const auto seen = seen_.find(key);
  if (seen != seen_.end() && p.at - seen->second.last < window_) {
    const json patch = {{"count", seen->second.count + 1}, {"lastTimestamp", timestamp}};
    auto patched = client_.patch(resources::kEvents, seen->second.ns, seen->second.name,
                                 PatchType::kMerge, patch);
    if (patched.isOk()) {
      ++seen->second.count;
      seen->second.last = p.at;
      return;
    }
    if (!patched.status().isNotFound()) {
      spdlog::warn("event update failed event={}/{} reason={} error={}", seen->second.ns,
                   seen->second.name, p.reason, patched.status().toString());
      return;
    }
  }

  json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", objectName + "." + hexNanos(p.at)}, {"namespace", ns}}},
      {"involvedObject",
       {{"kind", stringAt(p.object, nullptr, "kind")},
        {"apiVersion", stringAt(p.object, nullptr, "apiVersion")},
        {"name", objectName},
        {"namespace", stringAt(p.object, "metadata", "namespace")},
        {"uid", uid},
        {"resourceVersion", stringAt(p.object, "metadata", "resourceVersion")}}},
      {"reason", p.reason},
      {"message", p.message},
      {"type", typeName(p.type)},
      {"source", {{"component", component_}}},
      {"reportingComponent", component_},
      {"firstTimestamp", timestamp},
      {"lastTimestamp", timestamp},
      {"count", 1},
  };
  auto created = client_.create(resources::kEvents, ns, event);
  if (!created.isOk() && created.status().isAlreadyExists()) {
    // Two Events in the same nanosecond (a frozen clock): tell them apart with a random suffix.
    event["metadata"]["name"] = objectName + "." + hexNanos(p.at) + common::shortId(random_);
    created = client_.create(resources::kEvents, ns, event);
  }
  if (!created.isOk()) {
    spdlog::warn("event create failed object={}/{} reason={} error={}", ns, objectName, p.reason,
                 created.status().toString());
    return;
  }
  if (seen_.size() >= kMaxSeen) {
    std::erase_if(seen_, [&](const auto& entry) { return p.at - entry.second.last >= window_; });
  }
  seen_[key] = Seen{ns, stringAt(*created, "metadata", "name"), 1, p.at};
}

}  // namespace hetbench::kube
