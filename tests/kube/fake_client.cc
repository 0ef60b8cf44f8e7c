#include "fake_client.h"

#include <cstdio>
#include <sstream>
#include <utility>

namespace hetbench::kube::testing {

namespace {

using nlohmann::json;

std::string resourceKey(const GroupVersionResource& gvr) { return gvr.group + "/" + gvr.resource; }

std::string objectKey(const GroupVersionResource& gvr, const std::string& ns,
                      const std::string& name) {
  return (gvr.namespaced ? ns : std::string()) + "/" + name;
}

/// The built-in kinds with a status subresource, and any custom resource.
bool hasStatusSubresource(const GroupVersionResource& gvr) {
  if (gvr.group.empty()) {
    return gvr.resource == "pods" || gvr.resource == "services" || gvr.resource == "namespaces";
  }
  return gvr.group != "coordination.k8s.io";
}

std::string stringAt(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer) || !object.at(pointer).is_string()) return "";
  return object.at(pointer).get<std::string>();
}

std::string nameOf(const json& object) { return stringAt(object, "/metadata/name"_json_pointer); }
std::string versionOf(const json& object) {
  return stringAt(object, "/metadata/resourceVersion"_json_pointer);
}

common::Status conflict(const GroupVersionResource& gvr, const std::string& name) {
  return common::conflictError("Operation cannot be fulfilled on " + gvr.resource + " \"" + name +
                               "\": the object has been modified; please apply your changes to "
                               "the latest version and try again");
}

common::Status notFound(const GroupVersionResource& gvr, const std::string& name) {
  return common::notFoundError(gvr.resource + " \"" + name + "\" not found");
}

/// Equality ("a=b", "a==b"), inequality ("a!=b") and existence ("a") terms, comma-separated.
bool matchesSelector(const json& fields, const std::string& selector) {
  std::stringstream terms(selector);
  std::string term;
  while (std::getline(terms, term, ',')) {
    if (term.empty()) continue;
    const bool negated = term.find("!=") != std::string::npos;
    const std::size_t eq = term.find('=');
    if (eq == std::string::npos) {
      if (!fields.contains(term)) return false;
      continue;
    }
    const std::string key = term.substr(0, negated ? eq - 1 : eq);
    std::string value = term.substr(eq + 1);
    if (!value.empty() && value.front() == '=') value.erase(0, 1);
    const bool equal = fields.contains(key) && fields.at(key).is_string() &&
                       fields.at(key).get<std::string>() == value;
    if (equal == negated) return false;
  }
  return true;
}

}  // namespace

FakeKubeClient::FakeKubeClient(std::shared_ptr<FakeStore> store) : store_(std::move(store)) {}

void FakeKubeClient::failNext(const std::string& verb, common::Status status, int count) {
  std::lock_guard lock(mu_);
  failures_[verb] = Failure{std::move(status), count};
}

void FakeKubeClient::clearFailures() {
  std::lock_guard lock(mu_);
  failures_.clear();
}

void FakeKubeClient::setHook(std::function<void(const std::string& verb)> hook) {
  std::lock_guard lock(mu_);
  hook_ = std::move(hook);
}

std::vector<std::string> FakeKubeClient::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

int FakeKubeClient::callCount(const std::string& verb) const {
  std::lock_guard lock(mu_);
  int n = 0;
  for (const std::string& call : calls_) {
    if (call.starts_with(verb + " ")) ++n;
  }
  return n;
}

std::vector<json> FakeKubeClient::objects(const GroupVersionResource& gvr) const {
  std::lock_guard lock(store_->mu);
  std::vector<json> out;
  const auto it = store_->objects.find(resourceKey(gvr));
  if (it == store_->objects.end()) return out;
  for (const auto& [key, object] : it->second) out.push_back(object);
  return out;
}

common::Status FakeKubeClient::intercept(const std::string& verb, const GroupVersionResource& gvr,
                                         const std::string& ns, const std::string& name) {
  std::function<void(const std::string&)> hook;
  {
    std::lock_guard lock(mu_);
    hook = hook_;
  }
  if (hook) hook(verb);
  std::lock_guard lock(mu_);
  calls_.push_back(verb + " " + gvr.resource + " " + ns + "/" + name);
  const auto it = failures_.find(verb);
  if (it == failures_.end()) return common::okStatus();
  common::Status status = it->second.status;
  if (it->second.remaining > 0 && --it->second.remaining == 0) failures_.erase(it);
  return status;
}

