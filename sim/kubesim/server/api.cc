#include "server/api.h"

#include <map>
#include <set>

#include "apimachinery/apply.h"
#include "apimachinery/patch.h"
#include "apimachinery/selectors.h"
#include "hetbench/common/time.h"
#include "hetbench/common/yaml.h"
#include "server/object_meta.h"
#include "server/pod_security.h"
#include "server/scale.h"
#include "server/strategy.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const char* kModified =
    "the object has been modified; please apply your changes to the latest version and try again";

std::string metaString(const json& object, const char* field) {
  const json& meta = object.value("metadata", json::object());
  auto it = meta.find(field);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

// A body naming another namespace than the request's path.
std::optional<ApiError> namespaceMismatch(const json& body, const std::string& ns) {
  const std::string bodyNs = metaString(body, "namespace");
  if (bodyNs.empty() || bodyNs == ns) return std::nullopt;
  return errors::badRequest(
      "the namespace of the provided object does not match the namespace sent on the request");
}

// Everything but metadata and status: a change here bumps metadata.generation.
json specOf(const json& object) {
  json copy = object;
  copy.erase("metadata");
  copy.erase("status");
  return copy;
}

// Carries a precise ApiError out of a Store mutation, which can only fail with a Status.
struct Abort {
  std::optional<ApiError> error;
  common::Status fail(ApiError e) {
    error = std::move(e);
    return common::internalError("aborted");
  }
};

bool isFinalizerAdded(const json& now, const json& old) {
  std::set<std::string> before;
  for (const json& f : old["metadata"].value("finalizers", json::array())) {
    if (f.is_string()) before.insert(f.get<std::string>());
  }
  for (const json& f : now["metadata"].value("finalizers", json::array())) {
    if (f.is_string() && !before.count(f.get<std::string>())) return true;
  }
  return false;
}

bool hasFinalizers(const json& object) {
  const json& meta = object["metadata"];
  return meta.contains("finalizers") && meta["finalizers"].is_array() &&
         !meta["finalizers"].empty();
}

std::int64_t graceOf(const json& object) {
  const json& meta = object["metadata"];
  return meta.contains("deletionGracePeriodSeconds") &&
                 meta["deletionGracePeriodSeconds"].is_number_integer()
             ? meta["deletionGracePeriodSeconds"].get<std::int64_t>()
             : 0;
}

std::string managerOf(const WriteOptions& options) {
  return options.fieldManager.empty() ? options.userAgentManager : options.fieldManager;
}

std::shared_ptr<const ApplyType> applyTypeOf(const ResourceType& type) {
  if (type.custom && type.custom->schema) {
    if (const json* root = type.custom->schema->at("")) return applyTypeForSchema(*root);
  }
  return applyTypeForKind(type.kind);
}

json withoutManagedFields(json object) {
  if (object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("managedFields");
  }
  return object;
}

std::vector<ManagedFieldsEntry> managedFieldsOf(const json& object) {
  const json& meta = object.value("metadata", json::object());
  common::Result<std::vector<ManagedFieldsEntry>> entries =
      decodeManagedFields(meta.value("managedFields", json()));
  return entries.isOk() ? std::move(*entries) : std::vector<ManagedFieldsEntry>{};
}

void setManagedFields(json& object, const std::vector<ManagedFieldsEntry>& entries) {
  if (entries.empty()) {
    object["metadata"].erase("managedFields");
  } else {
    object["metadata"]["managedFields"] = encodeManagedFields(entries);
  }
}

// A client clears managedFields by writing a list of one empty entry (an empty list keeps them,
// so that clients that do not know the field cannot drop it).
bool isManagedFieldsReset(const json& meta) {
  auto it = meta.find("managedFields");
  return it != meta.end() && it->is_array() && it->size() == 1 && (*it)[0].is_object() &&
         (*it)[0].empty();
}

ApiError invalidPatchOptions(const common::StatusCause& cause) {
  ResourceType options;
  options.group = "meta.k8s.io";
  options.kind = "PatchOptions";
  return errors::invalid(options, "", {cause});
}

ApiError applyConflict(const std::vector<FieldConflict>& conflicts) {
  ApiError e;
  e.code = 409;
  e.reason = "Conflict";
  e.message = conflictMessage(conflicts);
  json causes = json::array();
  for (const FieldConflict& c : conflicts) {
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", "conflict with " + c.manager},
                      {"field", pathString(c.path)}});
  }
  e.details = {{"causes", causes}};
  return e;
}

}  // namespace

