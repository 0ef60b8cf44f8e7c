#pragma once

// What the in-process reconciler tests run on: the fake client's store as the cluster, a cache
// that reads it (or a snapshot of it, to lag behind), a log tracker whose streams the test ends,
// an Event recorder that keeps what it is given, and a builder of BenchmarkRuns. The fake client
// sets no creationTimestamp (the reconciler then takes its clock's now as a unit's start) and
// knows no finalizers: a test that deletes a run sets its deletionTimestamp itself.

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hetbench/benchmark/constants.h"
#include "hetbench/controller/reconciler.h"
#include "hetbench/kube/events.h"
#include "hetbench/logs/collector.h"
#include "kube/fake_client.h"

namespace hetbench::controller::testing {

using nlohmann::json;

/// The informer caches, read from the fake store: always current unless frozen, when they keep
/// answering from the store as it was (a cache that has not seen the latest writes).
class StoreCache final : public RunCache {
 public:
  explicit StoreCache(kube::testing::FakeKubeClient& client) : client_(client) {}

  void freeze() { frozen_ = snapshot(); }
  void thaw() { frozen_.reset(); }

  std::optional<json> run(const std::string& ns, const std::string& name) const override {
    for (const json& run : objects(kBenchmarkRuns))
      if (run["metadata"].value("namespace", "") == ns && run["metadata"].value("name", "") == name)
        return run;
    return std::nullopt;
  }
  std::vector<json> runs(const std::string& ns) const override {
    std::vector<json> out;
    for (const json& run : objects(kBenchmarkRuns))
      if (run["metadata"].value("namespace", "") == ns) out.push_back(run);
    return out;
  }
  std::vector<json> pods(const std::string& ns, const std::string& run) const override {
    return labelled(kube::resources::kPods, ns, run);
  }
  std::vector<json> jobs(const std::string& ns, const std::string& run) const override {
    return labelled(kube::resources::kJobs, ns, run);
  }
  std::vector<json> ipuJobs(const std::string& ns, const std::string& run) const override {
    return labelled(kIpuJobs, ns, run);
  }
  SystemLookup system(const std::string& name) const override {
    if (!systemsServed) return {};
    if (systemsSyncing) return {SystemLookup::State::kSyncing, {}};
    for (const json& system : objects(kBenchmarkSystems))
      if (system["metadata"].value("name", "") == name)
        return {SystemLookup::State::kFound, system};
    return {SystemLookup::State::kAbsent, {}};
  }

  /// Whether the BenchmarkSystem CRD is served, and whether its informer is still listing.
  bool systemsServed = true;
  bool systemsSyncing = false;

 private:
  using Snapshot = std::map<std::string, std::vector<json>>;
  static std::string keyOf(const kube::GroupVersionResource& gvr) {
    return gvr.group + "/" + gvr.resource;
  }
  Snapshot snapshot() const {
    Snapshot out;
    for (const auto* gvr : {&kBenchmarkRuns, &kube::resources::kPods, &kube::resources::kJobs,
                            &kIpuJobs, &kBenchmarkSystems})
      out[keyOf(*gvr)] = client_.objects(*gvr);
    return out;
  }
  std::vector<json> objects(const kube::GroupVersionResource& gvr) const {
    if (frozen_) return (*frozen_)[keyOf(gvr)];
    return client_.objects(gvr);
  }
  std::vector<json> labelled(const kube::GroupVersionResource& gvr, const std::string& ns,
                             const std::string& run) const {
    std::vector<json> out;
    for (const json& object : objects(gvr)) {
      const json& labels = object["metadata"].value("labels", json::object());
      if (object["metadata"].value("namespace", "") == ns &&
          labels.value(std::string(benchmark::kRunLabel), "") == run)
        out.push_back(object);
    }
    return out;
  }