common::Result<json> FakeKubeClient::get(const GroupVersionResource& gvr, const std::string& ns,
                                         const std::string& name) {
  HETBENCH_RETURN_IF_ERROR(intercept("get", gvr, ns, name));
  std::lock_guard lock(store_->mu);
  auto& objects = store_->objects[resourceKey(gvr)];
  const auto it = objects.find(objectKey(gvr, ns, name));
  if (it == objects.end()) return notFound(gvr, name);
  return it->second;
}

common::Result<ListResult> FakeKubeClient::list(const GroupVersionResource& gvr,
                                                const std::string& ns, const ListOptions& options) {
  HETBENCH_RETURN_IF_ERROR(intercept("list", gvr, ns, ""));
  std::lock_guard lock(store_->mu);
  ListResult result;
  result.resourceVersion = std::to_string(store_->resourceVersion);
  for (const auto& [key, object] : store_->objects[resourceKey(gvr)]) {
    const json labels = object["metadata"].value("labels", json::object());
    const json fields = {
        {"metadata.name", nameOf(object)},
        {"metadata.namespace", stringAt(object, "/metadata/namespace"_json_pointer)}};
    if (!ns.empty() && gvr.namespaced && fields["metadata.namespace"] != ns) continue;
    if (!matchesSelector(labels, options.labelSelector)) continue;
    if (!matchesSelector(fields, options.fieldSelector)) continue;
    result.items.push_back(object);
  }
  return result;
}

common::Result<json> FakeKubeClient::create(const GroupVersionResource& gvr, const std::string& ns,
                                            const json& object) {
  HETBENCH_RETURN_IF_ERROR(intercept("create", gvr, ns, nameOf(object)));
  if (!object.is_object()) return common::invalidError("object is not a JSON object");
  std::lock_guard lock(store_->mu);
  json stored = object;
  json& metadata = stored["metadata"];
  if (!metadata.is_object()) return common::invalidError("metadata is not an object");
  std::string name = nameOf(stored);
  const std::string generateName = stringAt(stored, "/metadata/generateName"_json_pointer);
  if (name.empty() && !generateName.empty()) {
    name = generateName + std::to_string(10000 + ++store_->generated);
    metadata["name"] = name;
  }
  if (name.empty()) {
    return common::invalidError("metadata.name: Required value",
                                {{"metadata.name", "FieldValueRequired", "Required value"}});
  }
  auto& objects = store_->objects[resourceKey(gvr)];
  const std::string key = objectKey(gvr, ns, name);
  if (objects.contains(key)) {
    return common::alreadyExistsError(gvr.resource + " \"" + name + "\" already exists");
  }
  if (gvr.namespaced) metadata["namespace"] = ns;
  // Shaped as the API server's (RFC 4122 text), numbered so that tests can tell them apart.
  char uid[37];
  std::snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012llu",
                static_cast<unsigned long long>(++store_->generated));
  metadata["uid"] = uid;
  metadata["resourceVersion"] = std::to_string(++store_->resourceVersion);
  objects[key] = stored;
  return stored;
}

common::Result<json> FakeKubeClient::write(const GroupVersionResource& gvr, const std::string& ns,
                                           json object, bool statusOnly) {
  if (!object.is_object()) return common::invalidError("object is not a JSON object");
  const std::string name = nameOf(object);
  std::lock_guard lock(store_->mu);
  auto& objects = store_->objects[resourceKey(gvr)];
  const auto it = objects.find(objectKey(gvr, ns, name));
  if (it == objects.end()) return notFound(gvr, name);
  const std::string version = versionOf(object);
  if (!version.empty() && version != versionOf(it->second)) return conflict(gvr, name);
  json stored = it->second;
  if (statusOnly) {
    stored["status"] = object.value("status", json::object());
  } else {
    const json kept = stored;
    stored = std::move(object);
    stored["metadata"]["uid"] = kept["metadata"]["uid"];
    stored["metadata"]["namespace"] = kept["metadata"].value("namespace", json());
    if (hasStatusSubresource(gvr)) stored["status"] = kept.value("status", json::object());
  }
  stored["metadata"]["resourceVersion"] = std::to_string(++store_->resourceVersion);
  it->second = stored;
  return stored;
}