Api::Api(Store& store, ResourceRegistry& registry, const common::Clock& clock,
         common::RandomSource& random)
    : store_(store), registry_(registry), clock_(clock), random_(random) {}

std::optional<ResourceType> Api::typeOf(const std::string& group,
                                        const std::string& resource) const {
  std::optional<ResourceType> found;
  for (const ResourceType& t : registry_.all()) {
    if (t.group != group || t.resource != resource) continue;
    // Prefer the storage version of a custom resource.
    if (!found || (t.custom && t.custom->storage)) found = t;
  }
  return found;
}

std::optional<ApiError> Api::checkNamespace(const ResourceType& type, const std::string& ns,
                                            const std::string& name) const {
  if (!type.namespaced) return std::nullopt;
  std::optional<ResourceType> nsType = typeOf("", "namespaces");
  std::optional<json> nsObject = store_.get(nsType->storageKey(), "", ns);
  if (!nsObject) return errors::notFound(*nsType, ns);
  if ((*nsObject)["metadata"].contains("deletionTimestamp")) {
    ApiError e = errors::forbidden(
        type, name,
        "unable to create new content in namespace " + ns + " because it is being terminated");
    e.details["causes"] = {{{"reason", "NamespaceTerminating"},
                            {"message", "namespace " + ns + " is being terminated"},
                            {"field", "metadata.namespace"}}};
    return e;
  }
  return std::nullopt;
}

ApiResult<json> Api::get(const ResourceType& type, const std::string& ns,
                         const std::string& name) const {
  std::optional<json> object = store_.get(type.storageKey(), type.namespaced ? ns : "", name);
  if (!object) return errors::notFound(type, name);
  return presentObject(type, std::move(*object));
}

ApiResult<json> Api::getScale(const ResourceType& type, const std::string& ns,
                              const std::string& name) const {
  std::optional<json> object = store_.get(type.storageKey(), type.namespaced ? ns : "", name);
  if (!object) return errors::notFound(type, name);
  return scaleOf(type, *object);
}

ApiResult<std::vector<json>> Api::select(const ResourceType& type, const std::vector<json>& objects,
                                         const std::string& labelSelector,
                                         const std::string& fieldSelector) const {
  common::Result<LabelSelector> labels = LabelSelector::parse(labelSelector);
  if (!labels.isOk()) return errors::badRequest(labels.status().message());
  common::Result<FieldSelector> fields = FieldSelector::parse(fieldSelector);
  if (!fields.isOk()) return errors::badRequest(fields.status().message());
  const Strategy& strategy = strategyFor(type);
  for (const FieldSelector::Requirement& r : fields->requirements()) {
    const bool known = r.field == "metadata.name" || r.field == "metadata.namespace" ||
                       std::find(strategy.fieldLabels.begin(), strategy.fieldLabels.end(),
                                 r.field) != strategy.fieldLabels.end();
    if (!known) return errors::badRequest("field label not supported: " + r.field);
  }
  std::vector<json> out;
  for (const json& object : objects) {
    if (!labels->matches(object["metadata"].value("labels", json()))) continue;
    if (!fields->matches(object)) continue;
    out.push_back(object);
  }
  return out;
}

