#include "cluster/control_plane.h"

#include <spdlog/spdlog.h>

#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kCrdKey = "apiextensions.k8s.io/customresourcedefinitions";
constexpr const char* kCrdCleanup = "customresourcecleanup.apiextensions.k8s.io";

std::optional<ResourceType> typeForKey(const Api& api, const std::string& storageKey) {
  const std::size_t slash = storageKey.find('/');
  return api.typeOf(storageKey.substr(0, slash), storageKey.substr(slash + 1));
}

// The garbage collector's last word before deleting: a live lookup of the owner by its
// reference (kind, name, uid), as kube-controller-manager verifies a dangling owner.
bool ownerExists(Api& api, const json& ref, const std::string& ns) {
  std::optional<ResourceType> type =
      api.registry().findKind(ref.value("apiVersion", ""), ref.value("kind", ""));
  if (!type) return false;
  std::optional<json> owner =
      api.store().get(type->storageKey(), type->namespaced ? ns : "", ref.value("name", ""));
  return owner && (*owner)["metadata"].value("uid", "") == ref.value("uid", "");
}

std::vector<ResourceType> typesOfCrd(const json& crd) {
  std::vector<ResourceType> out;
  const json& spec = crd["spec"];
  const json& names = spec["names"];
  for (const json& v : spec.value("versions", json::array())) {
    if (!v.value("served", true)) continue;
    auto custom = std::make_shared<CustomResourceVersion>();
    custom->name = v.value("name", "");
    custom->served = true;
    custom->storage = v.value("storage", false);
    const json& schema = v.value("schema", json::object()).value("openAPIV3Schema", json());
    if (!schema.is_null()) {
      common::Result<StructuralSchema> compiled = StructuralSchema::compile(schema, "");
      if (compiled.isOk()) custom->schema = std::move(*compiled);
      custom->openApiSchema = schema;
    }
    custom->listKind = names.value("listKind", names.value("kind", "") + "List");
    for (const json& c : v.value("additionalPrinterColumns", json::array())) {
      custom->printerColumns.push_back(PrinterColumn{
          c.value("name", ""), c.value("type", "string"), c.value("format", ""),
          c.value("description", ""), c.value("priority", 0), c.value("jsonPath", "")});
    }
    ResourceType t;
    t.group = spec.value("group", "");
    t.version = custom->name;
    t.resource = names.value("plural", "");
    t.kind = names.value("kind", "");
    t.singular = names.value("singular", "");
    t.namespaced = spec.value("scope", "") == "Namespaced";
    for (const json& s : names.value("shortNames", json::array())) t.shortNames.push_back(s);
    for (const json& c : names.value("categories", json::array())) t.categories.push_back(c);
    const json& subresources = v.value("subresources", json::object());
    if (subresources.contains("status")) t.subresources.push_back("status");
    if (subresources.contains("scale")) {
      t.subresources.push_back("scale");
      const json& scale = subresources["scale"];
      custom->scale = CustomResourceScale{common::stringMember(scale, "specReplicasPath"),
                                          common::stringMember(scale, "statusReplicasPath"),
                                          common::stringMember(scale, "labelSelectorPath")};
    }
    t.crdName = crd["metadata"].value("name", "");
    t.custom = std::move(custom);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

CrdController::CrdController(Api& api) : Controller(api, "crd") { watch(kCrdKey); }

std::optional<std::chrono::milliseconds> CrdController::reconcile(const ObjectKey& key) {
  const ResourceType crdType =
      builtinType(api_, "apiextensions.k8s.io", "customresourcedefinitions");
  ApiResult<json> crd = api_.get(crdType, "", key.name);
  const std::string plural = key.name.substr(0, key.name.find('.'));
  const std::string group =
      key.name.find('.') == std::string::npos ? "" : key.name.substr(key.name.find('.') + 1);
  if (!crd.isOk()) {
    api_.registry().remove(group, plural);
    return std::nullopt;
  }
  json& object = *crd;
  if (object["metadata"].contains("deletionTimestamp")) {
    // Custom resources go first (their finalizers are honoured), then the CRD's own finalizer.
    if (std::optional<ResourceType> type = api_.typeOf(group, plural)) {
      auto [items, rv] = api_.store().list(type->storageKey(), "");
      (void)rv;
      if (!items.empty()) {
        for (const json& item : items) {
          if (!item["metadata"].contains("deletionTimestamp")) {
            DeleteOptions options;
            options.propagationPolicy = "Background";
            (void)api_.remove(*type, item["metadata"].value("namespace", ""),
                              item["metadata"].value("name", ""), options);
          }
        }
        return 100ms;
      }
    }
    api_.registry().remove(group, plural);
    updateObject(api_, crdType, "", key.name,
                 [](json& o) { return removeFinalizer(o, kCrdCleanup); });
    return std::nullopt;
  }

  api_.registry().replace(group, plural, typesOfCrd(object));
  const std::string now = common::formatRfc3339(api_.clock().now());
  json status = object.value("status", json::object());
  json names = object["spec"]["names"];
  json stored = status.value("storedVersions", json::array());
  for (const json& v : object["spec"].value("versions", json::array())) {
    if (v.value("storage", false) &&
        std::find(stored.begin(), stored.end(), v["name"]) == stored.end()) {
      stored.push_back(v["name"]);
    }
  }
  auto condition = [&](const char* type, const char* reason, const char* message) {
    for (const json& c : status.value("conditions", json::array())) {
      if (c.value("type", "") == type && c.value("status", "") == "True") return c;
    }
    return json{{"type", type},
                {"status", "True"},
                {"lastTransitionTime", now},
                {"reason", reason},
                {"message", message}};
  };
  json desired = {
      {"acceptedNames", names},
      {"storedVersions", stored},
      {"conditions",
       {condition("NamesAccepted", "NoConflicts", "no conflicts found"),
        condition("Established", "InitialNamesAccepted", "the initial names have been accepted")}}};
  if (desired != status) {
    object["status"] = desired;
    ApiResult<WriteResult> written =
        api_.update(crdType, "", key.name, object, "status", WriteOptions{});
    if (!written.isOk() && written.error().code == 409) return 10ms;
  }
  return std::nullopt;
}

NamespaceController::NamespaceController(Api& api) : Controller(api, "namespace") {
  watch("/namespaces");
}

std::optional<std::chrono::milliseconds> NamespaceController::reconcile(const ObjectKey& key) {
  const ResourceType nsType = builtinType(api_, "", "namespaces");
  ApiResult<json> ns = api_.get(nsType, "", key.name);
  if (!ns.isOk()) return std::nullopt;
  if (!(*ns)["metadata"].contains("deletionTimestamp")) {
    const ResourceType saType = builtinType(api_, "", "serviceaccounts");
    if (!api_.get(saType, key.name, "default").isOk()) {
      json sa = {{"apiVersion", "v1"},
                 {"kind", "ServiceAccount"},
                 {"metadata", {{"name", "default"}, {"namespace", key.name}}}};
      (void)api_.create(saType, key.name, sa, WriteOptions{});
    }
    return std::nullopt;
  }
  std::set<std::string> seen;
  bool remaining = false;
  for (const ResourceType& type : api_.registry().all()) {
    if (!type.namespaced || !seen.insert(type.storageKey()).second) continue;
    auto [items, rv] = api_.store().list(type.storageKey(), key.name);
    (void)rv;
    for (const json& item : items) {
      remaining = true;
      if (item["metadata"].contains("deletionTimestamp")) continue;
      DeleteOptions options;
      options.propagationPolicy = "Background";
      (void)api_.remove(type, key.name, item["metadata"].value("name", ""), options);
    }
  }
  if (remaining) return 100ms;
  (void)api_.removeNow(nsType, "", key.name);
  return std::nullopt;
}

PodGarbageCollector::PodGarbageCollector(Api& api) : Controller(api, "podgc") {
  watch("/pods");
  // Pods bound to a node that goes away are collected too.
  watch("/nodes", [this](const WatchEvent& e) {
    std::vector<ObjectKey> keys;
    if (e.type != EventType::kDeleted) return keys;
    const std::string node = e.object["metadata"].value("name", "");
    for (const json& p : api_.store().list("/pods", "").first) {
      if (p["spec"].value("nodeName", "") == node) {
        keys.push_back(
            {"/pods", p["metadata"].value("namespace", ""), p["metadata"].value("name", "")});
      }
    }
    return keys;
  });
}

std::optional<std::chrono::milliseconds> PodGarbageCollector::reconcile(const ObjectKey& key) {
  std::optional<json> pod = api_.store().get("/pods", key.ns, key.name);
  if (!pod) return std::nullopt;
  const std::string node = (*pod)["spec"].value("nodeName", "");
  const std::string phase = pod->value("status", json::object()).value("phase", "");
  const bool unscheduledTerminating =
      node.empty() && (*pod)["metadata"].contains("deletionTimestamp");
  const bool orphaned = !node.empty() && !api_.store().get("/nodes", "", node);
  if (!unscheduledTerminating && !orphaned) return std::nullopt;
  const std::string uid = (*pod)["metadata"].value("uid", "");
  const std::string now = common::formatRfc3339(api_.clock().now());
  (void)api_.store().mutate(
      "/pods", key.ns, key.name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current || (*current)["metadata"].value("uid", "") != uid) return current;
        json next = *current;
        if (phase != "Succeeded" && phase != "Failed") {
          next["status"]["phase"] = "Failed";
          json& conditions = next["status"]["conditions"];
          if (!conditions.is_array()) conditions = json::array();
          conditions.push_back({{"type", "DisruptionTarget"},
                                {"status", "True"},
                                {"reason", "DeletionByPodGC"},
                                {"message",
                                 "PodGC: the pod was terminating and unscheduled, "
                                 "or its node no longer exists"},
                                {"lastTransitionTime", now}});
        }
        // A forced deletion: gone at once unless finalizers hold it.
        if (!next["metadata"].contains("deletionTimestamp"))
          next["metadata"]["deletionTimestamp"] = now;
        next["metadata"]["deletionGracePeriodSeconds"] = 0;
        if (next["metadata"].value("finalizers", json::array()).empty())
          return std::optional<json>();
        return std::optional<json>(std::move(next));
      });
  return std::nullopt;
}