common::Result<json> FakeKubeClient::update(const GroupVersionResource& gvr, const std::string& ns,
                                            const json& object) {
  HETBENCH_RETURN_IF_ERROR(intercept("update", gvr, ns, nameOf(object)));
  return write(gvr, ns, object, false);
}

common::Result<json> FakeKubeClient::updateStatus(const GroupVersionResource& gvr,
                                                  const std::string& ns, const json& object) {
  HETBENCH_RETURN_IF_ERROR(intercept("updateStatus", gvr, ns, nameOf(object)));
  return write(gvr, ns, object, true);
}

common::Result<json> FakeKubeClient::patch(const GroupVersionResource& gvr, const std::string& ns,
                                           const std::string& name, PatchType type,
                                           const json& patch, bool statusSubresource) {
  HETBENCH_RETURN_IF_ERROR(intercept("patch", gvr, ns, name));
  json patched;
  {
    std::lock_guard lock(store_->mu);
    auto& objects = store_->objects[resourceKey(gvr)];
    const auto it = objects.find(objectKey(gvr, ns, name));
    if (it == objects.end()) return notFound(gvr, name);
    patched = it->second;
    try {
      if (type == PatchType::kJson) {
        patched = patched.patch(patch);
      } else {
        patched.merge_patch(patch);
      }
    } catch (const json::exception& e) {
      return common::invalidError(std::string("the patch could not be applied: ") + e.what());
    }
    if (!patched.is_object() || !patched["metadata"].is_object()) {
      return common::invalidError("the patch removed the object's metadata");
    }
    const std::string version = versionOf(patched);
    if (!version.empty() && version != versionOf(it->second)) return conflict(gvr, name);
    patched["metadata"]["name"] = name;
    // Guards against a write between this read and the write below.
    patched["metadata"]["resourceVersion"] = versionOf(it->second);
  }
  return write(gvr, ns, std::move(patched), statusSubresource);
}

common::Status FakeKubeClient::remove(const GroupVersionResource& gvr, const std::string& ns,
                                      const std::string& name, const DeleteOptions& options) {
  HETBENCH_RETURN_IF_ERROR(intercept("remove", gvr, ns, name));
  std::lock_guard lock(store_->mu);
  auto& objects = store_->objects[resourceKey(gvr)];
  const auto it = objects.find(objectKey(gvr, ns, name));
  if (it == objects.end()) return notFound(gvr, name);
  const std::string uid = stringAt(it->second, "/metadata/uid"_json_pointer);
  if ((options.preconditionUid && *options.preconditionUid != uid) ||
      (options.preconditionResourceVersion &&
       *options.preconditionResourceVersion != versionOf(it->second))) {
    return conflict(gvr, name);
  }
  objects.erase(it);
  ++store_->resourceVersion;
  return common::okStatus();
}

common::Result<std::unique_ptr<WatchStream>> FakeKubeClient::watch(const GroupVersionResource&,
                                                                   const std::string&,
                                                                   const WatchOptions&) {
  return common::internalError("not supported by the fake");
}

common::Status FakeKubeClient::streamLogs(const std::string&, const std::string&, const LogOptions&,
                                          const std::function<bool(std::string_view)>&) {
  return common::internalError("not supported by the fake");
}

void FakeKubeClient::serve(const std::string& apiVersion, const std::string& kind,
                           GroupVersionResource gvr) {
  std::lock_guard lock(mu_);
  served_[{apiVersion, kind}] = std::move(gvr);
}

common::Result<GroupVersionResource> FakeKubeClient::resourceFor(const std::string& apiVersion,
                                                                 const std::string& kind) {
  std::lock_guard lock(mu_);
  const auto it = served_.find({apiVersion, kind});
  if (it == served_.end()) return common::notFoundError("no " + kind + " in " + apiVersion);
  return it->second;
}

}  // namespace hetbench::kube::testing