ApiResult<json> Api::list(const ResourceType& type, const std::string& ns,
                          const ListOptions& options) const {
  const std::string listNs = type.namespaced ? ns : "";
  auto [objects, rv] = store_.list(type.storageKey(), listNs);
  std::string start;
  if (!options.continueToken.empty()) {
    std::optional<ContinueToken> token = decodeContinue(options.continueToken);
    if (!token) return errors::badRequest("continue key is not valid: " + options.continueToken);
    // A continued list reads the snapshot of its first page, as etcd reads at the token's
    // revision: the changes made since are undone, newest first.
    common::Result<Store::Batch> since = store_.eventsAfter(
        type.storageKey(), listNs, token->resourceVersion, std::chrono::milliseconds(0));
    if (!since.isOk()) {
      // As etcd3 storage does after a compaction: the Status carries a token that lists the
      // rest at the latest version.
      ApiError e = errors::gone(kContinueExpired);
      e.continueToken = encodeContinue({store_.currentVersion(), token->startAfter});
      return e;
    }
    std::map<std::string, json> snapshot;
    for (json& object : objects) {
      const std::string key = metaString(object, "namespace") + "/" + metaString(object, "name");
      snapshot[key] = std::move(object);
    }
    for (auto e = since->events.rbegin(); e != since->events.rend(); ++e) {
      const json& before = e->type == EventType::kDeleted ? e->object : e->prevObject;
      const json& any = before.is_null() ? e->object : before;
      const std::string key = metaString(any, "namespace") + "/" + metaString(any, "name");
      if (before.is_null()) {
        snapshot.erase(key);
      } else {
        snapshot[key] = before;
      }
    }
    objects.clear();
    for (auto& [key, object] : snapshot) objects.push_back(std::move(object));
    start = token->startAfter;
    rv = token->resourceVersion;
  }
  ApiResult<std::vector<json>> selected =
      select(type, objects, options.labelSelector, options.fieldSelector);
  if (!selected.isOk()) return selected.error();

  json items = json::array();
  json meta = {{"resourceVersion", std::to_string(rv)}};
  std::int64_t remaining = 0;
  for (json& object : *selected) {
    const std::string key = metaString(object, "namespace") + "/" + metaString(object, "name");
    if (!start.empty() && key <= start) continue;
    if (options.limit > 0 && static_cast<std::int64_t>(items.size()) >= options.limit) {
      ++remaining;
      continue;
    }
    items.push_back(presentListItem(type, std::move(object)));
  }
  if (remaining > 0) {
    const json& last = items.back();
    meta["continue"] =
        encodeContinue({rv, metaString(last, "namespace") + "/" + metaString(last, "name")});
    // Storage can only count what is left when it filters nothing.
    if (options.labelSelector.empty() && options.fieldSelector.empty()) {
      meta["remainingItemCount"] = remaining;
    }
  }
  return json{{"kind", type.kind + "List"},
              {"apiVersion", type.apiVersion()},
              {"metadata", meta},
              {"items", items}};
}

ApiResult<WriteResult> Api::create(const ResourceType& type, const std::string& ns, json body,
                                   const WriteOptions& options) {
  return create(type, ns, std::move(body), options, Tracking::kUpdate);
}

