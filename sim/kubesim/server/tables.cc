#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "apimachinery/selectors.h"
#include "hetbench/common/json_fields.h"
#include "hetbench/common/time.h"
#include "schema/jsonpath.h"
#include "server/http_api.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

struct Column {
  const char* name;
  const char* type;
  int priority;
  /// Whether a "Name" column has format "name", as every printer's but the Scale's has.
  bool nameFormat = true;
};

json column(const Column& c) {
  return {{"name", c.name},
          {"type", c.type},
          {"format", c.nameFormat && std::string(c.name) == "Name" ? "name" : ""},
          {"description", ""},
          {"priority", c.priority}};
}

// Fields may be absent, of another type, or JSON null (client-go writes unset pointer fields,
// such as an Event's eventTime, as null): these readers and common's json_fields read each as
// absent.

std::string text(const json& object, const char* key, const std::string& fallback = "") {
  const json& value = common::member(object, key);
  return value.is_string() ? value.get<std::string>() : fallback;
}

std::int64_t count(const json& object, const char* key, std::int64_t fallback = 0) {
  const json& value = common::member(object, key);
  return value.is_number_integer() ? value.get<std::int64_t>() : fallback;
}

std::string age(const json& object, common::WallTime now) {
  common::Result<common::WallTime> t =
      common::parseRfc3339(text(common::member(object, "metadata"), "creationTimestamp"));
  if (!t.isOk()) return "<unknown>";
  return humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

json name(const json& object) { return text(common::member(object, "metadata"), "name"); }

std::string podStatus(const json& pod) {
  const json& status = common::member(pod, "status");
  std::string reason = text(status, "reason", text(status, "phase", "Unknown"));
  for (const json& cs : common::arrayMember(status, "containerStatuses")) {
    const json& state = common::member(cs, "state");
    const json& waiting = common::member(state, "waiting");
    const json& terminated = common::member(state, "terminated");
    if (common::member(waiting, "reason").is_string()) {
      reason = text(waiting, "reason");
    } else if (terminated.is_object()) {
      reason = common::member(terminated, "reason").is_string()
                   ? text(terminated, "reason")
                   : "ExitCode:" + std::to_string(count(terminated, "exitCode"));
    }
  }
  if (!common::member(common::member(pod, "metadata"), "deletionTimestamp").is_null())
    reason = "Terminating";
  return reason;
}

std::vector<json> podRow(const json& pod, common::WallTime now) {
  const json& status = common::member(pod, "status");
  const json& spec = common::member(pod, "spec");
  std::int64_t ready = 0, restarts = 0;
  for (const json& cs : common::arrayMember(status, "containerStatuses")) {
    if (common::boolMember(cs, "ready")) ++ready;
    restarts += count(cs, "restartCount");
  }
  const auto total = static_cast<std::int64_t>(common::arrayMember(spec, "containers").size());
  return {name(pod),
          std::to_string(ready) + "/" + std::to_string(total),
          podStatus(pod),
          std::to_string(restarts),
          age(pod, now),
          text(status, "podIP", "<none>"),
          text(spec, "nodeName", "<none>"),
          "<none>",
          "<none>"};
}

/// The containers' names and images of a pod template, comma-separated, as the printers' wide
/// columns show them.
std::pair<std::string, std::string> containersAndImages(const json& podTemplate) {
  std::string containers, images;
  for (const json& c : common::arrayMember(common::member(podTemplate, "spec"), "containers")) {
    if (!containers.empty()) {
      containers += ",";
      images += ",";
    }
    containers += text(c, "name");
    images += text(c, "image");
  }
  return {containers, images};
}

/// A label selector as metav1.FormatLabelSelector writes it ("app=web,tier in (edge,front)"):
/// "<none>" when it selects everything, "<error>" when it does not convert.
std::string formatSelector(const json& selector) {
  common::Result<LabelSelector> parsed = LabelSelector::fromJson(selector);
  if (!parsed.isOk()) return "<error>";
  const std::string query = parsed->toString();
  return query.empty() ? "<none>" : query;
}

std::vector<json> jobRow(const json& job, common::WallTime now) {
  const json& status = common::member(job, "status");
  std::string state = "Running";
  for (const json& c : common::arrayMember(status, "conditions")) {
    if (text(c, "status") != "True") continue;
    const std::string type = text(c, "type");
    if (type == "Complete" || type == "Failed" || type == "Suspended") state = type;
    if (type == "FailureTarget") state = "FailureTarget";
  }
  const json& spec = common::member(job, "spec");
  const json& completionsField = common::member(spec, "completions");
  const std::string completions =
      std::to_string(count(status, "succeeded")) + "/" +
      (completionsField.is_number_integer() ? std::to_string(completionsField.get<std::int64_t>())
                                            : "1");
  std::string duration;
  if (common::Result<common::WallTime> start = common::parseRfc3339(text(status, "startTime"));
      start.isOk()) {
    common::WallTime end = now;
    if (common::Result<common::WallTime> done =
            common::parseRfc3339(text(status, "completionTime"));
        done.isOk()) {
      end = *done;
    }
    duration = humanDuration(std::chrono::duration_cast<std::chrono::seconds>(end - *start));
  }
  const auto [containers, images] = containersAndImages(common::member(spec, "template"));
  return {name(job),     state,      completions, duration,
          age(job, now), containers, images,      formatSelector(common::member(spec, "selector"))};
}

std::vector<json> deploymentRow(const json& deployment, common::WallTime now) {
  const json& spec = common::member(deployment, "spec");
  const json& status = common::member(deployment, "status");
  const auto [containers, images] = containersAndImages(common::member(spec, "template"));
  return {name(deployment),
          std::to_string(count(status, "readyReplicas")) + "/" +
              std::to_string(count(spec, "replicas", 1)),
          count(status, "updatedReplicas"),
          count(status, "availableReplicas"),
          age(deployment, now),
          containers,
          images,
          formatSelector(common::member(spec, "selector"))};
}

std::vector<json> replicaSetRow(const json& replicaSet, common::WallTime now) {
  const json& spec = common::member(replicaSet, "spec");
  const json& status = common::member(replicaSet, "status");
  const auto [containers, images] = containersAndImages(common::member(spec, "template"));
  return {name(replicaSet),
          count(spec, "replicas", 1),
          count(status, "replicas"),
          count(status, "readyReplicas"),
          age(replicaSet, now),
          containers,
          images,
          formatSelector(common::member(spec, "selector"))};
}

std::vector<json> nodeRow(const json& node, common::WallTime now) {
  const json& status = common::member(node, "status");
  std::string ready = "Unknown";
  for (const json& c : common::arrayMember(status, "conditions")) {
    if (text(c, "type") == "Ready") ready = text(c, "status") == "True" ? "Ready" : "NotReady";
  }
  if (common::boolMember(common::member(node, "spec"), "unschedulable"))
    ready += ",SchedulingDisabled";
  const json& info = common::member(status, "nodeInfo");
  std::string ip = "<none>";
  for (const json& a : common::arrayMember(status, "addresses")) {
    if (text(a, "type") == "InternalIP") ip = text(a, "address", "<none>");
  }
  return {name(node),
          ready,
          "<none>",
          age(node, now),
          text(info, "kubeletVersion"),
          ip,
          "<none>",
          text(info, "osImage"),
          text(info, "kernelVersion"),
          text(info, "containerRuntimeVersion")};
}

std::vector<json> serviceRow(const json& svc, common::WallTime now) {
  const json& spec = common::member(svc, "spec");
  std::string ports;
  for (const json& p : common::arrayMember(spec, "ports")) {
    if (!ports.empty()) ports += ",";
    ports += std::to_string(count(p, "port")) + "/" + text(p, "protocol", "TCP");
  }
  if (ports.empty()) ports = "<none>";
  // labels.FormatLabels of the selector map: sorted "key=value" pairs.
  std::string selector;
  const json& selectorMap = common::member(spec, "selector");
  if (selectorMap.is_object()) {
    for (const auto& [key, value] : selectorMap.items()) {
      selector += (selector.empty() ? "" : ",") + key + "=" +
                  (value.is_string() ? value.get<std::string>() : "");
    }
  }
  return {name(svc),
          text(spec, "type", "ClusterIP"),
          text(spec, "clusterIP", "<none>"),
          "<none>",
          ports,
          age(svc, now),
          selector.empty() ? "<none>" : selector};
}

std::vector<json> eventRow(const json& event, common::WallTime now) {
  const json& involved = common::member(event, "involvedObject");
  std::string kind = text(involved, "kind");
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string lastSeen = "<unknown>";
  const std::string ts = text(event, "lastTimestamp", text(event, "eventTime"));
  if (common::Result<common::WallTime> t = common::parseRfc3339(ts); t.isOk()) {
    lastSeen = humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
  }
  return {lastSeen, text(event, "type"), text(event, "reason"), kind + "/" + text(involved, "name"),
          text(event, "message")};
}

std::vector<json> namespaceRow(const json& ns, common::WallTime now) {
  return {name(ns), text(common::member(ns, "status"), "phase"), age(ns, now)};
}

std::vector<json> configMapRow(const json& cm, common::WallTime now) {
  const json& data = common::member(cm, "data");
  const json& binaryData = common::member(cm, "binaryData");
  const std::size_t n =
      (data.is_object() ? data.size() : 0) + (binaryData.is_object() ? binaryData.size() : 0);
  return {name(cm), n, age(cm, now)};
}

std::vector<json> leaseRow(const json& lease, common::WallTime now) {
  return {name(lease), text(common::member(lease, "spec"), "holderIdentity"), age(lease, now)};
}

std::vector<json> scaleRow(const json& scale, common::WallTime now) {
  return {name(scale), count(common::member(scale, "spec"), "replicas"),
          count(common::member(scale, "status"), "replicas"), age(scale, now)};
}

std::vector<json> defaultRow(const json& object, common::WallTime) {
  return {name(object), text(common::member(object, "metadata"), "creationTimestamp")};
}

}  // namespace