GarbageCollector::GarbageCollector(Api& api) : api_(api) {}

GarbageCollector::~GarbageCollector() { stop(); }

void GarbageCollector::start() {
  thread_ = std::thread([this] { run(); });
}

void GarbageCollector::stop() {
  if (stopping_.exchange(true)) return;
  api_.store().wakeAll();
  if (thread_.joinable()) thread_.join();
}

void GarbageCollector::run() {
  while (!stopping_) {
    byUid_.clear();
    dependents_.clear();
    objects_.clear();
    std::uint64_t after = api_.store().currentVersion();
    std::set<std::string> keys;
    for (const ResourceType& type : api_.registry().all()) keys.insert(type.storageKey());
    // Act only on a complete picture: an owner listed after its dependents is not missing.
    syncing_ = true;
    for (const std::string& key : keys) {
      auto [items, rv] = api_.store().list(key, "");
      (void)rv;
      for (json& item : items) {
        observe(
            {EventType::kAdded, key, item["metadata"].value("namespace", ""), item, nullptr, 0});
      }
    }
    syncing_ = false;
    std::vector<std::pair<ObjectKey, std::string>> pending;
    for (const auto& [uid, object] : objects_) {
      if (auto k = byUid_.find(uid); k != byUid_.end()) pending.emplace_back(k->second, uid);
    }
    for (const auto& [key, uid] : pending) {
      collect(key);
      finishOwner(uid);
    }
    while (!stopping_) {
      common::Result<Store::Batch> batch =
          api_.store().eventsAfter("", "", after, std::chrono::milliseconds(200));
      if (!batch.isOk()) break;  // history lost: rebuild from a fresh list
      for (const WatchEvent& e : batch->events) observe(e);
      after = std::max(after, batch->upTo);
    }
  }
}

