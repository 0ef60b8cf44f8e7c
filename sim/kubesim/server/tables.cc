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
};

json column(const Column& c) {
  return {{"name", c.name},
          {"type", c.type},
          {"format", std::string(c.name) == "Name" ? "name" : ""},
          {"description", ""},
          {"priority", c.priority}};
}

std::string age(const json& object, common::WallTime now) {
  const std::string created = object["metadata"].value("creationTimestamp", "");
  common::Result<common::WallTime> t = common::parseRfc3339(created);
  if (!t.isOk()) return "<unknown>";
  return humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string podStatus(const json& pod) {
  const json& status = pod.value("status", json::object());
  std::string reason = status.value("reason", status.value("phase", "Unknown"));
  for (const json& cs : status.value("containerStatuses", json::array())) {
    const json& state = cs.value("state", json::object());
    if (state.contains("waiting") && state["waiting"].contains("reason")) {
      reason = state["waiting"]["reason"].get<std::string>();
    } else if (state.contains("terminated")) {
      const json& t = state["terminated"];
      if (t.contains("reason")) {
        reason = t["reason"].get<std::string>();
      } else {
        reason = "ExitCode:" + std::to_string(t.value("exitCode", 0));
      }
    }
  }
  if (pod["metadata"].contains("deletionTimestamp")) reason = "Terminating";
  return reason;
}

std::vector<json> podRow(const json& pod, common::WallTime now) {
  const json& status = pod.value("status", json::object());
  int ready = 0, total = 0, restarts = 0;
  for (const json& cs : status.value("containerStatuses", json::array())) {
    if (cs.value("ready", false)) ++ready;
    restarts += cs.value("restartCount", 0);
  }
  total = static_cast<int>(pod["spec"].value("containers", json::array()).size());
  return {pod["metadata"]["name"],
          std::to_string(ready) + "/" + std::to_string(total),
          podStatus(pod),
          std::to_string(restarts),
          age(pod, now),
          status.value("podIP", "<none>"),
          pod["spec"].value("nodeName", "<none>"),
          "<none>",
          "<none>"};
}

std::vector<json> jobRow(const json& job, common::WallTime now) {
  const json& status = job.value("status", json::object());
  std::string state = "Running";
  for (const json& c : status.value("conditions", json::array())) {
    if (c.value("status", "") != "True") continue;
    const std::string type = c.value("type", "");
    if (type == "Complete" || type == "Failed" || type == "Suspended") state = type;
    if (type == "FailureTarget") state = "FailureTarget";
  }
  const json& spec = job.value("spec", json::object());
  std::string completions =
      std::to_string(status.value("succeeded", 0)) + "/" +
      (spec.contains("completions") ? std::to_string(spec["completions"].get<int>()) : "1");
  std::string duration;
  if (status.contains("startTime")) {
    common::Result<common::WallTime> start =
        common::parseRfc3339(status["startTime"].get<std::string>());
    common::WallTime end = now;
    if (status.contains("completionTime")) {
      common::Result<common::WallTime> done =
          common::parseRfc3339(status["completionTime"].get<std::string>());
      if (done.isOk()) end = *done;
    }
    if (start.isOk()) {
      duration = humanDuration(std::chrono::duration_cast<std::chrono::seconds>(end - *start));
    }
  }
  std::string containers, images;
  for (const json& c : spec.value("template", json::object())
                           .value("spec", json::object())
                           .value("containers", json::array())) {
    if (!containers.empty()) {
      containers += ",";
      images += ",";
    }
    containers += c.value("name", "");
    images += c.value("image", "");
  }
  return {job["metadata"]["name"],
          state,
          completions,
          duration,
          age(job, now),
          containers,
          images,
          spec.value("selector", json::object()).dump()};
}

std::vector<json> nodeRow(const json& node, common::WallTime now) {
  std::string status = "Unknown";
  for (const json& c : node.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "Ready")
      status = c.value("status", "") == "True" ? "Ready" : "NotReady";
  }
  if (node.value("spec", json::object()).value("unschedulable", false))
    status += ",SchedulingDisabled";
  const json& info = node.value("status", json::object()).value("nodeInfo", json::object());
  std::string ip = "<none>";
  for (const json& a : node.value("status", json::object()).value("addresses", json::array())) {
    if (a.value("type", "") == "InternalIP") ip = a.value("address", "<none>");
  }
  return {node["metadata"]["name"],
          status,
          "<none>",
          age(node, now),
          info.value("kubeletVersion", ""),
          ip,
          "<none>",
          info.value("osImage", ""),
          info.value("kernelVersion", ""),
          info.value("containerRuntimeVersion", "")};
}

std::vector<json> serviceRow(const json& svc, common::WallTime now) {
  const json& spec = svc.value("spec", json::object());
  std::string ports;
  for (const json& p : spec.value("ports", json::array())) {
    if (!ports.empty()) ports += ",";
    ports += std::to_string(p.value("port", 0)) + "/" + p.value("protocol", "TCP");
  }
  if (ports.empty()) ports = "<none>";
  return {svc["metadata"]["name"],
          spec.value("type", "ClusterIP"),
          spec.value("clusterIP", "<none>"),
          "<none>",
          ports,
          age(svc, now)};
}

std::vector<json> eventRow(const json& event, common::WallTime now) {
  const json& involved = event.value("involvedObject", json::object());
  std::string kind = involved.value("kind", "");
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string lastSeen = "<unknown>";
  const std::string ts = event.value("lastTimestamp", event.value("eventTime", ""));
  if (common::Result<common::WallTime> t = common::parseRfc3339(ts); t.isOk()) {
    lastSeen = humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
  }
  return {lastSeen, event.value("type", ""), event.value("reason", ""),
          kind + "/" + involved.value("name", ""), event.value("message", "")};
}

std::vector<json> namespaceRow(const json& ns, common::WallTime now) {
  return {ns["metadata"]["name"], ns.value("status", json::object()).value("phase", ""),
          age(ns, now)};
}

std::vector<json> configMapRow(const json& cm, common::WallTime now) {
  const std::size_t n =
      cm.value("data", json::object()).size() + cm.value("binaryData", json::object()).size();
  return {cm["metadata"]["name"], n, age(cm, now)};
}

std::vector<json> leaseRow(const json& lease, common::WallTime now) {
  return {lease["metadata"]["name"],
          lease.value("spec", json::object()).value("holderIdentity", ""), age(lease, now)};
}

std::vector<json> defaultRow(const json& object, common::WallTime) {
  return {object["metadata"]["name"], object["metadata"].value("creationTimestamp", "")};
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
  } else if (key == "/nodes") {
    columns = {{"Name", "string", 0},           {"Status", "string", 0},
               {"Roles", "string", 0},          {"Age", "string", 0},
               {"Version", "string", 0},        {"Internal-IP", "string", 1},
               {"External-IP", "string", 1},    {"OS-Image", "string", 1},
               {"Kernel-Version", "string", 1}, {"Container-Runtime", "string", 1}};
    row = nodeRow;
  } else if (key == "/services") {
    columns = {{"Name", "string", 0},        {"Type", "string", 0},    {"Cluster-IP", "string", 0},
               {"External-IP", "string", 0}, {"Port(s)", "string", 0}, {"Age", "string", 0}};
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
                     {"metadata", object["metadata"]}};
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