ApiResult<WriteResult> Api::create(const ResourceType& type, const std::string& ns, json body,
                                   const WriteOptions& options, Tracking tracking) {
  ApiResult<std::vector<std::string>> decoded = checkTypeMeta(type, body);
  if (!decoded.isOk()) return decoded.error();
  WriteResult result;
  result.warnings = std::move(*decoded);
  json& meta = body["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (type.namespaced) {
    if (std::optional<ApiError> e = namespaceMismatch(body, ns)) return *e;
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  // Namespace lifecycle admission runs before defaulting, naming and validation.
  if (std::optional<ApiError> nsError = checkNamespace(type, ns, metaString(body, "name"))) {
    return *nsError;
  }
  if (metaString(body, "name").empty() && !metaString(body, "generateName").empty()) {
    meta["name"] = metaString(body, "generateName") + generatedSuffix(random_);
  }
  const std::string name = metaString(body, "name");
  // Set before admission: defaulting may refer to them (a Job's selector uses its uid).
  meta["uid"] = newUid(random_);
  meta["creationTimestamp"] = common::formatRfc3339(clock_.now());

  ApiResult<std::vector<std::string>> admitted = admit(type, body, nullptr, "", options, clock_);
  if (!admitted.isOk()) return admitted.error();
  result.warnings.insert(result.warnings.end(), admitted->begin(), admitted->end());
  // The PodSecurity admission plugin validates after the object's own validation.
  if (type.group.empty() && type.resource == "pods") {
    const std::optional<json> nsObject = store_.get(typeOf("", "namespaces")->storageKey(), "", ns);
    const json labels =
        nsObject ? nsObject->value("metadata", json::object()).value("labels", json::object())
                 : json();
    PodSecurityDecision podSecurity = admitPodSecurity(body, labels);
    if (podSecurity.refusal) return errors::forbidden(type, name, *podSecurity.refusal);
    result.warnings.insert(result.warnings.end(), podSecurity.warnings.begin(),
                           podSecurity.warnings.end());
  }

  if (strategyFor(type).generation) meta["generation"] = 1;
  // Storage refuses a create that names a resourceVersion.
  if (!metaString(body, "resourceVersion").empty()) {
    return errors::badRequest("resourceVersion can not be set for Create requests");
  }
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (tracking == Tracking::kUpdate && isManagedFieldsReset(meta)) {
    meta.erase("managedFields");
  } else if (tracking == Tracking::kUpdate && !managerOf(options).empty()) {
    // Before a create stands Go's zero object, which has its metadata, spec and status.
    json after = withoutManagedFields(body);
    json before = {{"metadata", json::object()}};
    for (const char* part : {"spec", "status"}) {
      if (after.contains(part)) before[part] = json::object();
    }
    if (type.hasSubresource("status")) {
      before.erase("status");
      after.erase("status");
    }
    setManagedFields(body, recordUpdate(before, after, managedFieldsOf(body),
                                        {managerOf(options), type.apiVersion(), "",
                                         common::formatRfc3339(clock_.now())},
                                        *applyTypeOf(type)));
  }
  if (options.dryRun) {
    result.object = presentObject(type, std::move(body));
    result.created = true;
    return result;
  }

  Abort abort;
  common::Result<json> stored =
      store_.mutate(type.storageKey(), type.namespaced ? ns : "", name,
                    [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
                      if (current) return abort.fail(errors::alreadyExists(type, name));
                      return std::optional<json>(body);
                    });
  if (!stored.isOk())
    return abort.error ? *abort.error : errors::internal(stored.status().message());
  result.object = presentObject(type, std::move(*stored));
  result.created = true;
  return result;
}

ApiResult<WriteResult> Api::update(const ResourceType& type, const std::string& ns,
                                   const std::string& name, json body,
                                   const std::string& subresource, const WriteOptions& options) {
  const bool scale = subresource == "scale";
  ApiResult<std::vector<std::string>> decoded = checkTypeMeta(scale ? scaleType(type) : type, body);
  if (!decoded.isOk()) return decoded.error();
  const std::string bodyName = metaString(body, "name");
  if (bodyName != name) {
    return errors::badRequest("the name of the object (" + bodyName +
                              ") does not match the name on the URL (" + name + ")");
  }
  if (type.namespaced) {
    if (std::optional<ApiError> e = namespaceMismatch(body, ns)) return *e;
  }
  if (scale) {
    if (std::optional<ApiError> e = validateScale(type, name, body)) return *e;
  }
  ApiResult<WriteResult> result = write(type, ns, name, std::move(body), subresource, options);
  if (result.isOk()) {
    result->warnings.insert(result->warnings.begin(), decoded->begin(), decoded->end());
  }
  return result;
}

ApiResult<WriteResult> Api::patch(const ResourceType& type, const std::string& ns,
                                  const std::string& name, const std::string& contentType,
                                  const std::string& patchBody, const std::string& subresource,
                                  const WriteOptions& options) {
  std::string mediaType = contentType.substr(0, contentType.find(';'));
  while (!mediaType.empty() && mediaType.back() == ' ') mediaType.pop_back();
  // A custom resource's Scale is a built-in kind, which strategic merge patch knows.
  const bool scale = subresource == "scale";
  const ResourceType patchedType = scale ? scaleType(type) : type;
  const bool strategic = mediaType == "application/strategic-merge-patch+json";
  const bool applyPatch = mediaType == "application/apply-patch+yaml";
  if (mediaType != "application/merge-patch+json" && mediaType != "application/json-patch+json" &&
      !applyPatch && !(strategic && !patchedType.isCustom())) {
    return errors::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json" +
        std::string(patchedType.isCustom() ? "" : ", application/strategic-merge-patch+json") +
        ", application/apply-patch+yaml");
  }
  if (applyPatch && scale) {
    return errors::unsupportedMediaType(
        "kubesim does not apply to the scale subresource: apply a Scale with a patch of another "
        "type");
  }
  if (applyPatch) return apply(type, ns, name, patchBody, subresource, options);
  if (options.force) {
    return invalidPatchOptions(
        common::forbiddenCause("force", "may not be specified for non-apply patch"));
  }
  json patchJson = json::parse(patchBody, nullptr, false);
  if (patchJson.is_discarded()) {
    return errors::badRequest("error decoding patch: invalid JSON in the request body");
  }
  std::optional<json> current = store_.get(type.storageKey(), type.namespaced ? ns : "", name);
  if (!current) return errors::notFound(type, name);

  // The patch applies to what the client would read; the write below then checks that nothing
  // changed in between and, as the API server does, retries on a conflict it caused itself.
  for (int attempt = 0; attempt < 5; ++attempt) {
    json base = *current;
    if (scale) {
      ApiResult<json> view = scaleForUpdate(type, base);
      if (!view.isOk()) return view.error();
      base = std::move(*view);
    }
    common::Result<json> patched = common::internalError("unreachable");
    if (mediaType == "application/merge-patch+json") {
      patched = applyMergePatch(base, patchJson);
    } else if (mediaType == "application/json-patch+json") {
      patched = applyJsonPatch(base, patchJson);
    } else {
      patched = applyStrategicMergePatch(patchedType.kind, base, patchJson);
    }
    if (!patched.isOk()) {
      // A JSON patch document that does not decode is a 400; one whose operations cannot apply
      // is the generic 422 of NewGenericServerResponse.
      if (mediaType == "application/json-patch+json" && patched.status().causes().empty()) {
        return errors::badRequest(patched.status().message());
      }
      ApiError e = errors::invalid(patchedType, name, {});
      e.code = 422;
      e.message = patched.status().message();
      e.details = json::object();
      // NewGenericServerResponse keeps the patch library's error as the details' one cause.
      const common::Status failure = patched.status();
      for (const common::StatusCause& c : failure.causes()) {
        json cause = {{"reason", c.reason}, {"message", c.message}};
        if (!c.field.empty()) cause["field"] = c.field;
        e.details["causes"].push_back(cause);
      }
      return e;
    }
    json desired = std::move(*patched);
    // A patch that does not name a resourceVersion is unconditional.
    const bool pinned =
        metaString(desired, "resourceVersion") != metaString(base, "resourceVersion");
    if (!pinned) desired["metadata"]["resourceVersion"] = metaString(base, "resourceVersion");
    if (scale) {
      if (std::optional<ApiError> e = validateScale(type, name, desired)) return *e;
    }
    ApiResult<WriteResult> written =
        write(type, ns, name, std::move(desired), subresource, options);
    if (written.isOk() || pinned || written.error().code != 409 ||
        written.error().reason != "Conflict") {
      return written;
    }
    current = store_.get(type.storageKey(), type.namespaced ? ns : "", name);
    if (!current) return errors::notFound(type, name);
  }
  return errors::conflict(type, name, kModified);
}