void GarbageCollector::observe(const WatchEvent& e) {
  const json& meta = e.object["metadata"];
  const std::string uid = meta.value("uid", "");
  if (uid.empty()) return;
  const ObjectKey key{e.storageKey, meta.value("namespace", ""), meta.value("name", "")};
  auto unlinkOwners = [&] {
    auto it = objects_.find(uid);
    if (it == objects_.end()) return;
    for (const json& ref : it->second["metadata"].value("ownerReferences", json::array())) {
      dependents_[ref.value("uid", "")].erase(uid);
    }
  };
  if (e.type == EventType::kDeleted) {
    std::vector<std::string> owners;
    if (auto it = objects_.find(uid); it != objects_.end()) {
      for (const json& ref : it->second["metadata"].value("ownerReferences", json::array())) {
        owners.push_back(ref.value("uid", ""));
      }
    }
    unlinkOwners();
    byUid_.erase(uid);
    objects_.erase(uid);
    for (const std::string& owner : owners) finishOwner(owner);
    if (auto deps = dependents_.find(uid); deps != dependents_.end()) {
      const std::set<std::string> copy = deps->second;
      for (const std::string& dep : copy) {
        if (auto d = byUid_.find(dep); d != byUid_.end()) collect(d->second);
      }
    }
    return;
  }
  unlinkOwners();
  byUid_[uid] = key;
  objects_[uid] = e.object;
  const json& refs = meta.value("ownerReferences", json::array());
  for (const json& ref : refs) dependents_[ref.value("uid", "")].insert(uid);
  if (syncing_) return;
  if (!refs.empty()) collect(key);
  if (meta.contains("deletionTimestamp")) finishOwner(uid);
}

