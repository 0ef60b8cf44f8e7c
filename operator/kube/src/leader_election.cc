#include "hetbench/kube/leader_election.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "hetbench/common/time.h"

namespace hetbench::kube {

namespace {

using nlohmann::json;

std::string stringField(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t intField(const json& object, const char* key, std::int64_t fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

json specOf(const json& lease) {
  const auto it = lease.find("spec");
  return it != lease.end() && it->is_object() ? *it : json::object();
}

std::string microTime(common::WallTime t) {
  return common::formatRfc3339(t, common::TimePrecision::kMicros);
}

}  // namespace

LeaderElector::LeaderElector(KubeClient& client, const common::Clock& clock,
                             LeaderElectionConfig config, LeaderCallbacks callbacks)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)) {}

void LeaderElector::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    step();
    lock.lock();
    cv_.wait_for(lock, config_.retryPeriod, [this] { return stopping_; });
  }
}

void LeaderElector::step() {
  std::lock_guard stepLock(stepMu_);
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
  }
  // The renewal counts from before the request: the lease was written no earlier than this.
  const common::MonoTime start = clock_.monotonic();
  const std::string previousHolder = observedHolder_;
  const bool renewed = tryAcquireOrRenew();
  bool started = false;
  bool stopped = false;
  {
    std::lock_guard lock(mu_);
    if (renewed) {
      renewedAt_ = start;
      started = !leading_;
      leading_ = true;
    } else if (leading_) {
      const bool lost = !observedHolder_.empty() && observedHolder_ != config_.identity;
      if (lost || clock_.monotonic() - renewedAt_ >= config_.renewDeadline) {
        leading_ = false;
        stopped = true;
      }
    }
  }
  if (stopped) {
    spdlog::warn("leader election lost lease={}/{} identity={}", config_.leaseNamespace,
                 config_.leaseName, config_.identity);
    if (callbacks_.onStoppedLeading) callbacks_.onStoppedLeading();
  }
  if (observedHolder_ != previousHolder && !observedHolder_.empty()) {
    if (callbacks_.onNewLeader) callbacks_.onNewLeader(observedHolder_);
  }
  if (started) {
    spdlog::info("leader election acquired lease={}/{} identity={}", config_.leaseNamespace,
                 config_.leaseName, config_.identity);
    if (callbacks_.onStartedLeading) callbacks_.onStartedLeading();
  }
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  std::lock_guard stepLock(stepMu_);
  bool wasLeading = false;
  {
    std::lock_guard lock(mu_);
    wasLeading = leading_;
    leading_ = false;
  }
  if (!wasLeading) return;
  if (config_.releaseOnCancel && !release()) {
    spdlog::warn("leader election could not release lease={}/{} identity={}",
                 config_.leaseNamespace, config_.leaseName, config_.identity);
  }
  if (callbacks_.onStoppedLeading) callbacks_.onStoppedLeading();
}

bool LeaderElector::isLeader() const {
  std::lock_guard lock(mu_);
  return leading_ && clock_.monotonic() - renewedAt_ < config_.renewDeadline;
}

void LeaderElector::observe(const json& lease) {
  const json spec = specOf(lease);
  const std::string record =
      stringField(lease.value("metadata", json::object()), "resourceVersion") + " " + spec.dump();
  if (record != observedRecord_) {
    observedRecord_ = record;
    observedAt_ = clock_.monotonic();
  }
  observedHolder_ = stringField(spec, "holderIdentity");
}

bool LeaderElector::tryAcquireOrRenew() {
  const std::string now = microTime(clock_.now());
  const auto durationSeconds = std::max<std::int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(config_.leaseDuration).count());
  json spec = {{"holderIdentity", config_.identity},
               {"leaseDurationSeconds", durationSeconds},
               {"acquireTime", now},
               {"renewTime", now},
               {"leaseTransitions", 0}};
  auto current = client_.get(resources::kLeases, config_.leaseNamespace, config_.leaseName);
  if (!current.isOk()) {
    if (!current.status().isNotFound()) {
      spdlog::debug("leader election get failed lease={} error={}", config_.leaseName,
                    current.status().toString());
      return false;
    }
    const json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.leaseName}, {"namespace", config_.leaseNamespace}}},
        {"spec", spec}};
    auto created = client_.create(resources::kLeases, config_.leaseNamespace, lease);
    if (!created.isOk()) return false;
    observe(*created);
    return true;
  }
  if (!current->is_object()) return false;
  observe(*current);
  const json old = specOf(*current);
  const std::string holder = stringField(old, "holderIdentity");
  // Expiry as this replica saw it: how long the record has stayed unchanged, by its own clock.
  const auto leaseDuration = std::chrono::seconds(
      intField(old, "leaseDurationSeconds",
               std::chrono::duration_cast<std::chrono::seconds>(config_.leaseDuration).count()));
  if (!holder.empty() && holder != config_.identity &&
      clock_.monotonic() - observedAt_ < leaseDuration) {
    return false;
  }
  const std::int64_t transitions = intField(old, "leaseTransitions", 0);
  if (holder == config_.identity) {
    spec["acquireTime"] = old.contains("acquireTime") ? old["acquireTime"] : json(now);
    spec["leaseTransitions"] = transitions;
  } else {
    spec["leaseTransitions"] = transitions + 1;
  }
  json updated = *current;
  updated["spec"] = spec;
  auto written = client_.update(resources::kLeases, config_.leaseNamespace, updated);
  if (!written.isOk()) {
    spdlog::debug("leader election update failed lease={} error={}", config_.leaseName,
                  written.status().toString());
    return false;
  }
  observe(*written);
  return true;
}

bool LeaderElector::release() {
  auto current = client_.get(resources::kLeases, config_.leaseNamespace, config_.leaseName);
  if (!current.isOk() || !current->is_object()) return false;
  const json old = specOf(*current);
  if (stringField(old, "holderIdentity") != config_.identity) return true;
  const std::string now = microTime(clock_.now());
  json updated = *current;
  updated["spec"] = {{"holderIdentity", ""},
                     {"leaseDurationSeconds", 1},
                     {"acquireTime", now},
                     {"renewTime", now},
                     {"leaseTransitions", intField(old, "leaseTransitions", 0)}};
  auto written = client_.update(resources::kLeases, config_.leaseNamespace, updated);
  if (!written.isOk()) return false;
  observe(*written);
  return true;
}

}  // namespace hetbench::kube