ApiResult<WriteResult> Api::apply(const ResourceType& type, const std::string& ns,
                                  const std::string& name, const std::string& patchBody,
                                  const std::string& subresource, const WriteOptions& options) {
  if (options.fieldManager.empty()) {
    return invalidPatchOptions(
        common::requiredCause("fieldManager", "is required for apply patch"));
  }
  json config = json::parse(patchBody, nullptr, false);
  if (config.is_discarded()) {
    common::Result<std::vector<json>> documents = common::yamlDocuments(patchBody);
    if (!documents.isOk()) {
      return errors::badRequest("error decoding YAML: " + documents.status().message());
    }
    config = documents->size() == 1 ? (*documents)[0] : json();
  }
  if (!config.is_object()) {
    return errors::badRequest("error decoding YAML: the apply patch is not one object");
  }
  const json& version = config["apiVersion"];
  const std::string apiVersion = version.is_string() ? version.get<std::string>() : "";
  if (apiVersion != type.apiVersion()) {
    return errors::badRequest(
        "Incorrect version specified in apply patch. Specified patch version: " + apiVersion +
        ", expected: " + type.apiVersion());
  }
  ApiResult<std::vector<std::string>> decoded = checkTypeMeta(type, config);
  if (!decoded.isOk()) return decoded.error();
  if (metaString(config, "name") != name) {
    return errors::badRequest("the name of the object (" + metaString(config, "name") +
                              ") does not match the name on the URL (" + name + ")");
  }
  if (type.namespaced) {
    if (std::optional<ApiError> e = namespaceMismatch(config, ns)) return *e;
  }
  if (config["metadata"].contains("managedFields")) {
    return errors::badRequest("metadata.managedFields must be nil");
  }
  // Each endpoint owns its part: /status the status only, the object all else.
  if (subresource == "status") {
    json status = config.value("status", json());
    config = {{"apiVersion", config["apiVersion"]},
              {"kind", config["kind"]},
              {"metadata", {{"name", name}}}};
    if (!status.is_null()) config["status"] = std::move(status);
  } else if (type.hasSubresource("status")) {
    config.erase("status");
  }
  const bool pinned = !metaString(config, "resourceVersion").empty();
  const std::shared_ptr<const ApplyType> applyType = applyTypeOf(type);
  const FieldWriter writer{options.fieldManager, type.apiVersion(), subresource,
                           common::formatRfc3339(clock_.now())};
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::optional<json> current = store_.get(type.storageKey(), type.namespaced ? ns : "", name);
    if (!current) {
      if (!subresource.empty()) return errors::notFound(type, name);
      ApplyOutcome outcome = applyConfiguration(json::object(), config, {}, writer,
                                                options.force.value_or(false), *applyType);
      json body = std::move(outcome.object);
      setManagedFields(body, outcome.managedFields);
      ApiResult<WriteResult> created =
          create(type, ns, std::move(body), options, Tracking::kApplied);
      if (created.isOk() || created.error().reason != "AlreadyExists") return created;
      continue;
    }
    ApplyOutcome outcome =
        applyConfiguration(withoutManagedFields(*current), config, managedFieldsOf(*current),
                           writer, options.force.value_or(false), *applyType);
    if (!outcome.conflicts.empty() && !options.force.value_or(false)) {
      return applyConflict(outcome.conflicts);
    }
    json desired = std::move(outcome.object);
    setManagedFields(desired, outcome.managedFields);
    if (!pinned) desired["metadata"]["resourceVersion"] = metaString(*current, "resourceVersion");
    ApiResult<WriteResult> written =
        write(type, ns, name, std::move(desired), subresource, options, Tracking::kApplied);
    if (written.isOk() || pinned || written.error().code != 409 ||
        written.error().reason != "Conflict") {
      return written;
    }
  }
  return errors::conflict(type, name, kModified);
}