void GarbageCollector::collect(const ObjectKey& dependent) {
  std::optional<ResourceType> type = typeForKey(api_, dependent.storageKey);
  if (!type) return;
  ApiResult<json> object = api_.get(*type, dependent.ns, dependent.name);
  if (!object.isOk() || (*object)["metadata"].contains("deletionTimestamp")) return;
  const json refs = (*object)["metadata"].value("ownerReferences", json::array());
  if (refs.empty()) return;
  json alive = json::array();
  for (const json& ref : refs) {
    if (byUid_.count(ref.value("uid", "")) || ownerExists(api_, ref, dependent.ns)) {
      alive.push_back(ref);
    }
  }
  if (alive.empty()) {
    DeleteOptions options;
    options.propagationPolicy = "Background";
    options.preconditionUid = (*object)["metadata"].value("uid", "");
    (void)api_.remove(*type, dependent.ns, dependent.name, options);
  } else if (alive.size() != refs.size()) {
    updateObject(api_, *type, dependent.ns, dependent.name, [&](json& o) {
      o["metadata"]["ownerReferences"] = alive;
      return true;
    });
  }
}

void GarbageCollector::finishOwner(const std::string& uid) {
  auto owner = objects_.find(uid);
  auto ownerKey = byUid_.find(uid);
  if (owner == objects_.end() || ownerKey == byUid_.end()) return;
  const json& meta = owner->second["metadata"];
  if (!meta.contains("deletionTimestamp")) return;
  std::optional<ResourceType> ownerType = typeForKey(api_, ownerKey->second.storageKey);
  if (!ownerType) return;
  const std::set<std::string> deps = dependents_[uid];
  if (hasFinalizer(owner->second, "orphan")) {
    for (const std::string& dep : deps) {
      auto d = byUid_.find(dep);
      std::optional<ResourceType> depType =
          d == byUid_.end() ? std::nullopt : typeForKey(api_, d->second.storageKey);
      if (!depType) continue;
      updateObject(api_, *depType, d->second.ns, d->second.name, [&](json& o) {
        json kept = json::array();
        for (const json& ref : o["metadata"].value("ownerReferences", json::array())) {
          if (ref.value("uid", "") != uid) kept.push_back(ref);
        }
        if (kept.empty()) {
          o["metadata"].erase("ownerReferences");
        } else {
          o["metadata"]["ownerReferences"] = kept;
        }
        return true;
      });
    }
    updateObject(api_, *ownerType, ownerKey->second.ns, ownerKey->second.name,
                 [](json& o) { return removeFinalizer(o, "orphan"); });
    return;
  }
  if (hasFinalizer(owner->second, "foregroundDeletion")) {
    bool blocking = false;
    for (const std::string& dep : deps) {
      auto d = byUid_.find(dep);
      auto obj = objects_.find(dep);
      if (d == byUid_.end() || obj == objects_.end()) continue;
      for (const json& ref : obj->second["metadata"].value("ownerReferences", json::array())) {
        if (ref.value("uid", "") == uid && ref.value("blockOwnerDeletion", false)) blocking = true;
      }
      if (obj->second["metadata"].contains("deletionTimestamp")) continue;
      std::optional<ResourceType> depType = typeForKey(api_, d->second.storageKey);
      if (!depType) continue;
      DeleteOptions options;
      options.propagationPolicy = "Foreground";
      (void)api_.remove(*depType, d->second.ns, d->second.name, options);
    }
    if (!blocking) {
      updateObject(api_, *ownerType, ownerKey->second.ns, ownerKey->second.name,
                   [](json& o) { return removeFinalizer(o, "foregroundDeletion"); });
    }
  }
}

}  // namespace hetbench::kubesim