std::string humanDuration(std::chrono::seconds d) {
  const long long seconds = d.count();
  auto s = [](long long v) { return std::to_string(v); };
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return s(seconds) + "s";
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? s(minutes) + "m" : s(minutes) + "m" + s(seconds % 60) + "s";
  }
  if (minutes < 60 * 3) return s(minutes) + "m";
  const long long hours = minutes / 60;
  if (hours < 8) return minutes % 60 == 0 ? s(hours) + "h" : s(hours) + "h" + s(minutes % 60) + "m";
  if (hours < 48) return s(hours) + "h";
  if (hours < 24 * 8)
    return hours % 24 == 0 ? s(hours / 24) + "d" : s(hours / 24) + "d" + s(hours % 24) + "h";
  if (hours < 24 * 365 * 2) return s(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const long long days = (hours / 24) % 365;
    return days == 0 ? s(hours / 24 / 365) + "y" : s(hours / 24 / 365) + "y" + s(days) + "d";
  }
  return s(hours / 24 / 365) + "y";
}

ApiResult<json> buildTable(const ResourceType& type, const std::vector<json>& objects,
                           const json& listMeta, const std::string& includeObject,
                           common::WallTime now) {
  if (includeObject != "Metadata" && includeObject != "Object" && includeObject != "None") {
    return errors::badRequest("includeObject must be one of None, Metadata or Object");
  }
  if (type.isCustom()) {
    common::Result<json> table = buildCustomResourceTable(
        type.custom ? type.custom->printerColumns : std::vector<PrinterColumn>{}, objects, listMeta,
        includeObject, now);
    if (!table.isOk()) return errors::badRequest(table.status().message());
    return *table;
  }
  using Row = std::vector<json> (*)(const json&, common::WallTime);
  std::vector<Column> columns;
  Row row = defaultRow;
  const std::string key = type.storageKey();
  if (key == "/pods") {
    columns = {{"Name", "string", 0},
               {"Ready", "string", 0},
               {"Status", "string", 0},
               {"Restarts", "string", 0},
               {"Age", "string", 0},
               {"IP", "string", 1},
               {"Node", "string", 1},
               {"Nominated Node", "string", 1},
               {"Readiness Gates", "string", 1}};
    row = podRow;
  } else if (key == "batch/jobs") {
    columns = {{"Name", "string", 0},     {"Status", "string", 0},  {"Completions", "string", 0},
               {"Duration", "string", 0}, {"Age", "string", 0},     {"Containers", "string", 1},
               {"Images", "string", 1},   {"Selector", "string", 1}};
    row = jobRow;
  } else if (key == "apps/deployments") {
    columns = {{"Name", "string", 0},       {"Ready", "string", 0},   {"Up-to-date", "integer", 0},
               {"Available", "integer", 0}, {"Age", "string", 0},     {"Containers", "string", 1},
               {"Images", "string", 1},     {"Selector", "string", 1}};
    row = deploymentRow;
  } else if (key == "apps/replicasets") {
    columns = {{"Name", "string", 0},   {"Desired", "integer", 0}, {"Current", "integer", 0},
               {"Ready", "integer", 0}, {"Age", "string", 0},      {"Containers", "string", 1},
               {"Images", "string", 1}, {"Selector", "string", 1}};
    row = replicaSetRow;
  } else if (key == "/nodes") {
    columns = {{"Name", "string", 0},           {"Status", "string", 0},
               {"Roles", "string", 0},          {"Age", "string", 0},
               {"Version", "string", 0},        {"Internal-IP", "string", 1},
               {"External-IP", "string", 1},    {"OS-Image", "string", 1},
               {"Kernel-Version", "string", 1}, {"Container-Runtime", "string", 1}};
    row = nodeRow;
  } else if (key == "/services") {
    columns = {{"Name", "string", 0},        {"Type", "string", 0},    {"Cluster-IP", "string", 0},
               {"External-IP", "string", 0}, {"Port(s)", "string", 0}, {"Age", "string", 0},
               {"Selector", "string", 1}};
    row = serviceRow;
  } else if (key == "/events") {
    columns = {{"Last Seen", "string", 0},
               {"Type", "string", 0},
               {"Reason", "string", 0},
               {"Object", "string", 0},
               {"Message", "string", 0}};
    row = eventRow;
  } else if (key == "/namespaces") {
    columns = {{"Name", "string", 0}, {"Status", "string", 0}, {"Age", "string", 0}};
    row = namespaceRow;
  } else if (key == "/configmaps") {
    columns = {{"Name", "string", 0}, {"Data", "integer", 0}, {"Age", "string", 0}};
    row = configMapRow;
  } else if (type.group == "autoscaling" && type.kind == "Scale") {
    columns = {{"Name", "string", 0, false},
               {"Desired", "integer", 0},
               {"Available", "integer", 0},
               {"Age", "string", 0}};
    row = scaleRow;
  } else if (key == "coordination.k8s.io/leases") {
    columns = {{"Name", "string", 0}, {"Holder", "string", 0}, {"Age", "string", 0}};
    row = leaseRow;
  } else {
    columns = {{"Name", "string", 0}, {"Created At", "date", 0}};
  }
  json defs = json::array();
  for (const Column& c : columns) defs.push_back(column(c));
  json rows = json::array();
  for (const json& object : objects) {
    json r = {{"cells", row(object, now)}};
    if (includeObject == "Object") {
      r["object"] = object;
    } else if (includeObject == "Metadata") {
      r["object"] = {{"kind", "PartialObjectMetadata"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", common::member(object, "metadata")}};
    }
    rows.push_back(r);
  }
  return json{{"kind", "Table"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", listMeta.is_object() ? listMeta : json::object()},
              {"columnDefinitions", defs},
              {"rows", rows}};
}

}  // namespace hetbench::kubesim