ApiResult<WriteResult> Api::write(const ResourceType& type, const std::string& ns,
                                  const std::string& name, json desired,
                                  const std::string& subresource, const WriteOptions& options,
                                  Tracking tracking) {
  WriteResult result;
  Abort abort;
  const Strategy& strategy = strategyFor(type);
  common::Result<json> stored = store_.mutate(
      type.storageKey(), type.namespaced ? ns : "", name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current) return abort.fail(errors::notFound(type, name));
        const json& old = *current;
        const std::string wantRv = metaString(desired, "resourceVersion");
        if (!wantRv.empty() && wantRv != metaString(old, "resourceVersion")) {
          return abort.fail(errors::conflict(type, name, kModified));
        }
        const std::string wantUid = metaString(desired, "uid");
        if (!wantUid.empty() && wantUid != metaString(old, "uid")) {
          return abort.fail(
              errors::conflict(type, name,
                               "Precondition failed: UID in precondition: " + wantUid +
                                   ", UID in object meta: " + metaString(old, "uid")));
        }
        json next;
        if (subresource == "scale") {
          // ScaleREST: the object as it is, with the Scale's spec replicas.
          next = old;
          if (std::optional<ApiError> e = setReplicasFromScale(type, desired, next)) {
            return abort.fail(*e);
          }
        } else if (subresource == "status") {
          next = old;
          if (desired.contains("status")) {
            next["status"] = desired["status"];
          } else {
            next.erase("status");
          }
        } else {
          next = desired;
          if (type.hasSubresource("status")) {
            if (old.contains("status")) {
              next["status"] = old["status"];
            } else {
              next.erase("status");
            }
          }
          json& meta = next["metadata"];
          if (!meta.is_object()) meta = json::object();
          for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                                    "deletionGracePeriodSeconds", "generation", "namespace"}) {
            if (old["metadata"].contains(field)) {
              meta[field] = old["metadata"][field];
            } else {
              meta.erase(field);
            }
          }
          meta["name"] = name;
        }
        next["metadata"]["resourceVersion"] = metaString(old, "resourceVersion");
        if (old["metadata"].contains("deletionTimestamp") && isFinalizerAdded(next, old)) {
          return abort.fail(errors::invalid(
              type, name,
              {common::forbiddenCause("metadata.finalizers",
                                      "no new finalizers can be added if the object is being "
                                      "deleted, found new finalizers " +
                                          newFinalizers(next, old))}));
        }
        ApiResult<std::vector<std::string>> admitted =
            admit(type, next, &old, subresource, options, clock_);
        if (!admitted.isOk()) return abort.fail(admitted.error());
        result.warnings = std::move(*admitted);
        if (strategy.generation && specOf(next) != specOf(old)) {
          next["metadata"]["generation"] = old["metadata"].value("generation", 0) + 1;
        }
        trackManagedFields(type, old, desired, next, subresource, options, tracking);
        if (next == old) return std::optional<json>(old);
        if (old["metadata"].contains("deletionTimestamp") && !hasFinalizers(next) &&
            graceOf(next) == 0) {
          return std::optional<json>();
        }
        if (options.dryRun) {
          result.object = next;
          return abort.fail(ApiError{});
        }
        return std::optional<json>(std::move(next));
      });
  if (!stored.isOk()) {
    if (!abort.error || !options.dryRun || !abort.error->message.empty()) {
      return abort.error ? *abort.error : errors::internal(stored.status().message());
    }
  } else {
    result.object = std::move(*stored);
  }
  if (subresource == "scale") {
    ApiResult<json> scale = scaleOf(type, result.object);
    if (!scale.isOk()) return scale.error();
    result.object = std::move(*scale);
    return result;
  }
  result.object = presentObject(type, std::move(result.object));
  return result;
}

