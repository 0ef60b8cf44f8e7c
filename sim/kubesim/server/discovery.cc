#include <algorithm>
#include <map>
#include <set>

#include "server/http_api.h"

namespace hetbench::kubesim {
namespace {

using nlohmann::json;

const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get",
                                         "list",   "patch",  "update",           "watch"};

// Namespaces have no deletecollection: their registry is no CollectionDeleter. The review
// resources are created and nothing else.
json verbsOf(const ResourceType& t) {
  if (t.createOnly) return json::array({"create"});
  json verbs = kVerbs;
  if (!hasDeleteCollection(t))
    verbs.erase(std::find(verbs.begin(), verbs.end(), "deletecollection"));
  return verbs;
}

json resourceList(const std::string& groupVersion, const std::vector<ResourceType>& types) {
  json resources = json::array();
  for (const ResourceType& t : types) {
    json r = {{"name", t.resource},
              {"singularName", t.singular},
              {"namespaced", t.namespaced},
              {"kind", t.kind},
              {"verbs", verbsOf(t)}};
    if (!t.shortNames.empty()) r["shortNames"] = t.shortNames;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(r);
    for (const std::string& sub : t.subresources) {
      const bool streaming = sub == "exec" || sub == "attach" || sub == "portforward";
      json verbs = sub == "log"                         ? json::array({"get"})
                   : sub == "binding" || sub == "token" ? json::array({"create"})
                   : sub == "finalize"                  ? json::array({"update"})
                   : streaming                          ? json::array({"create", "get"})
                                                        : json::array({"get", "patch", "update"});
      json entry = {{"name", t.resource + "/" + sub},
                    {"singularName", ""},
                    {"namespaced", t.namespaced},
                    {"kind", t.kind},
                    {"verbs", verbs}};
      if (sub == "binding") entry["kind"] = "Binding";
      if (sub == "exec") entry["kind"] = "PodExecOptions";
      if (sub == "attach") entry["kind"] = "PodAttachOptions";
      if (sub == "portforward") entry["kind"] = "PodPortForwardOptions";
      // A subresource of another group's kind names its group and version.
      if (sub == "token") {
        entry["group"] = "authentication.k8s.io";
        entry["version"] = "v1";
        entry["kind"] = "TokenRequest";
      }
      if (sub == "scale") {
        entry["group"] = "autoscaling";
        entry["version"] = "v1";
        entry["kind"] = "Scale";
      }
      resources.push_back(entry);
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", groupVersion},
          {"resources", resources}};
}

// Versions of each group, the preferred (storage, else first) one first.
std::map<std::string, std::vector<std::string>> groupVersions(
    const std::vector<ResourceType>& types) {
  std::map<std::string, std::vector<std::string>> out;
  std::map<std::string, std::string> preferred;
  for (const ResourceType& t : types) {
    std::vector<std::string>& versions = out[t.group];
    if (std::find(versions.begin(), versions.end(), t.version) == versions.end()) {
      versions.push_back(t.version);
    }
    if (t.custom && t.custom->storage) preferred[t.group] = t.version;
  }
  for (auto& [group, versions] : out) {
    auto it = preferred.find(group);
    if (it != preferred.end()) {
      std::stable_partition(versions.begin(), versions.end(),
                            [&](const std::string& v) { return v == it->second; });
    }
  }
  return out;
}

json apiGroup(const std::string& name, const std::vector<std::string>& versions) {
  json list = json::array();
  for (const std::string& v : versions) {
    list.push_back({{"groupVersion", name + "/" + v}, {"version", v}});
  }
  return {{"name", name}, {"versions", list}, {"preferredVersion", list[0]}};
}

}  // namespace

std::optional<json> discoveryDocument(const std::string& path, const ResourceRegistry& registry,
                                      const std::string& advertiseAddress) {
  const std::vector<ResourceType> types = registry.all();
  if (path == "/version" || path == "/version/") {
    return json{
        {"major", "1"},           {"minor", "32"},           {"gitVersion", "v1.32.0-kubesim"},
        {"gitCommit", "kubesim"}, {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"},
        {"goVersion", "go1.23"},  {"compiler", "gc"},        {"platform", "linux/amd64"}};
  }
  if (path == "/api" || path == "/api/") {
    return json{{"kind", "APIVersions"},
                {"versions", {"v1"}},
                {"serverAddressByClientCIDRs",
                 {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", advertiseAddress}}}}};
  }
  if (path == "/api/v1" || path == "/api/v1/") {
    std::vector<ResourceType> core;
    for (const ResourceType& t : types) {
      if (t.group.empty()) core.push_back(t);
    }
    return resourceList("v1", core);
  }
  const auto groups = groupVersions(types);
  if (path == "/apis" || path == "/apis/") {
    json list = json::array();
    for (const auto& [group, versions] : groups) {
      if (!group.empty()) list.push_back(apiGroup(group, versions));
    }
    return json{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", list}};
  }
  if (path.rfind("/apis/", 0) != 0) return std::nullopt;
  std::string rest = path.substr(6);
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  const std::size_t slash = rest.find('/');
  const std::string group = rest.substr(0, slash);
  auto it = groups.find(group);
  if (it == groups.end() || group.empty()) return std::nullopt;
  if (slash == std::string::npos) {
    json g = apiGroup(group, it->second);
    g["kind"] = "APIGroup";
    g["apiVersion"] = "v1";
    return g;
  }
  const std::string version = rest.substr(slash + 1);
  if (version.find('/') != std::string::npos) return std::nullopt;
  std::vector<ResourceType> members;
  for (const ResourceType& t : types) {
    if (t.group == group && t.version == version) members.push_back(t);
  }
  if (members.empty()) return std::nullopt;
  return resourceList(group + "/" + version, members);
}

bool ApiServer::handleDiscovery(const http::Request& request, http::ResponseWriter& out) {
  if (request.method != "GET") return false;
  std::string address;
  {
    std::lock_guard lock(mu_);
    address = options_.advertiseAddress;
  }
  std::optional<json> doc = discoveryDocument(request.path, api_.registry(), address);
  if (!doc) return false;
  sendJson(out, 200, *doc);
  return true;
}

}  // namespace hetbench::kubesim