  kube::testing::FakeKubeClient& client_;
  mutable std::optional<Snapshot> frozen_;
};

/// Log collection as the reconciler sees it: a pod's logs are complete once the test says so.
class FakeLogTracker final : public logs::LogTracker {
 public:
  void track(const json& pod, const std::string& unitDir) override {
    std::lock_guard lock(mu_);
    tracked_[pod["metadata"].value("name", "")] = unitDir;
  }
  logs::PodLogs logsOf(const json& pod) const override {
    std::lock_guard lock(mu_);
    const std::string name = pod["metadata"].value("name", "");
    auto given = abandoned_.find(name);
    if (given != abandoned_.end()) return {true, given->second};
    return {complete_.contains(name), ""};
  }
  /// Ends the pod's logs as incomplete at once, as the collector does once its streams stop.
  void abandon(const json& pod, const std::string& why) override {
    std::lock_guard lock(mu_);
    abandoned_.emplace(pod["metadata"].value("name", ""), why);
  }
  void forgetRun(const std::string& ns, const std::string& run) override {
    std::lock_guard lock(mu_);
    forgotten_.push_back(ns + "/" + run);
  }

  void completeLogs(const std::string& pod) {
    std::lock_guard lock(mu_);
    complete_.insert(pod);
  }
  std::optional<std::string> unitDirOf(const std::string& pod) const {
    std::lock_guard lock(mu_);
    auto it = tracked_.find(pod);
    if (it == tracked_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::string> forgotten() const {
    std::lock_guard lock(mu_);
    return forgotten_;
  }
  /// The pods given up on, with why.
  std::map<std::string, std::string> abandoned() const {
    std::lock_guard lock(mu_);
    return abandoned_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> tracked_;
  std::set<std::string> complete_;
  std::map<std::string, std::string> abandoned_;
  std::vector<std::string> forgotten_;
};

/// Keeps every Event it is given.
class RecordingEvents final : public kube::EventRecorder {
 public:
  struct Event {
    std::string object;
    kube::EventType type;
    std::string reason;
    std::string message;
  };
  void event(const json& object, kube::EventType type, const std::string& reason,
             const std::string& message) override {
    std::lock_guard lock(mu_);
    events_.push_back({object["metadata"].value("name", ""), type, reason, message});
  }
  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  int count(const std::string& reason) const {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const Event& e : events_) n += e.reason == reason;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

/// A BenchmarkRun, built fluently: RunBuilder("r").timeLimit("2s").repetitions(2).obj().
class RunBuilder {
 public:
  explicit RunBuilder(std::string name, std::string ns = "lab") {
    run_ = {{"apiVersion", benchmark::kApiVersion},
            {"kind", benchmark::kKind},
            {"metadata", {{"name", std::move(name)}, {"namespace", std::move(ns)}}},
            {"spec",
             {{"benchmark", "custom"},
              {"system", "lab"},
              {"workload", {{"kind", "Pod"}, {"image", "busybox"}}}}}};
  }
  RunBuilder& set(const std::string& field, json value) {
    run_["spec"][field] = std::move(value);
    return *this;
  }
  RunBuilder& benchmark(const std::string& name) { return set("benchmark", name); }
  RunBuilder& kind(const std::string& kind) {
    run_["spec"]["workload"]["kind"] = kind;
    return *this;
  }
  RunBuilder& nodes(int n) {
    run_["spec"]["workload"]["nodes"] = n;
    return *this;
  }
  RunBuilder& timeLimit(const std::string& d) { return set("timeLimit", d); }
  RunBuilder& startTimeout(const std::string& d) { return set("startTimeout", d); }
  RunBuilder& repetitions(int n) { return set("repetitions", n); }
  RunBuilder& parallelism(int n) { return set("parallelism", n); }
  RunBuilder& matrix(json m) { return set("matrix", std::move(m)); }
  RunBuilder& cleanup(json c) { return set("cleanup", std::move(c)); }
  RunBuilder& metrics(json m) { return set("metrics", std::move(m)); }
  RunBuilder& references(json r) { return set("references", std::move(r)); }
  RunBuilder& suspend(bool s) { return set("suspend", s); }
  json obj() const { return run_; }

 private:
  json run_;
};

}  // namespace hetbench::controller::testing