void Api::trackManagedFields(const ResourceType& type, const json& old, const json& desired,
                             json& next, const std::string& subresource,
                             const WriteOptions& options, Tracking tracking) const {
  json& meta = next["metadata"];
  if (tracking == Tracking::kApplied) {
    const json& applied = desired["metadata"];
    if (applied.contains("managedFields")) {
      meta["managedFields"] = applied["managedFields"];
    } else {
      meta.erase("managedFields");
    }
    return;
  }
  if (subresource.empty() && isManagedFieldsReset(meta)) {
    meta.erase("managedFields");
    return;
  }
  // A write that leaves managedFields out, or empty, keeps them; one that sets them replaces them.
  const bool given = subresource.empty() && meta.contains("managedFields") &&
                     meta["managedFields"].is_array() && !meta["managedFields"].empty() &&
                     decodeManagedFields(meta["managedFields"]).isOk();
  if (!given) {
    if (old["metadata"].contains("managedFields")) {
      meta["managedFields"] = old["metadata"]["managedFields"];
    } else {
      meta.erase("managedFields");
    }
  }
  const std::string manager = managerOf(options);
  const json before = withoutManagedFields(old);
  const json after = withoutManagedFields(next);
  if (manager.empty() || before == after) return;
  setManagedFields(next, recordUpdate(before, after, managedFieldsOf(next),
                                      {manager, type.apiVersion(), subresource,
                                       common::formatRfc3339(clock_.now())},
                                      *applyTypeOf(type)));
}

ApiResult<json> Api::remove(const ResourceType& type, const std::string& ns,
                            const std::string& name, const DeleteOptions& options) {
  const Strategy& strategy = strategyFor(type);
  const std::string policy = options.propagationPolicy.value_or(strategy.defaultPropagation);
  if (policy != "Orphan" && policy != "Background" && policy != "Foreground") {
    ApiError e =
        errors::invalid(type, name,
                        {common::notSupportedCause("propagationPolicy", policy,
                                                   {"Foreground", "Background", "Orphan"})});
    return e;
  }
  if (options.gracePeriodSeconds && *options.gracePeriodSeconds < 0) {
    return errors::invalid(type, name,
                           {common::invalidCause("gracePeriodSeconds", *options.gracePeriodSeconds,
                                                 "must be greater than or equal to 0")});
  }
  Abort abort;
  const bool isNamespace = type.group.empty() && type.resource == "namespaces";
  common::Result<json> stored = store_.mutate(
      type.storageKey(), type.namespaced ? ns : "", name,
      [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
        if (!current) return abort.fail(errors::notFound(type, name));
        json next = *current;
        json& meta = next["metadata"];
        if (options.preconditionUid && *options.preconditionUid != metaString(next, "uid")) {
          return abort.fail(errors::conflict(
              type, name,
              "Precondition failed: UID in precondition: " + *options.preconditionUid +
                  ", UID in object meta: " + metaString(next, "uid")));
        }
        if (options.preconditionResourceVersion &&
            *options.preconditionResourceVersion != metaString(next, "resourceVersion")) {
          return abort.fail(errors::conflict(
              type, name,
              "Precondition failed: ResourceVersion in precondition: " +
                  *options.preconditionResourceVersion +
                  ", ResourceVersion in object meta: " + metaString(next, "resourceVersion")));
        }
        if (options.dryRun) return abort.fail(ApiError{});
        std::int64_t grace = 0;
        if (type.group.empty() && type.resource == "pods") grace = podGracePeriod(next, options);
        json finalizers = meta.value("finalizers", json::array());
        auto addFinalizer = [&](const char* f) {
          if (std::find(finalizers.begin(), finalizers.end(), f) == finalizers.end()) {
            finalizers.push_back(f);
          }
        };
        if (policy == "Foreground") addFinalizer("foregroundDeletion");
        if (policy == "Orphan") addFinalizer("orphan");
        if (!finalizers.empty()) meta["finalizers"] = finalizers;
        if (isNamespace) {
          next["status"]["phase"] = "Terminating";
          grace = 0;
        }
        const bool pending = !finalizers.empty() || grace > 0 || isNamespace;
        if (!pending) return std::optional<json>();
        if (meta.contains("deletionTimestamp")) {
          // A repeated delete may only shorten a pending grace period.
          if (grace >= graceOf(next) && next == *current) return std::optional<json>(*current);
          if (grace < graceOf(next)) {
            meta["deletionGracePeriodSeconds"] = grace;
            meta["deletionTimestamp"] =
                common::formatRfc3339(clock_.now() + std::chrono::seconds(grace));
          }
        } else {
          meta["deletionTimestamp"] =
              common::formatRfc3339(clock_.now() + std::chrono::seconds(grace));
          meta["deletionGracePeriodSeconds"] = grace;
        }
        if (meta.value("generation", 0) > 0) meta["generation"] = meta["generation"].get<int>() + 1;
        return std::optional<json>(std::move(next));
      });
  if (!stored.isOk()) {
    if (abort.error && options.dryRun && abort.error->message.empty()) {
      return get(type, ns, name);
    }
    return abort.error ? *abort.error : errors::internal(stored.status().message());
  }
  return presentObject(type, std::move(*stored));
}

ApiResult<json> Api::removeCollection(const ResourceType& type, const std::string& ns,
                                      const ListOptions& listOptions,
                                      const DeleteOptions& options) {
  ListOptions all = listOptions;
  all.limit = 0;
  all.continueToken.clear();
  ApiResult<json> listed = list(type, ns, all);
  if (!listed.isOk()) return listed.error();
  json items = json::array();
  for (const json& item : (*listed)["items"]) {
    ApiResult<json> removed =
        remove(type, metaString(item, "namespace"), metaString(item, "name"), options);
    if (removed.isOk()) {
      items.push_back(presentListItem(type, std::move(*removed)));
    } else if (removed.error().code != 404) {
      return removed.error();
    }
  }
  (*listed)["items"] = items;
  return listed;
}

ApiResult<json> Api::removeNow(const ResourceType& type, const std::string& ns,
                               const std::string& name) {
  Abort abort;
  common::Result<json> stored =
      store_.mutate(type.storageKey(), type.namespaced ? ns : "", name,
                    [&](const std::optional<json>& current) -> common::Result<std::optional<json>> {
                      if (!current) return abort.fail(errors::notFound(type, name));
                      return std::optional<json>();
                    });
  if (!stored.isOk()) return abort.error ? *abort.error : errors::internal("delete failed");
  return presentObject(type, std::move(*stored));
}

}  // namespace hetbench::kubesim
